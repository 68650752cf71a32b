"""`analyze check --introduced` (issue 24 item 6): for each current finding, the first-parent
commit where its fingerprint first appears and its age in commits, like `git blame` for
findings; bounded by --introduced-depth; fail closed in a shallow clone."""

import json
import subprocess

import pytest

import inprocess
from histrepo import Repo, env

UNSAFE = "MC-CON-20260902-3d4e5f60 Evidence has an unsafe or invalid source path."
OLD = "MC-CON-20260903-4e5f6071 Evidence has an unsafe or invalid source path."


def check(root, *args):
    return inprocess.run(["check", "--freshness", *args,
                          "--project-root", str(root), "--no-cache"], capture_output=True, text=True)


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """init (the example: OLD is there); `unsafe` adds UNSAFE; `other` edits another memory
    file; `code` changes no memory; the work tree then adds a third finding, uncommitted."""
    repo = Repo(tmp_path_factory.mktemp("intro") / "p")
    shas = {"init": repo.git("rev-parse", "HEAD").strip()}
    repo.edit("constraints.md", "- doc:docs/security.md\n", "- doc:docs/security.md\n- repo:../outside.txt\n")
    shas["unsafe"] = repo.commit("an unsafe evidence path")
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#45\n")
    shas["other"] = repo.commit("more evidence")
    (repo.root / "src.txt").write_text("code\n")
    shas["code"] = repo.commit("code only")
    repo.edit("decisions.md", "- issue:#45\n", "- issue:#45\n- repo:/etc/passwd\n")
    return repo, shas


def by_message(doc):
    return {f["message"]: f.get("introduced") for f in doc["findings"]}


def test_each_finding_names_where_it_started(history):
    repo, shas = history
    out = check(repo.root, "--introduced", "--format", "json")
    assert out.returncode == 1, out.stderr
    found = by_message(json.loads(out.stdout))
    assert found[OLD] == {"commit": shas["init"], "age": 3, "exact": True}  # the root commit held it
    assert found[UNSAFE] == {"commit": shas["unsafe"], "age": 2, "exact": True}
    uncommitted = [v for m, v in found.items() if "MC-DEC-20260910-1b2c3d4e" in m]  # FRESH-001 and FRESH-004
    assert len(uncommitted) == 2 and all(v == {"commit": "worktree", "age": 0, "exact": True} for v in uncommitted)
    assert all(v is not None for v in found.values())
    text = check(repo.root, "--introduced").stdout
    assert f"introduced by {shas['unsafe'][:12]} (2 commits before HEAD)" in text
    assert "introduced by uncommitted changes (the work tree)" in text
    sarif = json.loads(check(repo.root, "--introduced", "--format", "sarif").stdout)
    props = [r["properties"].get("introduced") for r in sarif["runs"][0]["results"]]
    assert {"commit": shas["unsafe"], "age": 2, "exact": True} in props and None not in props
    markdown = check(repo.root, "--introduced", "--format", "markdown").stdout
    assert f"(introduced by {shas['unsafe'][:12]} (2 commits before HEAD))" in markdown
    # concise said nothing of it: each finding's line now ends with where it started
    concise = check(repo.root, "--introduced", "--format", "concise").stdout.splitlines()
    assert any(l.endswith(f"; introduced by {shas['unsafe'][:12]} (2 commits before HEAD))")
               and "MC-CON-20260902-3d4e5f60" in l for l in concise), concise
    assert all("introduced by" in l or "present" in l for l in concise[:-1]) and concise[-1].startswith("Found ")
    # without the option, nothing of it
    plain = json.loads(check(repo.root, "--format", "json").stdout)
    assert all("introduced" not in f for f in plain["findings"])


def test_depth_bounds_the_walk(history):
    repo, shas = history
    # one memory commit read (`other`): both committed findings are present there
    found = by_message(json.loads(check(repo.root, "--introduced", "--introduced-depth", "1",
                                        "--format", "json").stdout))
    assert found[OLD] == found[UNSAFE] == {"commit": shas["other"], "age": 1, "exact": False}
    text = check(repo.root, "--introduced", "--introduced-depth", "1").stdout
    assert f"present since {shas['other'][:12]} or earlier" in text
    bad = check(repo.root, "--introduced-depth", "0", "--introduced")
    assert bad.returncode == 2 and "positive" in bad.stderr
    alone = check(repo.root, "--introduced-depth", "2")
    assert alone.returncode == 2 and "--introduced-depth needs --introduced" in alone.stderr


def test_shallow_clone_fails_closed(history, tmp_path):
    repo, shas = history
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repo.root}", str(clone)], env=env(), check=True,
                   capture_output=True)
    out = check(clone, "--introduced")
    assert out.returncode == 2 and out.stdout == ""
    # the boundary is `other` (HEAD~1); its parent `unsafe` is what the walk misses
    assert f"beyond commit {shas['other'][:12]}" in out.stderr and f"its parent {shas['unsafe']}" in out.stderr
    assert "git fetch --deepen=" in out.stderr
    # within the bound, the clone suffices
    found = by_message(json.loads(check(clone, "--introduced", "--introduced-depth", "1", "--format", "json").stdout))
    assert found[OLD]["commit"] == shas["other"] and found[OLD]["exact"] is False


def test_memory_dir_added_after_the_root(tmp_path):
    """Before the commit that adds the memory dir there is none: what it holds starts there,
    exactly, though that commit has a parent."""
    import shutil

    from histrepo import EXAMPLE

    root = tmp_path / "p"
    root.mkdir()

    def git(*args):
        return subprocess.run(["git", *args], cwd=root, env=env(), check=True, capture_output=True,
                              text=True).stdout.strip()

    git("init", "-q", "-b", "main")
    (root / "README.md").write_text("code first\n")
    git("add", "-A")
    git("commit", "-qm", "code")
    shutil.copytree(EXAMPLE / "docs", root / "docs")
    git("add", "-A")
    git("commit", "-qm", "memory")
    added = git("rev-parse", "HEAD")
    found = by_message(json.loads(check(root, "--introduced", "--format", "json").stdout))
    assert found[OLD] == {"commit": added, "age": 0, "exact": True}


def test_a_commit_whose_memory_cannot_be_read_ends_the_walk_not_the_command(tmp_path):
    """A repository's writer controls its history: one old commit holding a symlink in the
    memory dir (added, then removed) made every `check --introduced` exit 2. The walk now
    stops at the newest commit it cannot read; what is still present there started at the
    commit after it or earlier (exact false), never a guess of exact."""
    repo = Repo(tmp_path / "p")
    (repo.path("link.md")).symlink_to("brief.md")
    bad = repo.commit("a symlink in the memory dir")
    (repo.path("link.md")).unlink()
    after = repo.commit("remove it")
    repo.edit("constraints.md", "- doc:docs/security.md\n", "- doc:docs/security.md\n- repo:../outside.txt\n")
    unsafe = repo.commit("an unsafe evidence path")
    out = check(repo.root, "--introduced", "--format", "json")
    assert out.returncode == 1, out.stderr
    found = by_message(json.loads(out.stdout))
    assert found[UNSAFE] == {"commit": unsafe, "age": 0, "exact": True}
    assert found[OLD] == {"commit": after, "age": 1, "exact": False}
    assert bad[:12] in out.stderr and "MA-FILE-SYMLINK" in out.stderr  # said, not hidden
