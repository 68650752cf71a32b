"""The per-entry issues of spec §5.12 are derived by rules/entries/*.dl, not by Python.

The extractors write neutral facts (facts/entry_fields.dl); the rules judge them. These
tests query the rule program directly, and hold the extractors (both paths) to having no
validity decision of their own.
"""

from __future__ import annotations

import re
from pathlib import Path

from analyzer.project.extract.entries import extract_entries
from analyzer.project.extract.judge import entries_program, valued_fields, verdicts
from analyzer.project.extract.sink import Sink

REPO = Path(__file__).resolve().parents[2]
HEAD = "MC-DEC-20260101-aaaaaaaa"


def _facts(module="decisions.md", code="DEC", fields=(), evidence=(), filled=("Decision",), quoted=(), shapes=()):
    """ent_* facts of one entry at line 3 (``fields``: (name, value) in order)."""
    counts: dict = {}
    values: dict = {}
    for name, value in fields:
        counts[name] = counts.get(name, 0) + 1
        values[name] = value  # the last occurrence wins
    return {"ent_heading": {(3, module, HEAD, code)}, "ent_count": {(3, n, c) for n, c in counts.items()},
            "ent_value": {(3, n, v) for n, v in values.items() if n in valued_fields()},
            "ent_empty": {(3, n) for n, v in fields if not v},
            "ent_evidence": {(3, k, kind) for k, (item, kind) in enumerate(evidence, 1)},
            "ent_blank_item": {(3, k) for k, (item, kind) in enumerate(evidence, 1) if not item},
            "ent_body_filled": {(3, name) for name in filled}, "ent_quoted": set(quoted),
            "ent_scope_shape": set(shapes)}


VALID = (("Status", "active"), ("Scope", "project"), ("Subject", "MC-SUBJ-20260101-bbbbbbbb"),
         ("Facet", "behavior"), ("Evidence", ""), ("Decision", "x"))


def test_a_valid_entry_has_no_issue_in_the_rules():
    facts = _facts(fields=VALID, evidence=(("user-confirmed", "user-confirmed"),), shapes=(("project",),))
    assert verdicts(facts) == ({}, {})


def test_the_rules_derive_the_field_issues_in_the_references_order():
    fields = (("Status", "draft"), ("Scope", "project"), ("Zeta", "1"), ("Alpha", "2"), ("Evidence", ""),
              ("Evidence", ""), ("Decision", "x"))
    facts = _facts(fields=fields, quoted=(("draft", "'draft'"),), shapes=(("project",),))
    db = entries_program().evaluate(facts)
    assert (3, 10, "Alpha", 0, f"{HEAD} has unknown field Alpha") in db.tuples("ent_issue")
    issues, _ = verdicts(facts)
    assert issues[3] == [f"{HEAD} has unknown field Alpha", f"{HEAD} has unknown field Zeta",
                         f"{HEAD} must declare exactly one Evidence field (found 2)",
                         f"{HEAD} has invalid Status 'draft'", f"{HEAD} has duplicate Evidence fields"]


def test_the_rules_judge_storage_and_identity():
    fields = (("Status", "active"), ("Scope", "project"), ("Evidence", ""), ("Decision", "x"))
    facts = _facts(module="areas/web.md", code="DEC", fields=fields, evidence=(("agent-observed", "agent-observed"),),
                   shapes=(("project",),))
    issues, identity = verdicts(facts)
    assert issues[3] == [f"{HEAD} type does not match its area storage location",
                         f"{HEAD} must use Scope: area:web for areas/web.md",
                         f"{HEAD} has invalid Evidence schema or unsafe source path"]
    assert identity[3] == [f"active structural Entry {HEAD} must declare a non-empty Subject",
                           f"active structural Entry {HEAD} must declare a non-empty Facet"]


def test_an_extracted_file_gets_the_rules_verdicts_and_keeps_no_neutral_facts():
    text = f"# Decisions\n\n## {HEAD} — t\n\nStatus: active\nScope: project\nBogus: x\nEvidence:\n- user-confirmed\n\nDecision: y\n"
    for fast in (False, True):
        sink = Sink("docs/memory/decisions.md")
        extract_entries(text, "decisions.md", 1, sink, fast=fast)
        assert not [rel for rel in sink.columns if rel.startswith("ent_")]
        messages = [row[2] for row in sink.columns["entry_issue"][0]]
        assert f"{HEAD} has unknown field Bogus" in messages
        assert [(d[0], d[2]) for d in sink.diagnostics if "Bogus" in d[1]] == [("MC-CONFLICT-007", 3)]


def test_no_extractor_decides_an_entry_is_invalid():
    """The reference's per-entry wordings (§9.8.4) appear in rules/entries/, never in the extractors."""
    wordings = ("must declare exactly one", "lifecycle cannot declare", "storage location",
                " typed body (found", "inbox entries must be", "local entries must be", "invalid Evidence schema",
                "must declare a non-empty")
    # the entry extractors of both paths (the Subject registry's own checks are not entries')
    names = ("entries.py", "entry_rules.py", "fast_entries.py", "fields.py", "canonical.py", "judge.py")
    extract = "".join((REPO / "analyzer" / "project" / "extract" / name).read_text(encoding="utf-8") for name in names)
    rules = "".join(p.read_text(encoding="utf-8") for p in sorted((REPO / "rules" / "entries").glob("*.dl")))
    for wording in wordings:
        assert wording not in extract, wording
        assert wording in rules, wording
    assert not re.search(r"def _clean|def _accepted|STATUSES|FACETS", extract)


def _entry(eid: str, status: str) -> str:
    return f"## {eid} — t\n\nStatus: {status}\nScope: project\nEvidence:\n- user-confirmed\n\nDecision: y\n\n"


def test_entries_of_one_shape_are_judged_once_and_each_named_by_its_own_id():
    """Two entries with the same facts but for their ID and line share one evaluation key;
    each message names its own entry (the placeholder never shows), identity issues too."""
    ids = ("MC-DEC-20260101-aaaaaaaa", "MC-DEC-20260101-bbbbbbbb")
    text = "# Decisions\n\n" + "".join(_entry(eid, "draft") for eid in ids) + _entry("MC-DEC-20260101-cccccccc", "active")
    for fast in (False, True):
        sink = Sink("docs/memory/decisions.md")
        extract_entries(text, "decisions.md", 1, sink, fast=fast)
        messages = [(row[1], row[2]) for row in sink.columns["entry_issue"][0]]
        for eid in ids:
            assert (eid.casefold(), f"{eid} has invalid Status 'draft'") in messages
        identity = [(row[1], row[2]) for row in sink.columns["entry_identity_issue"][0]]
        assert identity == [("mc-dec-20260101-cccccccc",
                             "active structural Entry MC-DEC-20260101-cccccccc must declare a non-empty Subject"),
                            ("mc-dec-20260101-cccccccc",
                             "active structural Entry MC-DEC-20260101-cccccccc must declare a non-empty Facet")]
        assert not any("\x00" in d[1] for d in sink.diagnostics)


def test_a_batch_of_files_is_judged_in_one_evaluation_with_the_same_verdicts(monkeypatch):
    from analyzer.project.extract import judge

    files = {"decisions.md": "# Decisions\n\n" + _entry(HEAD, "draft"),
             "areas/web.md": "# Web\n\n" + _entry("MC-DEC-20260101-bbbbbbbb", "active")}
    alone = {}
    for module, text in files.items():
        sink = alone[module] = Sink(f"docs/memory/{module}")
        extract_entries(text, module, 1, sink)
    calls = []
    real = judge._evaluate
    monkeypatch.setattr(judge, "_evaluate", lambda facts: calls.append(1) or real(facts))
    monkeypatch.setattr(judge, "_VERDICTS", {})  # no shape judged before (the files above judged them)
    together = {}
    with judge.batched():
        for module, text in files.items():
            sink = together[module] = Sink(f"docs/memory/{module}")
            extract_entries(text, module, 1, sink)
            assert not sink.columns.get("entry_issue")  # not judged yet inside the batch
    assert calls == [1]
    for module in files:
        assert together[module].to_plain() == alone[module].to_plain()
        assert together[module].diagnostics  # each file has issues of its own


def test_a_shape_judged_before_in_the_process_is_not_evaluated_again(monkeypatch):
    """The verdicts of a (module, shape) are kept for the process: a later file (another
    project of a fleet) with only known shapes is judged without an evaluation, with the
    same verdicts, its own Entry IDs in the messages; a new shape is evaluated alone."""
    from analyzer.project.extract import judge

    monkeypatch.setattr(judge, "_VERDICTS", {})
    calls = []
    real = judge._evaluate
    monkeypatch.setattr(judge, "_evaluate", lambda facts: calls.append(len(facts["ent_heading"])) or real(facts))

    def extracted(text: str) -> Sink:
        sink = Sink("docs/memory/decisions.md")
        extract_entries(text, "decisions.md", 1, sink)
        return sink

    first = extracted("# Decisions\n\n" + _entry(HEAD, "draft") + "\n" + _entry("MC-DEC-20260101-bbbbbbbb", "active"))
    other = "MC-DEC-20260101-dddddddd"
    again = extracted("# Decisions\n\n" + _entry(other, "draft"))
    assert calls == [2]  # two shapes, once; none for the second file
    assert again.diagnostics and all(other in d[1] and HEAD not in d[1] for d in again.diagnostics)
    monkeypatch.setattr(judge, "_VERDICTS", {})
    assert extracted("# Decisions\n\n" + _entry(other, "draft")).to_plain() == again.to_plain()
    assert calls == [2, 1]
    extracted("# Decisions\n\n" + _entry(other, "superseded"))  # a new shape: evaluated alone
    assert calls == [2, 1, 1]
