"""Shallow and partial clones (issue 24 item 3), with real clones over ``file://``.

`analyze diff` compares two trees: it works whenever both commits are in the clone, as after
`git clone --depth 2` (actions/checkout's default is 1). What needs history beyond the clone's
boundary (the merge base of `check --autonomy`, the readiness window) names the commit whose
parent is missing and the command that fetches it, exit 2. A partial clone's missing blob is
an error naming the object, never fetched: the analyzer writes nothing into the repository."""

import subprocess

import pytest

import inprocess
from classes import CENTS
from histrepo import MEM, Repo, env, tree_state


def analyze(root, *args):
    return inprocess.run([*args, "--project-root", str(root), "--no-cache"],
                         capture_output=True, text=True)


def clone(origin, target, *options):
    subprocess.run(["git", "clone", "-q", *options, f"file://{origin}", str(target)], env=env(), check=True,
                   capture_output=True)
    return target


@pytest.fixture
def origin(tmp_path):
    """init, then three commits, each adding Evidence to CENTS (class E)."""
    repo = Repo(tmp_path / "origin")
    shas = [repo.git("rev-parse", "HEAD").strip()]
    for n in (45, 46, 47):
        repo.edit("decisions.md", "- issue:#42\n", f"- issue:#42\n- issue:#{n}\n")
        shas.append(repo.commit(f"evidence {n}"))
    repo.git("config", "uploadpack.allowFilter", "true")
    return repo, shas


def test_diff_in_a_depth_2_clone(origin, tmp_path):
    repo, shas = origin
    shallow = clone(repo.root, tmp_path / "shallow", "--depth", "2")
    for head in (["--head", "HEAD"], []):  # a commit and the work tree
        out = analyze(shallow, "diff", "--base", "HEAD~1", *head)
        assert out.returncode == 0, out.stderr
        assert f"E/evidence entry {CENTS}" in out.stdout and shas[3][:12] in out.stdout
        assert "note:" not in out.stderr  # HEAD~1..HEAD is whole in the clone
    # the autonomy check's merge base is HEAD~1 itself, inside the clone
    out = analyze(shallow, "check", "--autonomy", "confirm", "--base", "HEAD~1")
    assert (out.returncode, out.stdout.splitlines()[1]) == (0, "Autonomy status: CLEAR"), out.stderr


def test_readiness_window_beyond_the_clone(origin, tmp_path):
    repo, shas = origin
    shallow = clone(repo.root, tmp_path / "shallow", "--depth", "2")
    before = tree_state(shallow)
    out = analyze(shallow, "readiness")
    assert out.returncode == 2 and out.stdout == ""
    # the boundary is HEAD~1 (shas[2]); its parent shas[1] is what the window misses
    assert f"beyond commit {shas[2][:12]}" in out.stderr and f"its parent {shas[1]} is not in this clone" in out.stderr
    assert "git fetch --shallow-since=" in out.stderr and "fetch-depth: 0" in out.stderr
    full = analyze(shallow, "check", "--autonomy", "full", "--base", "HEAD~1")
    assert full.returncode == 2 and f"its parent {shas[1]}" in full.stderr
    assert tree_state(shallow) == before
    # deepened to the start, the same reading runs
    subprocess.run(["git", "fetch", "-q", "--unshallow"], cwd=shallow, env=env(), check=True)
    assert analyze(shallow, "readiness").returncode in (0, 1)


def test_merge_base_beyond_the_clone(origin, tmp_path):
    repo, shas = origin
    repo.git("checkout", "-q", "-b", "side", shas[1])
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#99\n")
    side = repo.commit("side: evidence")
    repo.git("checkout", "-q", "main")
    shallow = clone(repo.root, tmp_path / "shallow", "--depth", "1", "--no-single-branch")
    out = analyze(shallow, "check", "--autonomy", "confirm", "--base", "origin/main", "--head", "origin/side")
    assert out.returncode == 2, out.stdout
    # both tips are boundary commits; the first by id is named with its missing parent
    first = min(shas[3], side)
    missing = shas[2] if first == shas[3] else shas[1]
    assert f"merge base of origin/main and origin/side needs history beyond commit {first[:12]}" in out.stderr
    assert f"its parent {missing} is not in this clone" in out.stderr and "git fetch --deepen=" in out.stderr
    assert "unrelated" not in out.stderr
    # the tree-to-tree diff needs no merge base; it says the commits it lists may be partial
    out = analyze(shallow, "diff", "--base", "origin/main", "--head", "origin/side")
    assert out.returncode == 0 and "Counts: A 0, B 0, C 0, D 0, E 1" in out.stdout, out.stderr
    assert f"note: shallow clone: the history between the revisions stops at commit {side[:12]}" in out.stderr
    subprocess.run(["git", "fetch", "-q", "--deepen=3"], cwd=shallow, env=env(), check=True)
    out = analyze(shallow, "check", "--autonomy", "confirm", "--base", "origin/main", "--head", "origin/side")
    assert out.returncode == 0 and f"Judged from the merge base {shas[1][:12]}" in out.stdout, out.stderr


def test_base_outside_a_depth_1_clone(origin, tmp_path):
    repo, _shas = origin
    shallow = clone(repo.root, tmp_path / "shallow", "--depth", "1")
    out = analyze(shallow, "diff", "--base", "HEAD~1")
    assert out.returncode == 2
    assert "not a valid commit: HEAD~1 (this is a shallow clone" in out.stderr and "--deepen" in out.stderr


def test_partial_clone_fetches_nothing(origin, tmp_path):
    repo, shas = origin
    partial = clone(repo.root, tmp_path / "partial", "--filter=blob:none")
    before = tree_state(partial)
    out = analyze(partial, "diff", "--base", "HEAD~2", "--head", "HEAD")
    assert out.returncode == 2 and out.stdout == ""
    assert "partial clone: object " in out.stderr and "fetches nothing" in out.stderr, out.stderr
    assert tree_state(partial) == before  # no lazy fetch wrote into .git
    # the command the message gives fetches what the diff reads
    subprocess.run(f"git log -p --format= HEAD~2.. -- {MEM}/ > /dev/null", shell=True, cwd=partial, env=env(),
                   check=True)
    out = analyze(partial, "diff", "--base", "HEAD~2", "--head", "HEAD")
    assert out.returncode == 0 and shas[2][:12] in out.stdout, out.stderr
