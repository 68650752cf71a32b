"""Every memory file's changes (issue 24, item 2): a deleted module file, a rewritten
free-form (legacy, §5.11) unit and a file the manifest does not declare are changes of
`analyze diff`, named `<file>#unit-<n>` (n: the unit's place among all units of its file)
and classified like any unit: removed D/hard, added A/legacy, rewritten C/inplace (a
reversal of meaning cannot be told from a rewording: docs/decisions.md). Their commits are
those that changed their own text (followed through the texts each commit changed; every
commit of the file only where the texts tell none), so `check --autonomy confirm` asks for
their confirmation."""

import json

import pytest

import inprocess
from histrepo import MEM, Repo

from analyzer.history.freeform import aligned, freeform_units
from analyzer.query.diff import run_diff

AGENT = "Agent <agent@example.org>"


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    repo = Repo(tmp_path_factory.mktemp("free") / "p")
    shas = {"base": repo.git("rev-parse", "HEAD").strip()}
    repo.write("areas/search.md", None)
    shas["delete-module"] = repo.commit("Delete the search area", author=AGENT)
    repo.edit("rules/reviews.md", "needs a second reviewer", "needs no second reviewer")
    shas["rewrite"] = repo.commit("Reverse a review rule", author=AGENT)
    repo.write("areas/stray.md", "# Stray\n\n- Never deploy on Fridays.\n")
    shas["stray"] = repo.commit("A file no route loads", author=AGENT)
    repo.edit("rules/release.md", "- Announce in #shop-releases with the changelog section.\n", "")
    repo.edit("decisions.md", "Entries are newest first.\n", "Entries are newest first.\n\n- Ask before changing totals.\n")
    shas["remove-and-add"] = repo.commit("Drop a release rule, add a bullet among entries", author=AGENT)
    return repo, shas


# step -> (class/subkind, name) of `analyze diff sha~1 sha`
GOLDEN = {
    "delete-module": [("D/hard", "areas/search.md#unit-1")],
    "rewrite": [("C/inplace", "rules/reviews.md#unit-1")],
    "stray": [("A/legacy", "areas/stray.md#unit-1")],
    "remove-and-add": [("A/legacy", "decisions.md#unit-2"), ("D/hard", "rules/release.md#unit-2")],
}


def classes(result):
    return sorted((f"{c.cls}/{c.subkind}", c.ident) for c in result.changes)


@pytest.mark.parametrize("step", sorted(GOLDEN))
@pytest.mark.parametrize("use_cache", [False, True])
def test_each_free_form_change_is_classified_and_attributed(history, step, use_cache):
    repo, shas = history
    sha = shas[step]
    result = run_diff(repo.root, MEM, f"{sha}~1", sha, use_cache=use_cache)
    assert (result.status, classes(result)) == ("CHANGES", GOLDEN[step])
    assert all(c.kind == "legacy" and c.commits == [sha] for c in result.changes)


def test_the_whole_range_and_the_work_tree(history):
    repo, shas = history
    expected = sorted(c for step in GOLDEN for c in GOLDEN[step])
    for head in ("HEAD", None):
        result = run_diff(repo.root, MEM, shas["base"], head, use_cache=False)
        assert classes(result) == expected
        commits = {c.ident: c.commits for c in result.changes}
        assert commits["areas/search.md#unit-1"] == [shas["delete-module"]]
        assert commits["rules/reviews.md#unit-1"] == [shas["rewrite"]]


def test_the_autonomy_check_asks_for_confirmation_of_free_form_deletes_and_rewrites(history):
    repo, shas = history
    out = inprocess.run(["check", "--autonomy", "confirm", "--base", shas["base"],
                         "--no-cache", "--format", "json"], cwd=repo.root, capture_output=True, text=True)
    assert out.returncode == 1, out.stderr
    flagged = sorted(f["id"] for f in json.loads(out.stdout)["findings"])
    assert flagged == ["areas/search.md#unit-1", "rules/release.md#unit-2", "rules/reviews.md#unit-1"]


# free-form unit -> (its text at the base, or None: the patch removes it)
RESTORED = {
    "areas/search.md#unit-1": "- The indexer runs at 02:00 UTC; do not schedule other heavy jobs then.",
    "rules/reviews.md#unit-1": "- Every change to `api/payments/` needs a second reviewer.",
    "areas/stray.md#unit-1": None,
}


@pytest.mark.parametrize("ident", sorted(RESTORED))
def test_a_free_form_change_has_a_restore_preview(history, ident):
    """`restore --preview <file>#unit-<n>` of a free-form change: the unit as the base had it
    (paired as diff pairs it) and a patch `git apply --check` accepts in the work tree (it
    was an internal error: the restore knew only units with an ID)."""
    from analyzer.query.restore import run_restore

    repo, shas = history
    result = run_restore(repo.root, MEM, ident, shas["base"], use_cache=False)
    assert (result.status, result.exit_code, result.kind) == ("READY", 0, "legacy"), result.failure
    assert result.base_text == RESTORED[ident]
    assert ("-- Never deploy on Fridays." in result.patch) == (RESTORED[ident] is None)
    patch = repo.root.parent / f"restore-{ident.replace('/', '_')}.patch"
    patch.write_text(result.patch, encoding="utf-8")
    repo.git("apply", "--check", str(patch))  # raises when Git refuses it


@pytest.mark.parametrize("ident, status", [("areas/infra.md#unit-1", ("UNCHANGED", 0)),
                                           ("areas/infra.md#unit-9", ("UNKNOWN", 2))])
@pytest.mark.parametrize("head", [None, "HEAD"])
def test_an_unchanged_free_form_unit_is_unchanged_not_unknown(history, ident, status, head):
    """A free-form unit both revisions hold unchanged has nothing to restore (exit 0); it was
    UNKNOWN, "neither revision holds this ID", exit 2. A name no revision holds stays UNKNOWN."""
    from analyzer.query.restore import run_restore

    repo, shas = history
    result = run_restore(repo.root, MEM, ident, shas["base"], head, use_cache=False)
    assert (result.status, result.exit_code) == status


def test_a_restore_that_empties_a_file_leaves_it_empty():
    """Removing the only unit of a file leaves an empty file, not one blank line."""
    from analyzer.query.restore import make_patch

    class Head:
        texts = {"stray.md": "- Never deploy on Fridays.\n"}

        def lines(self, module):
            return self.texts[module].splitlines()

    after = ("stray.md", (0, 0), "- Never deploy on Fridays.")
    assert make_patch(Head(), None, after, "docs/memory").splitlines()[2:] == [
        "@@ -1 +0,0 @@", "-- Never deploy on Fridays."]


def test_free_form_units_are_aligned_by_text():
    before = freeform_units("# T\n\n- a\n- b\n- c\n")
    assert [u[:2] for u in before] == [(1, "- a"), (2, "- b"), (3, "- c")]
    after = freeform_units("# T\n\n- b\n- c\n- d\n")
    # a removed at the front and d added at the end: no unit is taken as rewritten
    assert [(a and a[1], b and b[1]) for a, b in aligned(before, after)] == [("- a", None), (None, "- d")]
    rewritten = freeform_units("# T\n\n- a\n- B!\n- c\n")
    assert [(a[1], b[1]) for a, b in aligned(before, rewritten)] == [("- b", "- B!")]
    # units with an ID are not free-form; a section heading without one is
    entry = freeform_units("# T\n\nIntro.\n\n## MC-DEC-20260101-0000000a \u2014 X\n\nStatus: active\n\n## Notes\n")
    assert [u[:2] for u in entry] == [(1, "Intro."), (3, "## Notes")]


def test_the_issue_story(tmp_path):
    """Issue 24's acceptance history: edit X (confirmed), an agent deletes Y (the entry after
    X), a person reverts that, then a module file is deleted and a free-form rule reversed
    (both confirmed) and an agent adds a file the manifest does not declare. Only Y is
    flagged while its deletion stands; a restore of X warns of nothing; after the revert
    nothing is flagged; the module deletion, the rewrite and the stray file are reported
    with the commits that made them."""
    from test_attribution import X, Y, cli, delete_unit

    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    alice = ("Memory-Confirmed-By: alice",)
    repo.edit("decisions.md", "floats never hold money.", "floats never hold an amount of money.")
    edit = repo.commit("Edit X", trailers=alice)
    delete_unit(repo, "decisions.md", Y)
    deletion = repo.commit("Delete Y", author=AGENT)
    judge = ("check", "--autonomy", "confirm", "--reviewer", "alice", "--base", base)
    code, payload = cli(repo.root, *judge)
    assert (code, [f["id"] for f in payload["findings"]]) == (1, [Y])
    assert cli(repo.root, "restore", "--preview", X, "--base", base)[1]["findings"] == []
    repo.git("revert", "--no-edit", deletion)
    code, payload = cli(repo.root, *judge)
    assert (code, payload["findings"]) == (0, [])
    repo.write("areas/search.md", None)
    gone = repo.commit("Delete the search area", trailers=alice)
    repo.edit("rules/reviews.md", "needs a second reviewer", "needs no second reviewer")
    reversed_rule = repo.commit("Reverse a review rule", trailers=alice)
    repo.write("areas/stray.md", "# Stray\n\n- Never deploy on Fridays.\n")
    stray = repo.commit("A file no route loads", author=AGENT)
    result = run_diff(repo.root, MEM, base, "HEAD", use_cache=False)
    assert sorted((f"{c.cls}/{c.subkind}", c.ident, tuple(c.commits)) for c in result.changes) == [
        ("A/legacy", "areas/stray.md#unit-1", (stray,)),
        ("C/inplace", X, (edit,)),
        ("C/inplace", "rules/reviews.md#unit-1", (reversed_rule,)),
        ("D/hard", "areas/search.md#unit-1", (gone,)),
    ]
    code, payload = cli(repo.root, *judge)
    assert (code, payload["findings"]) == (0, [])


@pytest.fixture(scope="module")
def two_rewrites(tmp_path_factory):
    """An agent rewrites one free-form rule of rules/release.md (commit A, no trailer); a
    reviewer's confirmed commit B then rewrites another rule of the same file."""
    repo = Repo(tmp_path_factory.mktemp("two") / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.edit("rules/release.md", "ship on Tuesday morning", "ship whenever it suits")
    a = repo.commit("Loosen a release rule", author=AGENT)
    repo.edit("rules/release.md", "Announce in #shop-releases", "Announce in #releases")
    b = repo.commit("Rename the channel", trailers=("Memory-Confirmed-By: alice",))
    return repo, base, a, b


def test_each_free_form_unit_lists_only_the_commit_that_changed_its_text(two_rewrites):
    """A commit touches a free-form unit only when the unit's text changes in it (issue 24
    item 1): both units were attributed both commits (every commit of their file)."""
    repo, base, a, b = two_rewrites
    for head in ("HEAD", None):
        for use_cache in (False, True):
            result = run_diff(repo.root, MEM, base, head, use_cache=use_cache)
            assert {c.ident: c.commits for c in result.changes} == \
                {"rules/release.md#unit-1": [a], "rules/release.md#unit-2": [b]}


def test_restoring_one_free_form_unit_is_not_refused_for_a_later_commit_to_another(two_rewrites):
    """`restore --preview` of unit 1 at A's parent: B changed only unit 2, so there is no later
    edit to lose (it was refused, MA-ROLLBACK-002 naming B, exit 1)."""
    from analyzer.query.restore import run_restore

    repo, base, a, b = two_rewrites
    result = run_restore(repo.root, MEM, "rules/release.md#unit-1", base, use_cache=False)
    assert (result.status, result.exit_code) == ("READY", 0), (result.failure, result.findings)
    assert [f.code for f in result.findings] == []


def test_a_confirmed_commit_does_not_vouch_for_an_earlier_unconfirmed_one_in_the_same_file(two_rewrites):
    """The reviewer's trailer on B confirms unit 2 only; A's unit 1 is flagged (the autonomy
    check said CLEAR once, when B's trailer confirmed every unit of the file, and then flagged
    both units while every commit of the file had to be confirmed)."""
    from test_attribution import cli

    repo, base, a, b = two_rewrites
    judge = ("check", "--autonomy", "confirm", "--reviewer", "alice", "--base", base)
    code, payload = cli(repo.root, *judge)
    assert code == 1 and [f["id"] for f in payload["findings"]] == ["rules/release.md#unit-1"]
    code, payload = cli(repo.root, *judge[:-2], "--base", a)  # the confirmed commit alone
    assert (code, payload["findings"]) == (0, [])


def test_a_reviewer_who_rewrites_an_agents_free_form_change_confirms_it(tmp_path):
    """Per-unit commits, as for a unit with an ID: the commit that introduced the unit's final
    state confirms it. An agent rewrites a rule and a reviewer's confirmed commit rewrites the
    same rule again: CLEAR (while every commit of the file had to be confirmed, it was
    flagged for the agent's commit)."""
    from test_attribution import cli

    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.edit("rules/release.md", "ship on Tuesday morning", "ship whenever it suits")
    repo.commit("Loosen a release rule", author=AGENT)
    repo.edit("rules/release.md", "ship whenever it suits", "ship on Wednesday morning")
    repo.commit("Settle the release day", trailers=("Memory-Confirmed-By: alice",))
    code, payload = cli(repo.root, "check", "--autonomy", "confirm", "--reviewer", "alice", "--base", base)
    assert (code, payload["findings"]) == (0, [])


def test_the_work_tree_touches_only_the_free_form_unit_it_changes(tmp_path):
    """An uncommitted rewrite of bullet 2 is attributed to the work tree on bullet 2 alone."""
    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    repo.edit("rules/release.md", "ship on Tuesday morning", "ship whenever it suits")
    a = repo.commit("Loosen a release rule", author=AGENT)
    repo.edit("rules/release.md", "Announce in #shop-releases", "Announce in #releases")
    for use_cache in (False, True):
        result = run_diff(repo.root, MEM, base, None, use_cache=use_cache)
        assert {c.ident: c.commits for c in result.changes} == \
            {"rules/release.md#unit-1": [a], "rules/release.md#unit-2": ["worktree"]}


def test_without_texts_every_commit_of_the_file_must_be_confirmed(two_rewrites, monkeypatch):
    """Where the texts tell no commit of a free-form unit, its file's commits stand, and then
    each must be confirmed (fail closed): the reviewer's later commit to unit 2 does not vouch
    for the agent's commit A, which the finding names, for both units."""
    import analyzer.query.diff as diff
    from test_attribution import cli

    repo, base, a, b = two_rewrites
    monkeypatch.setattr(diff, "freeform_touches", lambda *args: [])  # the name diff_facts calls
    code, payload = cli(repo.root, "check", "--autonomy", "confirm", "--reviewer", "alice", "--base", base)
    assert code == 1 and [f["id"] for f in payload["findings"]] == ["rules/release.md#unit-1", "rules/release.md#unit-2"]
    assert all(f"commit {a[:12]} changed free-form units of its file without a Memory-Confirmed-By trailer"
               in f["message"] for f in payload["findings"])


def agent_writes_a_copy_reviewer_drops_it(tmp_path, trailers):
    """Rules [X, V, Y] at the base; the agent rewrites X into Y's text (commit A, no trailer);
    a commit with ``trailers`` then removes the last rule, the copy. ``(repo, base, A)``."""
    repo = Repo(tmp_path / "p")
    copy = "- Freeze merges during the release window.\n"
    repo.edit("rules/release.md", "changelog section.\n", "changelog section.\n" + copy)
    base = repo.commit("A third release rule")
    repo.edit("rules/release.md", "- Cut the release branch on Monday, ship on Tuesday morning.\n", copy)
    a = repo.commit("Rewrite the first rule", author=AGENT)
    text = repo.path("rules/release.md").read_text(encoding="utf-8")
    repo.write("rules/release.md", text[:text.rindex(copy)] + text[text.rindex(copy) + len(copy):])
    repo.commit("Drop the duplicate rule", trailers=trailers)
    return repo, base, a


def test_a_confirmed_commit_to_a_copy_of_a_text_does_not_vouch_for_the_agent_that_wrote_it(tmp_path):
    """Texts are a free-form unit's only identity, so a later commit that removes a copy of the
    same text elsewhere in its file joins the unit's trail of texts (the last commit on it was
    taken as the one that made its final state). The agent rewrites rule 1 into the text of
    rule 3 (commit A, no trailer); a reviewer's confirmed commit B removes rule 3, the copy:
    A must still be confirmed (the check said CLEAR, exit 0)."""
    from test_attribution import cli

    repo, base, a = agent_writes_a_copy_reviewer_drops_it(tmp_path, ("Memory-Confirmed-By: alice",))
    code, payload = cli(repo.root, "check", "--autonomy", "confirm", "--reviewer", "alice", "--base", base)
    assert code == 1 and payload["findings"]
    assert all(a[:12] in f["message"] for f in payload["findings"])


def test_a_confirmed_commit_that_passes_through_an_old_text_does_not_vouch_for_the_agent(tmp_path):
    """No copy at any one time: the agent rewrites rule 1 (commit A); a reviewer's confirmed
    commit B rewrites rule 2 into rule 1's old text and C rewrites that again. B and C join
    rule 1's trail of texts through its old text; A, which made its final text, is flagged
    (the check said CLEAR, exit 0)."""
    from test_attribution import cli

    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    old = "- Cut the release branch on Monday, ship on Tuesday morning.\n"
    repo.edit("rules/release.md", old, "- Cut the release branch on Monday, ship when it is green.\n")
    a = repo.commit("Loosen the first rule", author=AGENT)
    repo.edit("rules/release.md", "- Announce in #shop-releases with the changelog section.\n", old)
    repo.commit("Reuse the old wording", trailers=("Memory-Confirmed-By: alice",))
    repo.edit("rules/release.md", old, "- Announce in #releases.\n")
    repo.commit("Rename the channel", trailers=("Memory-Confirmed-By: alice",))
    code, payload = cli(repo.root, "check", "--autonomy", "confirm", "--reviewer", "alice", "--base", base)
    assert code == 1 and payload["findings"]
    assert any(a[:12] in f["message"] or f["id"] == "rules/release.md#unit-1" for f in payload["findings"])


def test_an_unlisted_name_beside_a_reviewer_on_the_last_commit_is_not_named_as_the_only_one(tmp_path):
    """The last commit on the unit's trail carries a reviewer's trailer and another name's: the
    finding names the agent's commit only, not "Memory-Confirmed-By: bob, who is not a
    configured reviewer" (false: alice on the same commit is one)."""
    from test_attribution import cli

    repo, base, a = agent_writes_a_copy_reviewer_drops_it(tmp_path, ("Memory-Confirmed-By: alice",
                                                                     "Memory-Confirmed-By: bob"))
    code, payload = cli(repo.root, "check", "--autonomy", "confirm", "--reviewer", "alice", "--base", base)
    assert code == 1 and payload["findings"]
    assert all(a[:12] in f["message"] and "bob" not in f["message"] for f in payload["findings"])
