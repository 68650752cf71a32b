"""The entries of a readiness window's snippet revisions are judged by rules/entries/ (one
evaluation for all of them, analyzer/project/extraction.py ``judged_together``): a commit
giving an entry a second Status field (a problem only those rules find) is a blind spot of
the window, with or without the caches, and each revision keeps its own verdicts."""

import pytest

from histrepo import DAY, MEM, entry
from story import AGENT, AS_OF
from test_readiness import ready_story
from classes import CENTS

from analyzer.history.git import Repo
from analyzer.history.window import window_facts
from analyzer.query.program import readiness_program
from analyzer.query.readiness import run_readiness

PLAIN = "MC-DEC-20261101-0000abcd"  # names no other entry (a Supersedes target is read again)
CENTS_STATUS = f"## {CENTS} \u2014 Totals are computed in integer cents\n\nStatus: active\n"
PLAIN_STATUS = f"## {PLAIN} \u2014 Judged\n\nStatus: active\n"


@pytest.fixture(scope="module")
def doubled(tmp_path_factory):
    """The ready history, a new decision, then agent commits that give it and the cents
    decision (which supersedes another) a second Status field, and one that mends both."""
    story, _ = ready_story(tmp_path_factory.mktemp("doubled") / "p")
    repo = story.repo
    repo.edit("decisions.md", "Entries are newest first.\n",
              "Entries are newest first.\n\n" + entry(PLAIN, "Judged", "Body.", facet="fjudged") + "\n")
    repo.commit("add a decision", at=AS_OF - 3 * DAY, trailers=AGENT)
    repo.edit("decisions.md", PLAIN_STATUS, PLAIN_STATUS + "Status: active\n")
    plain = repo.commit("a second Status", at=AS_OF - int(1.6 * DAY), trailers=AGENT)
    repo.edit("decisions.md", CENTS_STATUS, CENTS_STATUS + "Status: active\n")
    cents = repo.commit("a second Status again", at=AS_OF - int(1.5 * DAY), trailers=AGENT)
    repo.edit("decisions.md", PLAIN_STATUS + "Status: active\n", PLAIN_STATUS)
    repo.edit("decisions.md", CENTS_STATUS + "Status: active\n", CENTS_STATUS)
    mended = repo.commit("one Status again", at=AS_OF - int(1.4 * DAY), trailers=AGENT)
    return repo, plain, cents, mended


@pytest.mark.parametrize("use_cache", [False, True])
def test_a_judged_problem_in_a_window_commit_is_a_blind_spot(doubled, use_cache, tmp_path, monkeypatch):
    repo, plain, _cents, _mended = doubled
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for _ in range(2 if use_cache else 1):  # a cold reading, then one from the kept extractions
        result = run_readiness(repo.root, MEM, "HEAD", use_cache=use_cache)
        spot = result.failure
        assert (result.exit_code, spot.code, spot.span.path) == (2, "MA-HISTORY-BLINDSPOT", f"{MEM}/decisions.md")
        assert f"{PLAIN} has duplicate Status fields" in spot.message and f"(at commit {plain[:12]})" in spot.message


@pytest.mark.parametrize("use_cache", [False, True])
def test_each_snippet_revision_keeps_its_own_verdicts(doubled, use_cache, tmp_path, monkeypatch):
    """Only the snippet revisions holding a doubled field have its issue: the later side of
    the commit that doubled it and the earlier side of the one that mended it (the cents
    decision supersedes an entry its snippets lack, so its revisions are read again with
    that entry)."""
    repo, plain, cents, mended = doubled
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    window = window_facts(Repo(str(repo.root)), MEM, "HEAD", AS_OF - 30 * DAY, AS_OF, use_cache,
                          readiness_program(use_cache))
    found = {}
    for rev, _module, _line, ident, message in window.facts["git_parse_issue"]:
        if "has duplicate Status fields" in message:
            found.setdefault(ident, set()).add(rev)
    assert found == {PLAIN.casefold(): {plain, "~" + mended}, CENTS.casefold(): {cents, "~" + mended}}


def _two_loads(bundle, together: bool):
    """Two loads of one bundle sharing a file's text (as one commit's later side is the next
    commit's earlier side), inside judged_together() or not."""
    from contextlib import nullcontext

    from analyzer.project import extraction
    from analyzer.project.loader import load_texts

    text = "# Decisions\n\n" + entry(PLAIN, "Judged", "Body.", facet="fjudged") + "\n"
    with extraction.judged_together() if together else nullcontext():
        for other in ("Body one.", "Body two."):
            texts = {f"{MEM}/decisions.md": text,
                     f"{MEM}/constraints.md": "# Constraints\n\n" + entry(CENTS, "Cents", other, facet="fc") + "\n"}
            load_texts("/nonexistent", MEM, texts, use_cache=True, bundled=bundle)


@pytest.mark.parametrize("together", [False, True])
def test_a_warm_bundle_is_not_written_again(together, tmp_path, monkeypatch):
    """A bundle whose loads all found their files stored is unchanged, also when the loads run
    inside judged_together() (whose loads keep their extractions only when the block ends:
    a later load once counted the earlier one's files as not held, and each warm reading
    wrote its chunk again)."""
    from analyzer.project import facts_cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cold = facts_cache.Bundle("test-bundle")
    _two_loads(cold, together)
    cold.store()
    warm = facts_cache.Bundle("test-bundle")
    _two_loads(warm, together)
    assert warm.changed is False


def test_load_project_refuses_to_run_inside_judged_together(tmp_path):
    """load_project probes evidence paths and the overlay from merged facts: inside the block
    they are not merged yet, so it refuses instead of answering with facts missing."""
    from analyzer.project import extraction
    from analyzer.project.loader import load_project

    with pytest.raises(RuntimeError, match="judged_together"):
        with extraction.judged_together():
            load_project(tmp_path)
