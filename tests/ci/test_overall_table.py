"""Every combination of family statuses and of shown words against ``--fail-on``: the
overall status and exit status of a run (analyzer/query/check.combine, as rules/check/run.dl
derives them) and the exit a gate gives what a run shows (analyzer/commands/gating.apply, as
rules/check/shown.dl judges it by rules/check/overall.dl's tables). The expectations are the documented orders (docs/ci.md, §9.4), written here as a table
of their own so that a change of the rules or of the vocabulary's ranks shows up."""

from __future__ import annotations

import itertools

from analyzer.commands import gating
from analyzer.contract.check_model import CheckResult, FamilyResult
from analyzer.contract.results import Finding, Location
from analyzer.query.check import combine

# a family status's rank when the run's worst is picked (§9.4: CLEAR < REVIEW < CONFLICT <
# INVALID; a block's OK as CLEAR, FAILED and UNAVAILABLE as CONFLICT; any other word as INVALID)
FAMILY_RANK = {"CLEAR": 0, "OK": 0, "REVIEW": 1, "CONFLICT": 2, "FAILED": 2, "UNAVAILABLE": 2,
               "INVALID": 3, "SOMETHING-ELSE": 3}
# a shown finding's gating rank (a WARNING as a REVIEW, an ERROR as an INVALID, a finding with
# no word or another word as a REVIEW) and the rank each threshold fails from
WORD_RANK = {"INFO": 0, "CLEAR": 0, "WARNING": 1, "REVIEW": 1, "": 1, "ODD": 1, "CONFLICT": 2,
             "ERROR": 3, "INVALID": 3}
THRESHOLD = {"review": 1, "conflict": 2, "error": 3, "never": None}
SEVERITIES = ("INFO", "WARNING", "ERROR")


def _family_combinations():
    """(statuses, exits, expected status, expected exit) of every run of one to three families."""
    for size in (1, 2, 3):
        for statuses in itertools.product(FAMILY_RANK, repeat=size):
            exits = [(n + len(s)) % 3 for n, s in enumerate(statuses)]
            worst = max(range(size), key=lambda n: (FAMILY_RANK[statuses[n]], -n))
            yield statuses, exits, statuses[worst], max(exits)


def test_the_overall_status_and_exit_of_every_combination_of_families():
    wrong = []
    for statuses, exits, status, exit_code in _family_combinations():
        families = [FamilyResult(f"f{n}", "quality", s, e) for n, (s, e) in enumerate(zip(statuses, exits))]
        got = combine(families)
        if (got.status, got.exit_code) != (status, exit_code):
            wrong.append((statuses, exits, got.status, got.exit_code))
    assert wrong == []


def test_the_decision_is_the_rules_alone():
    """rules/check/run.dl decides, over nothing but the families' words and exits (combine
    only looks its answer up): its run_status and run_exit are the table's."""
    from analyzer.query.program import shipped_program

    program, wrong = shipped_program("check/run.dl"), []
    for statuses, exits, status, exit_code in _family_combinations():
        db = program.evaluate({"run_family": [(n, "quality", s, e) for n, (s, e) in enumerate(zip(statuses, exits))]})
        if (db.relation("run_status"), db.relation("run_exit")) != ([(status,)], [(exit_code,)]):
            wrong.append((statuses, exits, db.relation("run_status"), db.relation("run_exit")))
    assert wrong == []


def test_the_report_family_takes_no_part():
    """The report's relations (the ``report`` block, always OK and exit 0) are not a check:
    wherever the family stands, the run is judged by the others (so a report split out of a
    cached result keeps its status: analyzer/query/report.report_of)."""
    report, wrong = FamilyResult("report", "report", "OK", 0), []
    for statuses, exits, status, exit_code in _family_combinations():
        families = [FamilyResult(f"f{n}", "quality", s, e) for n, (s, e) in enumerate(zip(statuses, exits))]
        for at in (0, len(families)):
            got = combine(families[:at] + [report] + families[at:])
            if (got.status, got.exit_code) != (status, exit_code):
                wrong.append((at, statuses, exits, got.status, got.exit_code))
    assert wrong == []


def _finding(code: str, word: str) -> Finding:
    level = {"severity": word} if word in SEVERITIES else {"status": word}
    return Finding(code, "f", "m", locations=[Location("a.md", 1)], **level)


def _shown_combinations():
    """(threshold, shown words, whether a family failed with nothing to show) of every
    threshold against no, one or two shown words."""
    words = list(WORD_RANK)
    shown_sets = [()] + [(w,) for w in words] + list(itertools.combinations(words, 2))
    return itertools.product(THRESHOLD, shown_sets, (False, True))


def _gate_exits(threshold: str, shown: tuple, silent: bool) -> tuple:
    """The table's (exit of the family showing ``shown``, exit of the run)."""
    rank, worst = THRESHOLD[threshold], max((WORD_RANK[w] for w in shown), default=-1)
    return (0 if rank is None else int(worst >= rank)), (0 if rank is None else int(worst >= rank or silent))


def test_the_exit_of_every_threshold_against_every_combination_of_shown_words():
    wrong = []
    for threshold, shown, silent in _shown_combinations():
        findings = [_finding(f"keep-{n}", w) for n, w in enumerate(shown)] + [_finding("hide", "ERROR")]
        families = [FamilyResult("f", "quality", "FAILED", 1, findings)]
        if silent:  # a family that failed with nothing to show
            families.append(FamilyResult("s", "quality", "FAILED", 1, []))
        result = CheckResult(families, "FAILED", 1)
        gated = gating.apply(result, gating.Gate(fail_on=threshold, ignore=["hide"]))
        if (gated.families[0].shown_exit, gated.exit_code) != _gate_exits(threshold, shown, silent):
            wrong.append((threshold, shown, silent, gated.families[0].shown_exit, gated.exit_code))
    assert wrong == []


def test_the_gate_decision_is_the_rules_alone():
    """rules/check/shown.dl decides, over nothing but the families, the words left and the
    threshold (gating.apply only looks its answer up): its gate_shown_exit and gate_exit
    are the table's, and a merge review Git could not answer fails as a silent family does."""
    from analyzer.query.program import shipped_program

    program, wrong = shipped_program("check/shown.dl"), []
    for threshold, shown, silent in _shown_combinations():
        for quiet in (("quality", "FAILED"), ("merge", "UNAVAILABLE")):
            facts = {"gate_family": [(0, "quality", "FAILED", 1)] + ([(1, *quiet, 1)] if silent else []),
                     "gate_hid": [(0,)], "gate_shown": [(0, w) for w in shown], "gate_threshold": [(threshold,)]}
            db = program.evaluate(facts)
            family_exit, run_exit = _gate_exits(threshold, shown, silent)
            if (dict(db.relation("gate_shown_exit"))[0], db.relation("gate_exit")) != (family_exit, [(run_exit,)]):
                wrong.append((threshold, shown, quiet if silent else None, db.relation("gate_shown_exit"),
                              db.relation("gate_exit")))
    assert wrong == []


def test_a_run_of_the_report_alone_is_a_clear_error():
    """combine needs a family that is a check: the report alone gives no status to judge
    the run by, and says so (it was an unpacking error)."""
    import pytest

    with pytest.raises(ValueError, match="at least one family that is a check"):
        combine([FamilyResult("report", "report", "OK", 0)])
