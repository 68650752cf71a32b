"""``--format gitlab``: GitLab Code Quality issues valid against the documented report format
(tests/ci/schemas/gitlab-code-quality.json), one per finding, unique stable fingerprints."""

from __future__ import annotations

import json

import jsonschema

from analyzer.contract.check_model import CheckResult, FamilyResult, failed_run
from analyzer.contract.results import Finding
from analyzer.render.check_gitlab import render_gitlab
from cihelp import REPO, copy_example, run_inproc

SCHEMA = json.loads((REPO / "tests" / "ci" / "schemas" / "gitlab-code-quality.json").read_text(encoding="utf-8"))


def _valid(issues):
    jsonschema.Draft7Validator(SCHEMA).validate(issues)
    assert len({i["fingerprint"] for i in issues}) == len(issues)  # GitLab keys issues by it


def test_example_is_a_valid_code_quality_report(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = copy_example(tmp_path)
    out, err, status = run_inproc(["check", "--all", "--format", "gitlab", "--project-root", str(root)])
    issues = json.loads(out)
    _valid(issues)
    sarif, _, _ = run_inproc(["check", "--all", "--format", "sarif", "--project-root", str(root)])
    results = json.loads(sarif)["runs"][0]["results"]
    assert status == 1 and len(issues) == len(results)
    assert [i["fingerprint"] for i in issues] == [r["partialFingerprints"]["memoryAnalyzerFinding/v1"] for r in results]
    evidence = next(i for i in issues if i["check_name"] == "MC-CONFLICT-007")
    assert evidence["location"] == {"path": "docs/memory/constraints.md", "lines": {"begin": 16}}
    assert evidence["severity"] == "critical"


def test_unlocated_findings_and_errors_still_have_a_location():
    bare = Finding("MC-FRESH-003", "freshness", "Git is unavailable", severity="INFO")
    issues = json.loads(render_gitlab(CheckResult([FamilyResult("freshness", "quality", "OK", 0, [bare])], "OK", 0),
                                      "sub/"))
    _valid(issues)
    assert issues[0]["location"]["path"] == "sub/docs/memory/manifest.md" and issues[0]["severity"] == "info"
    error = json.loads(render_gitlab(failed_run("unknown key", "MA-CONFIG-UNKNOWN-KEY", "pyproject.toml", 2)))
    _valid(error)
    assert error[0]["severity"] == "blocker" and error[0]["location"]["lines"]["begin"] == 2
    assert json.loads(render_gitlab(CheckResult([], "OK", 0))) == []


def test_the_schema_rejects_what_gitlab_rejects():
    good = {"description": "d", "check_name": "c", "fingerprint": "f", "severity": "major",
            "location": {"path": "a.md", "lines": {"begin": 1}}}
    _valid([good])
    for bad in ({**good, "severity": "error"}, {**good, "location": {"path": "a.md"}},
                {k: v for k, v in good.items() if k != "fingerprint"}):
        assert list(jsonschema.Draft7Validator(SCHEMA).iter_errors([bad]))
