"""`analyze readiness`: R1-R4 over fixture histories with exact commit times; the window
boundaries, exactly 90% and 20%, rates 0/0/0, a sub-window of 4 samples; read-only."""

import json
import subprocess
import sys

import pytest

from histrepo import DAY, MEM, tree_state
from story import AS_OF, Story

from analyzer.query.readiness import parse_time, run_readiness


def readings(result):
    assert result.failure is None, result.failure
    return {r.name: r.state for r in result.readings}


def read(story, as_of=AS_OF):
    return run_readiness(story.repo.root, MEM, "HEAD", f"@{as_of}", use_cache=False)


def ready_story(root, latest_bad=False):
    """A history that passes every reading (R4: 1/5, 1/5, 0/6), or whose latest sub-window
    has one bad commit out of five (exactly 20%) when ``latest_bad``."""
    s = Story(root)
    d = s.add_decisions(3, 25 * DAY)
    c2 = s.add_candidate(24 * DAY)
    s.revert(s.repo.git("rev-parse", "HEAD").strip(), 23.8 * DAY)
    s.rewrite(d[0], 23.5 * DAY)
    s.touch(22 * DAY)
    s.touch(21 * DAY)
    s.add_decisions(2, 19 * DAY)
    s.merge(d[1], d[2], 18 * DAY)
    c8 = s.add_candidate(17 * DAY)
    s.remove("inbox.md", c8, 16 * DAY, agent=False)
    s.touch(15 * DAY)
    s.rewrite(d[0], 14 * DAY)
    [x] = s.add_decisions(1, 9 * DAY)
    s.remove("decisions.md", x, 8 * DAY)
    c13 = s.add_candidate(7 * DAY)
    if latest_bad:
        s.remove("inbox.md", c13, 6 * DAY, agent=False)
    else:
        s.touch(5 * DAY)
    c15 = s.add_candidate(4 * DAY)
    s.remove("inbox.md", c15, 2 * DAY)
    return s, c2


@pytest.fixture(scope="module")
def ready(tmp_path_factory):
    return ready_story(tmp_path_factory.mktemp("ready") / "p")[0]


def test_ready_history_passes_every_reading(ready):
    result = read(ready)
    assert readings(result) == {"R1": "pass", "R2": "pass", "R3": "pass", "R4": "pass"}
    assert (result.status, result.exit_code, result.missing()) == ("READY", 0, [])
    r4 = next(r for r in result.readings if r.name == "R4")
    assert r4.details == ["days 30-20: 1/5 reverted or rejected", "days 20-10: 1/5 reverted or rejected",
                          "days 10-0: 0/6 reverted or rejected"]


def test_time_is_the_head_commit_time_not_the_wall_clock(ready):
    result = run_readiness(ready.repo.root, MEM, use_cache=False)
    head_time = int(ready.repo.git("log", "-1", "--format=%ct").strip())
    assert result.as_of == head_time == AS_OF - 2 * DAY


def test_later_reading_loses_the_old_history(ready):
    # 40 days later nothing is in the window: every reading is null or failing
    result = read(ready, AS_OF + 40 * DAY)
    assert readings(result) == {"R1": "null", "R2": "fail", "R3": "fail", "R4": "null"}
    assert result.exit_code == 1 and result.missing() == ["R1", "R2", "R3", "R4"]


def test_reject_exactly_3_days_old_counts_one_second_more_does_not(ready):
    # the agent's rejection is 2 days before AS_OF: readings 1 day later put it at exactly
    # 3 days, one second more puts it outside the short window
    at_3_days = read(ready, AS_OF + DAY)
    assert readings(at_3_days)["R2"] == "pass"
    beyond = read(ready, AS_OF + DAY + 1)
    assert readings(beyond)["R2"] == "fail"
    assert next(r for r in beyond.readings if r.name == "R2").details[0].startswith("candidates rejected: 0 in 3 days")


def test_latest_rate_of_exactly_20_percent_fails(tmp_path):
    s, _ = ready_story(tmp_path / "p", latest_bad=True)
    result = read(s)
    r4 = next(r for r in result.readings if r.name == "R4")
    assert r4.details[-1] == "days 10-0: 1/5 reverted or rejected"
    assert r4.state == "fail" and result.exit_code == 1


def test_zero_rates_pass_and_four_samples_are_null(tmp_path):
    s = Story(tmp_path / "p")
    for window in (25, 15, 5):
        for k in range(5):
            s.touch(window * DAY - k * 3600)
    r4 = next(r for r in read(s).readings if r.name == "R4")
    assert r4.state == "pass" and r4.details[0] == "days 30-20: 0/5 reverted or rejected"
    s2 = Story(tmp_path / "q")
    for window, count in ((25, 5), (15, 4), (5, 5)):
        for k in range(count):
            s2.touch(window * DAY - k * 3600)
    r4 = next(r for r in read(s2).readings if r.name == "R4")
    assert r4.state == "null" and "(fewer than 5 samples)" in r4.details[1]


def r1_story(root, extra_adds):
    """B 3, C 1, D 1 and ``extra_adds`` A changes of an agent within the 30 days."""
    s = Story(root)
    d = s.add_decisions(3, 20 * DAY, agent=False)
    s.merge(d[0], d[1], 10 * DAY)
    s.rewrite(d[2], 9 * DAY)
    s.remove("decisions.md", d[2], 8 * DAY)
    s.add_decisions(extra_adds, 7 * DAY)
    return s


@pytest.mark.parametrize("adds, state", [(45, "pass"), (46, "fail"), (4, "pass")])
def test_r1_at_exactly_90_percent(tmp_path, adds, state):
    # 45 A of 50 changes is exactly 90% (passes); 46 of 51 is over 90% (fails); 4 A and the
    # 5 others are 9 changes, under the 10 R1 needs (null)
    result = read(r1_story(tmp_path / "p", adds))
    expected = "null" if adds + 5 < 10 else state
    assert readings(result)["R1"] == expected


@pytest.mark.parametrize("text, seconds", [("@1795000000", 1795000000), ("1970-01-01T00:00:10Z", 10),
                                           ("1970-01-01T00:00:10", 10), ("1970-01-01T01:00:10+01:00", 10)])
def test_parse_time(text, seconds):
    assert parse_time(text) == seconds  # no offset means UTC


def test_cli_json_errors_and_read_only(ready):
    root = str(ready.repo.root)
    before = tree_state(ready.repo.root)
    run = subprocess.run([sys.executable, "-m", "analyzer", "readiness", "--as-of", f"@{AS_OF}", "--format", "json",
                          "--project-root", root], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["schema"]["name"] == "readiness.result" and doc["status"] == "READY" and doc["missing"] == []
    text = subprocess.run([sys.executable, "-m", "analyzer", "readiness", "--as-of", "2030-01-01T00:00:00Z",
                           "--project-root", root], capture_output=True, text=True)
    assert text.returncode == 1 and "Full autonomy is not available: R1, R2, R3, R4 not met." in text.stdout
    bad = subprocess.run([sys.executable, "-m", "analyzer", "readiness", "--as-of", "yesterday",
                          "--project-root", root], capture_output=True, text=True)
    assert bad.returncode == 2 and "--as-of is not a time" in bad.stderr
    pattern = subprocess.run([sys.executable, "-m", "analyzer", "readiness", "--agent-author", "(",
                              "--project-root", root], capture_output=True, text=True)
    assert pattern.returncode == 2 and "not a regular expression" in pattern.stderr
    assert tree_state(ready.repo.root) == before


def test_agent_author_pattern(tmp_path):
    s = Story(tmp_path / "p")
    for k in range(3):
        s.repo.edit("decisions.md", "- issue:#42\n", f"- issue:#42\n- issue:#{k + 500}\n")
        s.repo.commit("bot", at=AS_OF - k * 3600, author="Lingshu Bot <bot@example.org>")
    plain = run_readiness(s.repo.root, MEM, "HEAD", f"@{AS_OF}", use_cache=False)
    matched = run_readiness(s.repo.root, MEM, "HEAD", f"@{AS_OF}", patterns=[r".*<bot@example\.org>"], use_cache=False)
    assert next(r for r in plain.readings if r.name == "R1").details[0].startswith("0 agent changes")
    assert next(r for r in matched.readings if r.name == "R1").details[0].startswith("3 agent changes")


def test_a_revert_message_naming_no_memory_commit_is_no_restore(tmp_path):
    # the message says it reverts a commit that does not exist: R3 sees no restore
    s = Story(tmp_path / "p")
    s.touch(DAY)
    s.repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#99\n")
    s.repo.commit('Revert "x"\n\nThis reverts commit ' + "12345678" * 5 + ".", at=AS_OF - 3600)
    r3 = next(r for r in read(s).readings if r.name == "R3")
    assert (r3.state, r3.details) == ("fail", ["no restore in 30 days"])
