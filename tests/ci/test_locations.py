"""Findings located where they are about, fingerprints that last, output linear in the
findings: an entry or record finding is at that heading, an unrelated entry added to the
same file reopens nothing under --baseline, and 10,000 entries in one undeclared file give
one entry per finding in every format."""

from __future__ import annotations

import json

import pytest

from cihelp import copy_example, run_inproc, run_cli

NEW_ENTRY = """
## MC-CON-20260920-0f0f0f0f — Refunds are logged

Status: active
Scope: project
Subject: MC-SUBJ-20260901-0a0a0a05
Facet: workflow
Evidence:
- doc:docs/security.md

Constraint:
Every refund is written to the audit log.
"""


def _sarif(root, *argv):
    out, err, _ = run_inproc(["check", "--all", "--format", "sarif", "--no-cache", "--project-root", str(root), *argv])
    assert out.startswith("{"), err
    return json.loads(out)["runs"][0]["results"]


def _first(result):
    where = result["locations"][0]["physicalLocation"]
    return where["artifactLocation"]["uri"], where["region"]["startLine"]


def test_entry_and_record_findings_are_at_their_heading(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = copy_example(tmp_path)
    results = _sarif(root)
    evidence = [r for r in results if "has invalid Evidence" in r["message"]["text"]]
    # the plain legacy check's family (in --all) quotes the same entry issue
    assert {r["ruleId"] for r in evidence} == {"MC-FRESH-004", "MC-CONFLICT-007", "MA-LEGACY-ENTRY"}
    for result in evidence:  # the entry at line 16, not the file's first entry at line 3
        assert _first(result) == ("docs/memory/constraints.md", 16)
        assert result["properties"]["entries"] == ["MC-CON-20260903-4e5f6071"]
        assert "relatedLocations" not in result  # the file's other IDs are not what it is about
    # the protocol families' record findings (the legacy family's conflict lines are §9.8.5's
    # summary lines, located by rules/check/legacy.dl)
    records = [r for r in results if "reconciliation record" in r["message"]["text"] and r["ruleId"].startswith("MC-")]
    assert {r["ruleId"] for r in records} == {"MC-FRESH-006", "MC-CONFLICT-008"}
    for result in records:
        assert _first(result) == ("docs/memory/reconciliations.md", 3)
        assert {l["physicalLocation"]["artifactLocation"]["uri"] for l in result["relatedLocations"]} == \
            {"docs/memory/constraints.md"}
    out, _, _ = run_inproc(["check", "--all", "--format", "json", "--project-root", str(root)])
    fresh = next(f for f in json.loads(out)["findings"] if f["code"] == "MC-FRESH-004"
                 and "has invalid Evidence" in f["message"])
    # JSON keeps the reference's Entries (every ID of the file), at the entry first
    assert fresh["entries"] == ["MC-CON-20260902-3d4e5f60", "MC-CON-20260903-4e5f6071"]
    assert fresh["at"] == "entry MC-CON-20260903-4e5f6071" and fresh["locations"][0]["line"] == 16


@pytest.mark.parametrize("kind", ["sarif", "json"])
def test_an_unrelated_entry_reopens_nothing_under_baseline(kind, tmp_path):
    root = copy_example(tmp_path)
    base = tmp_path / f"base.{kind}"
    run_cli(["check", "--all", "--project-root", str(root), "--output", f"{kind}:{base}"], tmp_path)
    target = root / "docs" / "memory" / "constraints.md"
    target.write_text(target.read_text(encoding="utf-8") + NEW_ENTRY, encoding="utf-8")
    proc = run_cli(["check", "--all", "--format", "json", "--project-root", str(root), "--baseline", str(base)],
                    tmp_path)
    document = json.loads(proc.stdout)
    reopened = [(f["code"], f["message"]) for f in document["findings"]]
    assert reopened == [] and document["gate"]["hidden"] >= 10, reopened


@pytest.mark.slow
def test_ten_thousand_entries_in_one_undeclared_file_stay_linear(tmp_path):
    root = copy_example(tmp_path)
    lines = ["# Notes", ""]
    for i in range(10_000):
        lines += [f"## MC-CON-20260902-{i:08x} \u2014 Note {i}", "", "Status: active", "Scope: project",
                  "Subject: MC-SUBJ-20260901-0a0a0a02", f"Facet: f{i}", "Evidence:", "- doc:docs/security.md", "",
                  "Constraint:", f"Rule {i}.", ""]
    (root / "docs" / "memory" / "notes.md").write_text("\n".join(lines), encoding="utf-8")
    proc = run_cli(["check", "--all", "--format", "json", "--no-cache", "--project-root", str(root),
                     "--output", f"sarif:{tmp_path / 'o.sarif'}", "--output", f"junit:{tmp_path / 'o.xml'}"], tmp_path)
    findings = json.loads(proc.stdout)["findings"]
    outside = [f for f in findings if "outside canonical" in f["message"]]
    assert len(outside) == 30_000  # MC-REACH-001, MC-CONFLICT-007 and MC-FRESH-004 per entry
    assert all(len(f["entries"]) == 1 and len(f["locations"]) == 1 for f in outside)
    # proportional to the findings: well under 1 KB a finding in each format (1,000 entries
    # once gave 72 MB of JSON)
    for size in (len(proc.stdout), (tmp_path / "o.sarif").stat().st_size, (tmp_path / "o.xml").stat().st_size):
        assert size < 1000 * len(findings)
