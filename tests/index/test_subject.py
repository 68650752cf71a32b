"""`analyze subject list` and `analyze subject merge` (spec §9.6): the preconditions, the
list, and the merge preview (references, blockers, review notes, Plan ID; never writes)."""

from __future__ import annotations

import hashlib

import pytest

from helpers import append, entry, memory, write

SOURCE, TARGET = "MC-SUBJ-20260901-0a0a0a01", "MC-SUBJ-20260901-0a0a0a03"


def _edit(root, rel, old, new):
    path = memory(root, rel)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def _tree(root):
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _section(out: str, title: str):
    lines = out.splitlines()
    start = lines.index(title) + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("- "))
    return lines[start:end]


def test_list_active_subjects_with_canonical_ref_as_written(cli, acme):
    _edit(acme, "subjects.md", "Canonical-Ref: dependency:npm:moment", "Canonical-Ref: dependency:npm:Moment")
    code, out, err = cli("subject", "list")
    assert code == 0, err
    assert out.splitlines() == [
        "Active subjects:",
        "- MC-SUBJ-20260901-0a0a0a01: Order totals (concept)",
        "- MC-SUBJ-20260901-0a0a0a02: Payment provider (service) [service:payments]",
        "- MC-SUBJ-20260901-0a0a0a03: Cart state (feature) [feature:cart]",
        "- MC-SUBJ-20260901-0a0a0a04: Moment.js (dependency) [dependency:npm:Moment]",
        "- MC-SUBJ-20260901-0a0a0a05: Release cadence (concept)",
    ]
    code, data, _ = cli.json("subject", "list")
    assert code == 0 and data["schema"]["name"] == "subject.list"
    first = data["subjects"][0]
    assert first["canonical_ref"] is None
    assert first["locations"] == [{"path": "docs/memory/subjects.md", "line": 5, "col": 1}]


def test_merged_subjects_are_not_listed(cli, acme):
    append(acme, "subjects.md", "\n## MC-SUBJ-20260913-99999991 — Gone\n\nStatus: merged\nKind: concept\n"
                                f"Merged-Into: {TARGET}\nEvidence:\n- user-confirmed\n\nAliases:\n- gone\n")
    code, out, _ = cli("subject", "list")
    assert code == 0 and "99999991" not in out


@pytest.mark.parametrize("change,message", [
    (("manifest.md", "- entry_schema_version: 2", "- entry_schema_version: 1"),
     "Error: Subject commands require an exact, valid Protocol 0.7 manifest contract: Project uses Protocol 0.7 "
     "entry schema 1;"),
    (("manifest.md", "- subject_schema_version: 1", "- subject_schema_version: 2"),
     "Error: Subject commands require an exact, valid Protocol 0.7 manifest contract: Protocol 0.7 requires "
     "subject_schema_version: 1"),
    (("manifest.md", "- protocol_version: 0.7", "- protocol_version: 0.6"),
     "Error: Subject commands require an exact, valid Protocol 0.7 manifest contract"),
    (("subjects.md", "- libx\n", "- libx\n- order totals\n"),
     "Error: Subject registry has issues: subjects.md: normalized alias 'order totals' is owned by both"),
    (("subjects.md", "Kind: concept", "Kind: idea"), "Error: Subject registry has issues: subjects.md: "),
])
def test_preconditions_refuse_with_exit_2(cli, acme, change, message):
    rel, old, new = change
    if old == "- libx\n" and old not in memory(acme, rel).read_text(encoding="utf-8"):
        old, new = "- moment\n", "- moment\n- order totals\n"
    _edit(acme, rel, old, new)
    for argv in (("subject", "list"), ("subject", "merge", SOURCE, "--into", TARGET)):
        code, out, err = cli(*argv)
        assert (code, out) == (2, ""), err
        assert err.startswith(message), err
        code, data, _ = cli.json(*argv)
        assert code == 2 and data["ok"] is False and data["schema"]["name"] == "subject.error"
        assert data["diagnostics"][0]["code"].startswith("MA-SUBJECT-")


def test_missing_registry_refuses(cli, acme):
    memory(acme, "subjects.md").unlink()
    code, _, err = cli("subject", "list")
    assert code == 2 and err.strip() == "Error: Subject registry has issues: subjects.md: missing managed Subject registry"


def test_symlink_refused_before_contract(cli, acme):
    memory(acme, "x.md").symlink_to(memory(acme, "brief.md"))
    code, _, err = cli("subject", "list")
    assert code == 2 and err.startswith("Error: docs/memory/x.md:1:1: MA-FILE-SYMLINK Managed memory path must not be a symlink")


@pytest.mark.parametrize("source,target,message", [
    (SOURCE, SOURCE.upper().replace("MC-SUBJ", "mc-subj"), "Error: Source and target Subject must differ."),
    ("MC-SUBJ-20990101-00000000", TARGET,
     "Error: Source Subject MC-SUBJ-20990101-00000000 must exist exactly once and be active."),
    (SOURCE, "MC-SUBJ-20260913-99999991", "Error: Target Subject MC-SUBJ-20260913-99999991 must exist exactly once "
                                          "and be active."),
])
def test_merge_subjects_must_be_two_active_subjects(cli, acme, source, target, message):
    append(acme, "subjects.md", "\n## MC-SUBJ-20260913-99999991 — Gone\n\nStatus: merged\nKind: concept\n"
                                f"Merged-Into: {TARGET}\nEvidence:\n- user-confirmed\n\nAliases:\n- gone\n")
    code, out, err = cli("subject", "merge", source, "--into", target)
    assert (code, out, err.strip()) == (2, "", message)


def test_merge_preview_current_historical_and_required(cli, acme):
    append(acme, "inbox.md", entry("MC-INBOX-20260913-0000cccc", "Candidate on the source", status="candidate",
                                   scope="area:search", body="Statement",
                                   extra=f"Candidate-Type: constraint\nProvisional-Subject: {SOURCE}\n"
                                         "Provisional-Facet: behavior\nPromotion-Requirement:\nAsk."))
    before = _tree(acme)
    code, out, err = cli("subject", "merge", SOURCE, "--into", TARGET)
    assert code == 0, err
    assert _tree(acme) == before  # a preview never writes
    lines = out.splitlines()
    assert lines[:3] == ["Subject merge preview:", f"Source: {SOURCE} — Order totals", f"Target: {TARGET} — Cart state"]
    assert lines[3:5] == ["Source registry unit:", f"## {SOURCE} — Order totals"]
    assert _section(out, "Current references planned for future mutation:") == [
        "- MC-CON-20260909-c6d7e8f9 (areas/api.md; active)",
        "- MC-CON-20260914-d8e9fa0b (areas/catalogue.md; active)",
        "- MC-DEC-20260910-1b2c3d4e (decisions.md; active)",
        "- MC-INBOX-20260913-0000cccc (inbox.md; candidate)",
    ]
    assert _section(out, "Historical references retained without mechanical rewrite:") == [
        "- MC-DEC-20260801-d7e8f90a (archive/decisions-2026-08.md; superseded)",
        "- MC-DEC-20260905-2c3d4e5f (decisions.md; superseded)",
    ]
    assert _section(out, "Alias/Canonical-Ref review:") == ["- none"]
    assert _section(out, "Required reconciliation/blockers:") == [
        "- Future subject-merged reconciliation must cover current references: MC-CON-20260909-c6d7e8f9, "
        "MC-CON-20260914-d8e9fa0b, MC-DEC-20260910-1b2c3d4e, MC-INBOX-20260913-0000cccc"]
    assert lines[-3].startswith("Plan ID: ") and len(lines[-3]) == len("Plan ID: ") + 16
    assert lines[-1] == "Transactional Subject merge apply requires Protocol 0.8."
    code, data, _ = cli.json("subject", "merge", SOURCE, "--into", TARGET)
    assert code == 0 and data["status"] == "READY" and data["blockers"] == []
    assert data["plan_id"] == lines[-3].split()[-1]


def test_resulting_identity_and_invalid_reference_block(cli, acme):
    # a project-scope owner of the target with the same facet as a current reference
    append(acme, "decisions.md", entry("MC-DEC-20260913-0000dddd", "Cart model", subject=TARGET, facet="data-model"))
    _edit(acme, "areas/api.md", "Subject: MC-SUBJ-20260901-0a0a0a01", "Subject: MC-SUBJ-20260901-0a0a0a01\nNote: x")
    code, out, _ = cli("subject", "merge", SOURCE, "--into", TARGET)
    assert code == 0
    blockers = _section(out, "Required reconciliation/blockers:")[1:]
    assert ("- Resulting structural identity project+MC-SUBJ-20260901-0a0a0a03+data-model has owners: "
            "MC-DEC-20260910-1b2c3d4e, MC-DEC-20260913-0000dddd") in blockers
    assert any("MC-CON-20260909-c6d7e8f9" in b and "unknown field Note" in b for b in blockers), blockers
    _, data, _ = cli.json("subject", "merge", SOURCE, "--into", TARGET)
    assert data["status"] == "BLOCKED"
    owners = [b for b in data["blockers"] if b["message"].startswith("Resulting")][0]
    assert owners["entries"] == ["MC-DEC-20260910-1b2c3d4e", "MC-DEC-20260913-0000dddd"]
    assert {loc["path"] for loc in owners["locations"]} == {"docs/memory/decisions.md"}


def test_differing_canonical_refs_are_a_review_note(cli):
    code, out, _ = cli("subject", "merge", "MC-SUBJ-20260901-0a0a0a02", "--into", TARGET)
    assert code == 0
    assert _section(out, "Alias/Canonical-Ref review:") == [
        "- Canonical-Ref differs: source service:payments, target feature:cart"]


def test_plan_id_is_stable_and_follows_edits(cli, acme):
    def plan(**kw):
        return cli("subject", "merge", SOURCE, "--into", TARGET, **kw)[1].splitlines()[-3]

    first = plan()
    assert plan(seed="3", cache="other") == first == cli("subject", "merge", SOURCE, "--into", TARGET,
                                                         "--no-cache")[1].splitlines()[-3]
    _edit(acme, "decisions.md", "floats never hold money", "floats never hold money at all")
    assert plan() != first


def test_small_project_without_references(tmp_path, cli):
    root = tmp_path / "small"
    write(root, "manifest.md", memory(cli.root, "manifest.md").read_text(encoding="utf-8"))
    write(root, "subjects.md", memory(cli.root, "subjects.md").read_text(encoding="utf-8"))
    code, out, _ = cli("subject", "merge", SOURCE, "--into", TARGET, root=root)
    assert code == 0
    for title in ("Current references planned for future mutation:",
                  "Historical references retained without mechanical rewrite:", "Required reconciliation/blockers:"):
        assert _section(out, title) == ["- none"]
