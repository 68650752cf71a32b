"""A commit of the readiness window that cannot be read (a blind spot) makes readiness exit 2
with the file, line and MA-HISTORY-BLINDSPOT, never a reading over history it cannot see;
`check --autonomy full` is then judged as confirm and says why (MA-AUTONOMY-003)."""

import json

import pytest

import inprocess
from classes import CENTS
from histrepo import DAY, MEM
from story import AGENT, AS_OF
from test_readiness import ready_story

from analyzer.core.span import Span
from analyzer.query.autonomy import run_autonomy, unit_of
from analyzer.query.readiness import run_readiness


@pytest.fixture(scope="module")
def blind(tmp_path_factory):
    """The ready history, then an agent commit that breaks a heading, a commit that mends
    it, and a human commit adding Evidence (the change `full` is asked to judge)."""
    story, _ = ready_story(tmp_path_factory.mktemp("blind") / "p")
    repo = story.repo
    repo.edit("decisions.md", f"## {CENTS} \u2014 Totals", f"## {CENTS} -- Totals")
    broken = repo.commit("break a heading", at=AS_OF - int(1.5 * DAY), trailers=AGENT)
    repo.edit("decisions.md", f"## {CENTS} -- Totals", f"## {CENTS} \u2014 Totals")
    repo.commit("mend it", at=AS_OF - int(1.4 * DAY), trailers=AGENT)
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#77\n")
    repo.commit("evidence", at=AS_OF - DAY)
    return repo, broken


def test_blind_commit_makes_readiness_unreadable(blind):
    repo, broken = blind
    result = run_readiness(repo.root, MEM, "HEAD", use_cache=False)
    assert (result.exit_code, result.status, result.readings) == (2, "", [])
    text = repo.git("show", f"{broken}:{MEM}/decisions.md").splitlines()
    line = text.index(f"## {CENTS} -- Totals are computed in integer cents") + 1  # the file's line, not the snippet's
    spot = result.failure
    assert (spot.code, spot.span) == ("MA-HISTORY-BLINDSPOT", Span(f"{MEM}/decisions.md", line, 1))
    assert spot.message.endswith(f"(at commit {broken[:12]})") and "malformed Entry heading" in spot.message
    assert "(and 1 more)" in spot.message  # the mending commit's parent is unreadable too
    run = inprocess.run(["readiness", "--format", "json", "--no-cache",
                         "--project-root", str(repo.root)], capture_output=True, text=True)
    doc = json.loads(run.stdout)
    assert run.returncode == 2 and doc["status"] == "INVALID"
    assert doc["diagnostics"][0]["code"] == "MA-HISTORY-BLINDSPOT"
    # as of a time before the broken commit the window reads again
    before = run_readiness(repo.root, MEM, "HEAD", f"@{AS_OF - 2 * DAY}", use_cache=False)
    assert before.failure is None and before.exit_code in (0, 1) and len(before.readings) == 4


def test_full_autonomy_over_unreadable_history_is_judged_as_confirm(blind):
    repo, broken = blind
    result = run_autonomy(repo.root, MEM, "full", "HEAD~1", "HEAD", [], [], use_cache=False)
    assert result.failure is None and result.effective == "confirm"
    demoted = [f for f in result.findings if f.code == "MA-AUTONOMY-003"]
    # one per unreadable commit (the broken one and the one mending it); the readings pass
    assert [unit_of(f)[1] for f in demoted] == ["history", "history"] and any(broken in f.message for f in demoted)
    assert (result.status, result.exit_code) == ("REVIEW", 0)
