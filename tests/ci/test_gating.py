"""Gating like linters: --select/--ignore codes and prefixes, --baseline (JSON or SARIF, by
fingerprint), --fail-on, their configuration keys, and the reference's exit rule untouched
without them."""

from __future__ import annotations

import json
import re

import pytest

from analyzer.commands import gating
from analyzer.contract.check_model import CheckResult, FamilyResult
from analyzer.contract.results import Finding, Location
from analyzer.query.merge import MergeResult
from cihelp import REPO, copy_example, run_inproc, run_cli


def _check(root, tmp, *argv):
    proc = run_cli(["check", "--all", "--format", "json", "--project-root", str(root), *argv], tmp)
    return proc, json.loads(proc.stdout)


def test_without_options_the_reference_exit_rule_stays(tmp_path):
    root = copy_example(tmp_path)
    proc, document = _check(root, tmp_path)
    assert proc.returncode == 1 and "gate" not in document and proc.stderr == ""


def test_select_and_ignore_codes_and_prefixes(tmp_path):
    root = copy_example(tmp_path)
    proc, document = _check(root, tmp_path, "--select", "MC-FRESH")
    assert {f["code"][:8] for f in document["findings"]} == {"MC-FRESH"} and proc.returncode == 1
    # 6 of the four families, 13 of the plain check's lines (family legacy)
    assert document["gate"]["hidden"] == 19 and "19 finding(s) hidden" in proc.stderr
    assert document["status"] == "INVALID"  # the rules' word stays
    proc, document = _check(root, tmp_path, "--ignore", "MC-FRESH,MC-CONFLICT,MA-LEGACY")
    assert [f["code"] for f in document["findings"]] == ["MC-ROUTING-005"] and proc.returncode == 0
    proc, document = _check(root, tmp_path, "--select", "MC-CONFLICT-001", "--select", "MC-ROUTING-005")
    assert sorted(f["code"] for f in document["findings"]) == ["MC-CONFLICT-001", "MC-ROUTING-005"]


def test_fail_on_thresholds(tmp_path):
    root = copy_example(tmp_path)
    warning_only = ("--select", "MC-ROUTING")
    assert _check(root, tmp_path, *warning_only, "--fail-on", "review")[0].returncode == 1
    assert _check(root, tmp_path, *warning_only, "--fail-on", "conflict")[0].returncode == 0
    assert _check(root, tmp_path, *warning_only)[0].returncode == 0
    conflict_only = ("--select", "MC-CONFLICT-001")
    assert _check(root, tmp_path, *conflict_only)[0].returncode == 1
    assert _check(root, tmp_path, *conflict_only, "--fail-on", "error")[0].returncode == 0
    assert _check(root, tmp_path, "--fail-on", "never")[0].returncode == 0
    assert _check(root, tmp_path, "--fail-on", "error")[0].returncode == 1


def test_baseline_from_json_and_from_sarif(tmp_path):
    root = copy_example(tmp_path)
    base_json, base_sarif = tmp_path / "base.json", tmp_path / "base.sarif"
    run_cli(["check", "--all", "--project-root", str(root), "--output", f"json:{base_json}",
              "--output", f"sarif:{base_sarif}"], tmp_path)
    for baseline in (base_json, base_sarif):
        proc, document = _check(root, tmp_path, "--baseline", str(baseline))
        assert document["findings"] == [] and proc.returncode == 0
        assert document["gate"]["hidden"] == 24
    # a new problem is reported, the old ones stay hidden, even though lines moved
    constraints = root / "docs" / "memory" / "constraints.md"
    head, rest = constraints.read_text(encoding="utf-8").split("\n", 1)
    constraints.write_text(head + "\n\n\n" + rest, encoding="utf-8")
    (root / "docs" / "memory" / "orphan.md").write_text(
        "# Orphan\n\n## MC-CON-20270109-1a1a1a01 — Stray\n\nStatus: active\nScope: project\nSubject: none\n"
        "Facet: policy\nEvidence:\n- user-confirmed\n\nConstraint:\nx\n", encoding="utf-8")
    proc, document = _check(root, tmp_path, "--baseline", str(base_sarif))
    assert document["findings"] and all("orphan.md" in json.dumps(f) for f in document["findings"])


def test_unusable_baseline_is_exit_2(tmp_path):
    root = copy_example(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text("{\"x\": 1}", encoding="utf-8")
    for path in (bad, tmp_path / "missing.json"):
        proc = run_cli(["check", "--all", "--project-root", str(root), "--baseline", str(path)], tmp_path)
        assert proc.returncode == 2 and "MA-BASELINE" in proc.stderr and proc.stdout == ""


HOSTILE_BASELINES = {
    # each of these was exit 3 (RecursionError, UnicodeEncodeError, TypeError) or, worse,
    # silently read as "no finding is known" (another tool's SARIF, an empty run list)
    "integer": "5",
    "list": "[1, 2]",
    "deep": "[" * 100000 + "]" * 100000,
    "deep-findings": '{"schema": {"name": "check.result"}, "findings": [' + "[" * 50000 + "]" * 50000 + "]}",
    "surrogate": '{"schema": {"name": "check.result"}, "findings": [{"code": "\\ud800", "family": "f", '
                 '"message": "m", "locations": []}]}',
    "types": '{"schema": {"name": "check.result"}, "findings": [{"code": "A", "family": "f", "message": "m", '
             '"locations": [{"path": 1, "line": "x", "col": 2}]}]}',
    "merge-not-object": '{"schema": {"name": "check.result"}, "findings": [], "merge": [1]}',
    "junit": '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="memory-analyzer"/>\n',
    "foreign-json": '{"findings": []}',
    "other-tool-sarif": json.dumps({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "CodeQL"}},
                                                                  "results": []}]}),
    "sarif-without-runs": '{"version": "2.1.0", "runs": []}',
    "truncated-sarif": '{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "memory-analyzer"}}, '
                       '"results": [{"ruleId": "MC-FRESH-001"',
    "sarif-result-without-fingerprint": json.dumps({"version": "2.1.0", "runs": [
        {"tool": {"driver": {"name": "memory-analyzer"}}, "results": [{"ruleId": "MC-FRESH-001"}]}]}),
    "not-utf8": b'{"findings": ["\xff"]}',
}


@pytest.mark.parametrize("name", sorted(HOSTILE_BASELINES))
def test_a_hostile_baseline_is_a_clear_error(tmp_path, name):
    path = tmp_path / "baseline.json"
    content = HOSTILE_BASELINES[name]
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with pytest.raises(gating.BaselineError) as caught:
        gating.load_baseline(str(path))
    assert str(caught.value).startswith(f"{path}: ")


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_a_baseline_that_is_no_regular_file_never_blocks(tmp_path, kind):
    import os

    if kind == "fifo":
        path = tmp_path / "fifo.json"
        os.mkfifo(path)
    elif kind == "device":
        path = "/dev/zero"  # read to the end, it exhausted memory
        if not os.path.exists(path):
            pytest.skip("no /dev/zero")
    else:
        path = tmp_path
    with pytest.raises(gating.BaselineError, match="not a regular file"):
        gating.load_baseline(str(path))


def test_a_pattern_no_code_starts_with_is_exit_2(tmp_path):
    # a typo would otherwise hide every finding and pass the gate: fail closed
    root = copy_example(tmp_path)
    for argv in (["--select", "MC-FRSH"], ["--select", "mc-fresh"], ["--ignore", "MC-FRESH,NOPE"]):
        proc = run_cli(["check", "--all", "--project-root", str(root), *argv], tmp_path)
        assert proc.returncode == 2 and proc.stdout == "", argv
        assert "MA-USAGE" in proc.stderr and "no finding code starts with" in proc.stderr, proc.stderr
    (root / ".memory-analyzer.toml").write_text('select = ["MC-FRSH"]\n', encoding="utf-8")
    for command in ("check", "report"):
        proc = run_cli([command, "--project-root", str(root)], tmp_path)
        assert proc.returncode == 2 and "'MC-FRSH'" in proc.stderr, proc.stderr
    # a rule pack's codes count as known
    pack = REPO / "examples" / "packs" / "acme-audit" / "acme-audit.dl"
    (root / ".memory-analyzer.toml").unlink()
    proc = run_cli(["check", "--all", "--rules", str(pack), "--select", "ACME", "--project-root", str(root)], tmp_path)
    assert proc.returncode in (0, 1), proc.stderr


def test_configuration_sets_the_gate_and_flags_win(tmp_path):
    root = copy_example(tmp_path)
    (root / "pyproject.toml").write_text('[tool.memory-analyzer]\nfail-on = "never"\nignore = ["MC-FRESH"]\n',
                                         encoding="utf-8")
    proc, document = _check(root, tmp_path)
    assert proc.returncode == 0 and not any(f["code"].startswith("MC-FRESH") for f in document["findings"])
    assert _check(root, tmp_path, "--fail-on", "conflict")[0].returncode == 1
    base = tmp_path / "b.json"
    run_cli(["check", "--all", "--format", "json", "--project-root", str(root), "--output", str(base)], tmp_path)
    (root / "pyproject.toml").write_text('[tool.memory-analyzer]\nbaseline = "../b.json"\n', encoding="utf-8")
    assert _check(root, tmp_path)[1]["gate"]["baseline"].endswith("b.json")


def _report(root, *argv, fmt="json"):
    out, err, status = run_inproc(["report", "--format", fmt, "--project-root", str(root), *argv])
    return status, (json.loads(out) if fmt == "json" and out else out), err


def test_report_is_gated_as_check_is(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = copy_example(tmp_path)
    for argv in (("--select", "MC-FRESH"), ("--ignore", "MC-FRESH,MC-CONFLICT,MA-LEGACY"), ("--fail-on", "never"),
                 ("--select", "MC-ROUTING", "--fail-on", "review")):
        status, document, err = _report(root, *argv)
        proc, checked = _check(root, tmp_path, *argv)
        assert (status, document["findings"], document["gate"]) == (proc.returncode, checked["findings"],
                                                                    checked["gate"]), argv
        assert document["exit_code"] == status
        hidden = checked["gate"]["hidden"]
        assert (f"analyze report: {hidden} finding(s) hidden" in err) == bool(hidden or "never" in argv)
    status, markdown, _ = _report(root, "--ignore", "MC-FRESH,MC-CONFLICT,MA-LEGACY", fmt="markdown")
    assert status == 0 and set(re.findall(r"^- \*\*(MC-[A-Z]+-\d+)\*\*", markdown, re.M)) == {"MC-ROUTING-005"}
    assert "23 finding(s) hidden by --select/--ignore/--baseline" in markdown
    status, document, _ = _report(root)
    assert status == 1 and "gate" not in document  # no option: the reference's exit rule


def test_report_baseline_and_configuration(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = copy_example(tmp_path)
    base = tmp_path / "base.sarif"
    run_inproc(["check", "--all", "--format", "sarif", "--output", str(base), "--project-root", str(root)])
    status, document, _ = _report(root, "--baseline", str(base))
    assert status == 0 and document["findings"] == [] and document["gate"]["hidden"] == 24
    status, out, err = _report(root, "--baseline", str(tmp_path / "missing.json"))
    assert status == 2 and "analyze report: error: MA-BASELINE" in err and out == ""
    (root / ".memory-analyzer.toml").write_text('fail-on = "never"\nselect = ["MC-CONFLICT"]\n', encoding="utf-8")
    status, document, _ = _report(root)
    assert status == 0 and {f["code"][:11] for f in document["findings"]} == {"MC-CONFLICT"}
    assert document["gate"]["fail_on"] == "never"
    status, document, _ = _report(root, "--fail-on", "error")  # the flag wins over the file
    assert status == 1 and document["gate"]["fail_on"] == "error"


def _merge_result(available: bool):
    merge = MergeResult("right", status="CONFLICT" if available else None, exit_code=1)
    families = [FamilyResult("conflicts", "conflicts", "CLEAR", 0),
                FamilyResult("merge", "merge", merge.status or "UNAVAILABLE", 1)]
    result = CheckResult(families, "UNAVAILABLE", 1)
    result.merge = merge
    return result


def test_an_unavailable_merge_review_keeps_failing():
    gate = gating.Gate(ignore=["MC-MERGE"])
    assert gating.apply(_merge_result(False), gate).exit_code == 1
    assert gating.apply(_merge_result(True), gate).exit_code == 0  # available, nothing left to show
    assert gating.apply(_merge_result(False), gating.Gate(fail_on="never")).exit_code == 0


def test_apply_leaves_the_result_alone():
    finding = Finding("MC-FRESH-001", "freshness", "m", severity="ERROR", locations=[Location("a.md", 1)])
    result = CheckResult([FamilyResult("freshness", "quality", "FAILED", 1, [finding])], "FAILED", 1)
    gated = gating.apply(result, gating.Gate(ignore=["MC-FRESH-001"]))
    assert gated.families[0].findings == [] and result.families[0].findings == [finding]
    assert gated.exit_code == 0 and result.exit_code == 1
    assert gating.apply(result, gating.Gate()) is result


@pytest.mark.parametrize("block,status,left,shown", [
    ("conflicts", "INVALID", ["REVIEW", "CONFLICT", "REVIEW"], "CONFLICT"),  # the worst status left
    ("conflicts", "CONFLICT", ["WARNING"], "CLEAR"),  # no conflict status left
    ("conflicts", "CONFLICT", [], "CLEAR"),
    ("quality", "FAILED", ["WARNING", "ERROR"], "FAILED"),
    ("quality", "FAILED", ["WARNING"], "OK"),
    ("legacy", "FAILED", [], "OK"),
    ("scan", "OK", ["ERROR"], "FAILED"),
    ("scan", "UNAVAILABLE", [], "UNAVAILABLE"),  # not an OK/FAILED block: its own word
    ("agents", "REVIEW", [], "REVIEW"),
])
def test_the_shown_status_of_a_filtered_family(block, status, left, shown):
    """The status word of what a filtered family still shows (rules/check/shown.dl)."""
    def finding(code, word):
        level = {"severity": word} if word in ("ERROR", "WARNING", "INFO") else {"status": word}
        return Finding(code, "f", "m", locations=[Location("a.md", 1)], **level)

    findings = [finding(f"keep-{n}", word) for n, word in enumerate(left)] + [finding("hide", "ERROR")]
    other = FamilyResult("other", "quality", "FAILED", 1, [finding("hide-too", "ERROR")])
    result = CheckResult([FamilyResult("f", block, status, 1, findings), other], status, 1)
    gated = gating.apply(result, gating.Gate(ignore=["hide"]))
    assert [f.shown_status for f in gated.families] == [shown, "OK"]
