"""`analyze diff`: a unit whose text is unchanged but whose place among its file's unchanged
units changed is E/order (issue 12, class E: "only Evidence, order or lifecycle bookkeeping
changed"). Only the units off a longest common subsequence of the file's unit order are
reported (analyzer/history/unit_order.py): one moved unit is one change, units added, removed or
changed around the others move none of them, and a moved unit that also changed keeps its
change's class. Every comparison path answers the same: whole revisions, narrowed between
commits (with and without stored units) and against the work tree."""

from itertools import combinations, permutations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from histrepo import MEM, Repo, entry
from test_diff_classes import classes
from test_diff_narrow import same_answer, whole
from test_narrow_files import cached_answer, narrowed  # noqa: F401 (a fixture)

from analyzer.query.diff import run_diff
from analyzer.history.unit_order import off_subsequence

CENTS, CLIENT = "MC-DEC-20260910-1b2c3d4e", "MC-DEC-20260905-2c3d4e5f"  # decisions.md, in this order
MORE = [f"MC-DEC-20261101-eeee000{n}" for n in range(1, 6)]
NEW = "MC-DEC-20261102-eeee0009"
SUBJ_1, SUBJ_2 = "MC-SUBJ-20260901-0a0a0a01", "MC-SUBJ-20260901-0a0a0a02"  # the first two of subjects.md


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory, monkeypatch):
    """A cache of this module's own (the stored units make later diffs narrow within files)."""
    from analyzer.core import cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    cache._forget()
    yield
    cache._forget()


def split(text: str):
    """A file's text before its first unit heading, and each unit's text (no trailing blank lines)."""
    parts = text.split("\n## ")
    return parts[0] + "\n", ["## " + p.rstrip("\n") + "\n" for p in parts[1:]]


def join(head: str, units) -> str:
    """The inverse of :func:`split`: units one blank line apart."""
    return head.rstrip("\n") + "\n\n" + "\n".join(units)


def ident(unit: str) -> str:
    return unit.split()[1]


def arrange(repo: Repo, module: str, order) -> None:
    """Rewrite ``module`` with its units in ``order`` (a list of IDs; an ID it lacks is a
    text given in ``order`` as is)."""
    head, units = split(repo.read(module))
    by_id = {ident(u): u for u in units}
    repo.write(module, join(head, [by_id.get(x, x) for x in order]))


def ids_of(repo: Repo, module: str):
    return [ident(u) for u in split(repo.read(module))[1]]


# step -> the (class/subkind, ID) list `analyze diff sha~1 sha` must give
GOLDEN = {
    # base CENTS, CLIENT: CENTS, first in the base, keeps its place (the documented tie-break)
    "swap": [("E/order", CLIENT)],
    "grow": [("A/active", x) for x in MORE],
    "first-to-end": [("E/order", MORE[0])],
    "last-to-front": [("E/order", MORE[4])],
    "insert-and-delete": [("A/active", NEW), ("D/hard", MORE[2])],
    "reorder-and-insert": [("A/active", MORE[2]), ("E/order", MORE[1])],
    "reorder-and-body": [("C/inplace", MORE[3])],
    "reorder-both": [("C/inplace", MORE[3]), ("E/order", MORE[0])],
    "subjects-swap": [("E/order", SUBJ_2)],
}


def build(repo: Repo):
    """One commit per GOLDEN step on top of the example; the commit ids by step."""
    shas = {"init": repo.git("rev-parse", "HEAD").strip()}
    arrange(repo, "decisions.md", [CLIENT, CENTS])
    shas["swap"] = repo.commit("Swap the two decisions")
    texts = [entry(x, f"Decision {n}", f"Body {n}.") for n, x in enumerate(MORE)]
    arrange(repo, "decisions.md", [CLIENT, CENTS, *texts])
    shas["grow"] = repo.commit("Five more decisions")
    order = ids_of(repo, "decisions.md")  # CLIENT, CENTS, MORE[0..4]
    arrange(repo, "decisions.md", order[:2] + order[3:] + [order[2]])
    shas["first-to-end"] = repo.commit("Move MORE[0] to the end")
    order = ids_of(repo, "decisions.md")  # CLIENT, CENTS, M1 M2 M3 M4 M0
    arrange(repo, "decisions.md", [order[5]] + order[:5] + order[6:])
    shas["last-to-front"] = repo.commit("Move MORE[4] to the front")
    order = ids_of(repo, "decisions.md")  # M4 CLIENT CENTS M1 M2 M3 M0
    new = entry(NEW, "A new decision", "New.")
    arrange(repo, "decisions.md", [new] + [x for x in order if x != MORE[2]])
    shas["insert-and-delete"] = repo.commit("Insert one decision and drop another")
    order = ids_of(repo, "decisions.md")  # NEW M4 CLIENT CENTS M1 M3 M0
    back = entry(MORE[2], "Decision 2", "Body 2.")
    arrange(repo, "decisions.md", [x for x in order if x != MORE[1]] + [back, MORE[1]])
    shas["reorder-and-insert"] = repo.commit("Move MORE[1] to the end and add MORE[2] back before it")
    order = ids_of(repo, "decisions.md")  # NEW M4 CLIENT CENTS M3 M0 M2 M1
    arrange(repo, "decisions.md", [order[4]] + order[:4] + order[5:])
    repo.edit("decisions.md", "Body 3.", "Body three.")
    shas["reorder-and-body"] = repo.commit("Move MORE[3] to the front and reword it")
    order = ids_of(repo, "decisions.md")  # M3 NEW M4 CLIENT CENTS M0 M2 M1
    arrange(repo, "decisions.md", [order[5], *order[1:5], order[6], order[0], order[7]])
    repo.edit("decisions.md", "Body three.", "Body 3 again.")
    shas["reorder-both"] = repo.commit("Move MORE[0] up, MORE[3] down and reword MORE[3]")
    subjects = ids_of(repo, "subjects.md")
    assert subjects[:2] == [SUBJ_1, SUBJ_2]
    arrange(repo, "subjects.md", [subjects[1], subjects[0], *subjects[2:]])
    shas["subjects-swap"] = repo.commit("Swap two Subjects")
    return shas


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    repo = Repo(tmp_path_factory.mktemp("order") / "p")
    return repo, build(repo)


@pytest.mark.parametrize("step", sorted(GOLDEN))
def test_golden_classes_and_every_path_agrees(history, step, narrowed):
    repo, shas = history
    sha = shas[step]
    result = same_answer(repo.root, f"{sha}~1", sha)  # narrowed without stored units = whole
    assert classes(result) == sorted(GOLDEN[step])
    assert classes(cached_answer(repo.root, f"{sha}~1", sha)) == sorted(GOLDEN[step])  # within files
    assert narrowed["narrowed"] >= 1, narrowed
    for change in result.changes:
        assert change.commits == [sha]
    moved = next((c for c in result.changes if c.cls == "E"), None)
    if moved is not None:  # both places given, in the same file
        assert moved.before.path == moved.after.path and moved.before.line != moved.after.line


def test_against_the_work_tree(history):
    repo, shas = history
    repo.git("restore", f"--source={shas['reorder-both']}", "--worktree", "--", MEM)
    try:
        result = cached_answer(repo.root, f"{shas['reorder-both']}~1", "")
        assert classes(result) == sorted(GOLDEN["reorder-both"])
    finally:
        repo.git("restore", "--source=HEAD", "--worktree", "--", MEM)


def test_a_whole_range_reports_each_unit_once(history):
    repo, shas = history
    result = same_answer(repo.root, shas["grow"], shas["reorder-and-insert"])
    # base CLIENT CENTS M0 M1 M2 M3 M4, head NEW M4 CLIENT CENTS M3 M0 M2 M1 (M2 went and came
    # back with the same text): of the longest common subsequences (4 units), CLIENT CENTS M0
    # M1 holds the units earliest in the base, so M2, M3 and M4 are the ones that moved
    assert classes(result) == sorted([("A/active", NEW), ("E/order", MORE[2]), ("E/order", MORE[3]),
                                      ("E/order", MORE[4])])


def test_an_unchanged_file_order_is_unchanged(history):
    repo, shas = history
    assert run_diff(repo.root, MEM, "HEAD", use_cache=False).status == "UNCHANGED"


# ---- the subsequence itself -----------------------------------------------------------------

def lcs(a, b) -> int:
    """The length of a longest common subsequence, by the textbook table."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


def earliest_kept(a, b):
    """Brute force: of the longest common subsequences of ``a`` and ``b`` (items once each),
    as sets of positions in ``a``, the lexicographically smallest."""
    common = [i for i, x in enumerate(a) if x in b]
    for size in range(len(common), -1, -1):
        for kept in combinations(common, size):  # in lexicographic order
            if [a[i] for i in kept] == [x for x in b if x in {a[i] for i in kept}]:
                return set(kept)
    return set()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 9), unique=True, max_size=8), st.randoms(use_true_random=False),
       st.integers(0, 3), st.integers(0, 3))
def test_off_the_subsequence_is_minimal_and_breaks_ties_towards_the_base(items, rnd, dropped, added):
    before = [str(x) for x in items]
    after = before[:]
    rnd.shuffle(after)
    after = after[dropped:] + [f"new{n}" for n in range(added)]  # removed and added units
    rnd.shuffle(after)
    off = off_subsequence(before, after)
    common = [x for x in before if x in after]
    assert len(off) == len(common) - lcs(before, after)
    assert set(range(len(before))) - set(off) - {i for i, x in enumerate(before) if x not in after} == \
        earliest_kept(before, after)


def test_one_unit_moved_in_a_long_file_is_one():
    units = [f"u{n}" for n in range(600)]
    assert off_subsequence(units, units[1:] + units[:1]) == [0]
    assert off_subsequence(units, units[-1:] + units[:-1]) == [599]
    assert off_subsequence(units, units[:10] + units[11:300] + ["x"] + units[300:]) == []
    assert off_subsequence(["a", "b"], ["b", "a"]) == [1]


def test_copies_are_paired_by_occurrence():
    # a-b-a against a-a-b: the first a and b keep their places (earliest in the base)
    assert off_subsequence(["a", "b", "a"], ["a", "a", "b"]) == [2]
    assert off_subsequence(["a", "a"], ["a"]) == []


@pytest.fixture(scope="module")
def six(tmp_path_factory):
    """The example with six entries in decisions.md, committed."""
    repo = Repo(tmp_path_factory.mktemp("six") / "p")
    arrange(repo, "decisions.md", [CENTS, CLIENT, *[entry(x, f"Decision {x}", f"Body of {x}.") for x in MORE[:4]]])
    repo.commit("six decisions")
    return repo, ids_of(repo, "decisions.md")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.permutations(list(range(6))))
def test_a_random_permutation_of_a_files_entries(six, order):
    repo, ids = six
    arranged = [ids[n] for n in order]
    arrange(repo, "decisions.md", arranged)
    try:
        result = run_diff(repo.root, MEM, "HEAD", use_cache=False)
        full = whole(repo.root, "HEAD", "")
    finally:
        repo.git("restore", "--source=HEAD", "--worktree", "--", MEM)
    assert (result.changes, result.status) == (full.changes, full.status)
    assert all((c.cls, c.subkind) == ("E", "order") for c in result.changes)
    moved = {c.ident for c in result.changes}
    assert len(moved) == len(ids) - lcs(ids, arranged)
    # the units not reported keep their order: they are a common subsequence
    assert [x for x in ids if x not in moved] == [x for x in arranged if x not in moved]
    assert (result.status == "UNCHANGED") == (arranged == ids)


def test_every_permutation_of_three_is_minimal():
    for order in permutations("abc"):
        assert len(off_subsequence(list("abc"), list(order))) == 3 - lcs("abc", order)


def test_readiness_sees_every_reorder_as_diff_does(tmp_path):
    """Readiness compares each commit on the units Git's changed lines reach
    (analyzer/history/window.py), yet finds a moved unit over the whole file as `analyze diff` does
    (analyzer/history/window_order.py): the same E/order units, including a unit moved to the far
    end of its file, away from the units it passed."""
    from analyzer.history.git import Repo as GitRepo
    from analyzer.history.window import window_facts
    from analyzer.query.program import readiness_program

    repo = Repo(tmp_path / "p")
    shas = build(repo)
    program = readiness_program(False)
    db = window_facts(GitRepo(str(repo.root)), MEM, "HEAD", 0, 2**40, False, program).facts.evaluate(program)
    seen = {}
    for pair, _kind, ident, cls, sub in db.relation("change"):
        seen.setdefault(pair, []).append((f"{cls}/{sub}", ident))
    for step, sha in shas.items():
        if step == "init":
            continue
        assert sorted(seen.get(sha, [])) == sorted((c, i.casefold()) for c, i in GOLDEN[step]), step
