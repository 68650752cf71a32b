"""`analyze show ID` (spec §9.7): the unit text, Subject identity through Merged-Into, refusals."""

from __future__ import annotations

from helpers import append, entry, memory, overlay

WRAPPED = """
## MC-DEC-20260913-12121212 — Schema 2 body

Status: active
Scope: project
Subject: MC-SUBJ-20260901-0a0a0a03
Facet: behavior
Evidence:
- user-confirmed

Decision:
```memory-custodian-body-v1
Status: semantic body
- a bullet that stays inside the body
```

Reason:
```python
print("an ordinary fence stays")
```
"""

MERGED = """
## MC-SUBJ-20260913-99999991 — Merged source

Status: merged
Kind: concept
Merged-Into: MC-SUBJ-20260901-0a0a0a03
Evidence:
- user-confirmed

Aliases:
- merged source
"""


def test_show_prints_source_subjects_and_unit(cli):
    code, out, err = cli("show", "mc-dec-20260910-1B2C3D4E")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:4] == ["Source: decisions.md", "Historical Subject ID: MC-SUBJ-20260901-0a0a0a01",
                         "Current canonical Subject ID: MC-SUBJ-20260901-0a0a0a01", ""]
    assert lines[4] == "## MC-DEC-20260910-1b2c3d4e — Totals are computed in integer cents"
    assert lines[-1] == "Rounding differences between Python and JavaScript produced one-cent mismatches at checkout."


def test_schema_2_wrapper_fences_are_hidden_ordinary_fences_kept(cli, acme):
    append(acme, "decisions.md", WRAPPED)
    code, out, _ = cli("show", "MC-DEC-20260913-12121212")
    assert code == 0
    assert "Decision:\nStatus: semantic body\n- a bullet that stays inside the body\n\nReason:" in out
    assert "memory-custodian-body-v1" not in out
    assert '```python\nprint("an ordinary fence stays")\n```' in out
    code, data, _ = cli.json("show", "MC-DEC-20260913-12121212")
    assert "memory-custodian-body-v1" not in data["text"] and data["text"].startswith("## MC-DEC-20260913-12121212")


def test_historical_entry_of_a_merged_subject_shows_the_current_subject(cli, acme):
    append(acme, "subjects.md", MERGED)
    append(acme, "decisions.md", entry("MC-DEC-20260913-0000aaaa", status="superseded",
                                       subject="MC-SUBJ-20260913-99999991", facet="behavior"))
    code, out, _ = cli("show", "MC-DEC-20260913-0000aaaa")
    assert code == 0
    assert out.splitlines()[1:3] == ["Historical Subject ID: MC-SUBJ-20260913-99999991",
                                     "Current canonical Subject ID: MC-SUBJ-20260901-0a0a0a03"]
    _, data, _ = cli.json("show", "MC-DEC-20260913-0000aaaa")
    assert data["subjects"] == [{"historical": "MC-SUBJ-20260913-99999991", "current": "MC-SUBJ-20260901-0a0a0a03"}]


def test_unregistered_subject_is_unresolved(cli, acme):
    append(acme, "decisions.md", entry("MC-DEC-20260913-0000bbbb", subject="MC-SUBJ-20260913-deadbeef",
                                       facet="behavior"))
    _, out, _ = cli("show", "MC-DEC-20260913-0000bbbb")
    assert "Current canonical Subject ID: unresolved" in out.splitlines()


def test_legacy_unit_record_and_archive(cli):
    _, out, _ = cli("show", "changelog.md#unit-2")
    assert out.startswith("Source: changelog.md\n\n- ")
    _, out, _ = cli("show", "MC-REC-20260911-8293a4b5")
    assert out.startswith("Source: reconciliations.md\n\n## MC-REC-20260911-8293a4b5 — ")
    code, out, err = cli("show", "MC-DEC-20260801-d7e8f90a")
    assert (code, out) == (2, "")
    assert err.strip() == ("Error: Unknown Entry ID MC-DEC-20260801-d7e8f90a; it is in archive storage "
                           "(use --include-archive).")
    code, out, _ = cli("show", "MC-DEC-20260801-d7e8f90a", "--include-archive")
    assert code == 0 and out.startswith("Source: archive/decisions-2026-08.md\n")


def test_unknown_id(cli):
    code, out, err = cli("show", "MC-DEC-20990101-00000000")
    assert (code, out, err.strip()) == (2, "", "Error: Unknown Entry ID MC-DEC-20990101-00000000.")
    code, data, _ = cli.json("show", "MC-DEC-20990101-00000000")
    assert code == 2 and data["schema"]["name"] == "show.error"
    assert data["diagnostics"][0]["code"] == "MA-INDEX-UNKNOWN"


def test_duplicate_refuses_even_another_id(cli, acme):
    append(acme, "constraints.md", entry("MC-DEC-20260910-1b2c3d4e", body="Constraint"))
    code, out, err = cli("show", "MC-DEC-20260905-2c3d4e5f")
    assert (code, out) == (2, "")
    assert err.strip() == "Error: Duplicate Entry ID MC-DEC-20260910-1b2c3d4e; canonical lookup is unsafe."


def test_local_entry(cli, acme):
    overlay(cli.state, acme, entry("MC-PREF-20260801-0e0e0e0e", "Local preference", scope="local-user",
                                   body="Preference"))
    code, _, err = cli("show", "MC-PREF-20260801-0e0e0e0e")
    assert code == 2 and "Unknown Entry ID" in err
    code, out, _ = cli("show", "MC-PREF-20260801-0e0e0e0e", "--local")
    assert code == 0 and out.startswith("Source: local/preferences.md\n\n## MC-PREF-20260801-0e0e0e0e — ")


def test_symlink_refused(cli, acme):
    memory(acme, "extra.md").symlink_to(memory(acme, "brief.md"))
    code, out, err = cli("show", "MC-DEC-20260910-1b2c3d4e")
    assert (code, out) == (2, "") and err.startswith("Error: docs/memory/extra.md:1:1: MA-FILE-SYMLINK Managed memory "
                                                      "path must not be a symlink")
