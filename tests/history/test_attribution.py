"""A commit touches a unit only if the unit's text changes (issue 24, item 1).

Git's ``-U0`` hunk of a deletion of entry Y starts on the blank line that ends the entry X
before it; attributing by hunks blamed X for a commit that only deleted Y (and, after a
revert, for the revert). Every history command attributes by unit text instead
(analyzer/history/unit_touch.py): `analyze diff` names only the commits that changed a unit, the
autonomy check flags only the unit the unconfirmed commit changed, and a restore preview
warns of no later edit that never happened. Attribution is checked under Hypothesis against
a model that parses both whole revisions of every commit and compares unit texts."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import inprocess
from histrepo import MEM, Repo, entry

from analyzer.query.diff import run_diff

X, Y = "MC-DEC-20260910-1b2c3d4e", "MC-DEC-20260905-2c3d4e5f"  # adjacent in decisions.md, X first
AGENT = "Agent <agent@example.org>"


def cli(root, *args):
    out = inprocess.run([*args, "--no-cache", "--format", "json"], cwd=root,
                        capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    return out.returncode, json.loads(out.stdout)


def delete_unit(repo: Repo, module: str, ident: str) -> None:
    text = repo.read(module)
    start = text.index(f"## {ident}")
    nxt = text.find("\n## ", start + 3)
    repo.write(module, text[:start].rstrip("\n") + "\n" + ("\n" + text[nxt + 1:] if nxt >= 0 else ""))


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    """Edit X (confirmed by alice), then an agent deletes Y, the entry after X."""
    repo = Repo(tmp_path_factory.mktemp("attr") / "p")
    shas = {"base": repo.git("rev-parse", "HEAD").strip()}
    repo.edit("decisions.md", "floats never hold money.", "floats never hold an amount of money.")
    shas["edit-x"] = repo.commit("Edit X", trailers=("Memory-Confirmed-By: alice",))
    delete_unit(repo, "decisions.md", Y)
    shas["delete-y"] = repo.commit("Delete Y", author=AGENT)
    shown = repo.git("show", "-U0", "--format=", shas["delete-y"])
    assert "@@ -21,13 +20,0 @@" in shown and f"-## {Y}" in shown  # the hunk starts on X's blank line
    return repo, shas


def commits_of(result, ident):
    [change] = [c for c in result.changes if c.ident == ident]
    return change.commits


def test_diff_names_only_the_commits_that_changed_each_unit(story):
    repo, shas = story
    result = run_diff(repo.root, MEM, shas["base"], "HEAD", use_cache=False)
    assert commits_of(result, X) == [shas["edit-x"]]
    assert commits_of(result, Y) == [shas["delete-y"]]


def test_the_autonomy_check_flags_only_the_deleted_unit(story):
    repo, shas = story
    code, payload = cli(repo.root, "check", "--autonomy", "confirm", "--reviewer", "alice", "--base", shas["base"])
    assert code == 1
    assert sorted(f["id"] for f in payload["findings"]) == [Y]


def test_a_restore_of_the_edited_unit_warns_of_nothing(story):
    repo, shas = story
    code, payload = cli(repo.root, "restore", "--preview", X, "--base", shas["base"])
    assert (code, payload["status"], payload["findings"]) == (0, "READY", [])


def test_a_revert_of_the_deletion_touches_no_other_unit(tmp_path):
    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.edit("decisions.md", "floats never hold money.", "floats never hold an amount of money.")
    edit = repo.commit("Edit X", trailers=("Memory-Confirmed-By: alice",))
    delete_unit(repo, "decisions.md", Y)
    deletion = repo.commit("Delete Y", author=AGENT)
    repo.git("revert", "--no-edit", deletion)
    result = run_diff(repo.root, MEM, base, "HEAD", use_cache=False)
    assert [(c.ident, c.commits) for c in result.changes] == [(X, [edit])]
    code, payload = cli(repo.root, "check", "--autonomy", "confirm", "--reviewer", "alice", "--base", base)
    assert (code, payload["findings"]) == (0, [])
    code, payload = cli(repo.root, "restore", "--preview", X, "--base", base)
    assert (code, payload["findings"]) == (0, [])


def test_uncommitted_edits_are_attributed_by_text_too(story):
    """The work tree is compared with HEAD file by file: an entry appended after X in the
    work tree (Git's hunk names X) leaves X's change to the commit that made it."""
    repo, shas = story
    new = "MC-DEC-20261101-abcd0001"
    try:
        repo.write("decisions.md", repo.read("decisions.md") + "\n" + entry(new, "New", "New."))
        result = run_diff(repo.root, MEM, shas["base"], None, use_cache=False)
        assert {c.ident: c.commits for c in result.changes} == {
            X: [shas["edit-x"]], Y: [shas["delete-y"]], new: ["worktree"]}
    finally:
        repo.git("checkout", "--", MEM)


# ---- attribution against a model that compares whole revisions' unit texts ---------------

IDS = [f"MC-DEC-20261101-f000000{n}" for n in range(6)]


@pytest.fixture(scope="module")
def six(tmp_path_factory):
    """The example with six more decisions, committed (every example starts from here)."""
    repo = Repo(tmp_path_factory.mktemp("six") / "p")
    text = repo.read("decisions.md")
    units = "".join(entry(i, f"Decision {i[-1]}", f"Body {i[-1]}.") + "\n" for i in IDS)
    repo.write("decisions.md", text.replace("Entries are newest first.\n\n", "Entries are newest first.\n\n" + units))
    return repo, repo.commit("six decisions")


def model_touches(repo, sha):
    """The IDs whose unit digests (as the extractor cuts and digests units) differ between
    the commit's first parent and the commit, over both whole revisions."""
    from analyzer.history.git import Repo as GitRepo
    from analyzer.history.revisions import read_revisions, unit_facts

    revisions = read_revisions(GitRepo(str(repo.root)), [("a", f"{sha}~1", "a"), ("b", sha, "b")], MEM, False)
    sides = [{(row[2], row[3], row[4]) for row in unit_facts(r)["git_unit"]} for r in revisions]
    return {ident for ident, _m, _d in sides[0] ^ sides[1]}


def apply(repo, op, n, text):
    """One edit of decisions.md: reword, delete, insert after, add or drop blank lines,
    move to the front or the end, add a successor naming the unit in Supersedes."""
    body = repo.read("decisions.md")
    units = body.split("\n## ")
    head, rest = units[0], ["## " + u for u in units[1:]]
    i = n % len(rest)
    if op == "reword":
        lines = rest[i].split("\n")
        lines[-3 if len(lines) > 3 else -1] += f" {text}"
        rest[i] = "\n".join(lines)
    elif op == "delete" and len(rest) > 1:
        del rest[i]
    elif op == "insert":
        ident = f"MC-DEC-20261201-{abs(hash(text)) % 16**8:08x}"
        if ident not in body:
            rest.insert(i + 1, entry(ident, "Inserted", f"Inserted {text}."))
    elif op == "blank":
        rest[i] = rest[i].rstrip("\n") + "\n\n\n" if not rest[i].endswith("\n\n\n") else rest[i].rstrip("\n") + "\n"
    elif op == "move":
        rest.insert(0, rest.pop(i))
    elif op == "end":
        rest.append(rest.pop(i))
    elif op == "supersede":  # a successor naming an entry the commit leaves as it is
        ident = f"MC-DEC-20261202-{abs(hash(text)) % 16**8:08x}"
        named = rest[i].split()[1]
        if ident not in body and "Status: active" in rest[i]:
            rest.insert(0, entry(ident, "Successor", f"Successor {text}.", extra=(f"Supersedes: {named}",)))
    out = head + "".join("\n" + (u if u.endswith("\n") else u + "\n") for u in rest)
    repo.write("decisions.md", out.replace("\n\n\n\n", "\n\n\n"))


def replay(repo, start, commits):
    """Reset ``repo`` to ``start`` and make one commit per list of :func:`apply` edits; their ids."""
    repo.git("reset", "-q", "--hard", start)
    made = []
    for ops in commits:
        for op in ops:
            apply(repo, *op)
        made.append(repo.commit("step"))
    return made


KINDS = ["reword", "delete", "insert", "blank", "move", "end", "supersede"]
OPS = st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 9),
                         st.text("abc", min_size=1, max_size=3)), min_size=1, max_size=3)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(OPS, min_size=1, max_size=3))
def test_each_commit_touches_exactly_the_units_whose_text_it_changed(six, commits):
    from analyzer.history.commit_cache import commit_touches
    from analyzer.history.git import History, Repo as GitRepo

    repo, start = six
    made = replay(repo, start, commits)
    touched = commit_touches(History(GitRepo(str(repo.root)), MEM), made, use_cache=False)
    for sha in made:
        assert touched.get(sha, set()) == model_touches(repo, sha), (sha, commits)
