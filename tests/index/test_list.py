"""`analyze list` (spec §9.7): what the index holds, the filters, and every refusal."""

from __future__ import annotations

import os

import pytest

from helpers import append, entry, memory, overlay, write

PREF = entry("MC-PREF-20260801-0e0e0e0e", "Local preference", scope="local-user", body="Preference")


def _ids(out: str):
    return [line[2:].split(" ", 1)[0] for line in out.splitlines()[1:]]


def test_lists_live_entries_legacy_units_and_records_sorted(cli):
    code, out, err = cli("list")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Canonical memory entries:"
    assert "- areas/infra.md#unit-1 [legacy; area:infra] areas/infra.md" in lines
    assert "- changelog.md#unit-1 [legacy; project] changelog.md" in lines
    assert "- MC-DEC-20260910-1b2c3d4e [active; project] decisions.md" in lines
    assert "- MC-DEC-20260905-2c3d4e5f [superseded; project] decisions.md" in lines
    assert "- MC-INBOX-20260912-718293a4 [candidate; area:search] inbox.md" in lines
    ids = _ids(out)
    assert ids == sorted(ids, key=str.casefold)
    # brief.md, manifest, registry and archive contribute nothing by default
    assert not [i for i in ids if i.startswith(("brief.md", "subjects.md", "manifest.md", "MC-SUBJ"))]
    assert "archive/" not in out


def test_invalid_record_is_listed_as_invalid_and_valid_as_written(cli, acme):
    _, out, _ = cli("list")
    assert "- MC-REC-20260911-8293a4b5 [INVALID; project] reconciliations.md" in out.splitlines()
    append(acme, "reconciliations.md", "\n## MC-REC-20260912-aaaaaaaa — Broken\n\nStatus: active\n")
    _, out, _ = cli("list")
    assert "- MC-REC-20260912-aaaaaaaa [INVALID; project] reconciliations.md" in out.splitlines()
    assert "reconciliations.md#unit-" not in out


def test_include_archive(cli):
    _, plain, _ = cli("list")
    _, out, _ = cli("list", "--include-archive")
    assert "- MC-DEC-20260801-d7e8f90a [superseded; project] archive/decisions-2026-08.md" in out.splitlines()
    assert set(plain.splitlines()) < set(out.splitlines())


def test_status_and_scope_filters_are_exact(cli):
    _, out, _ = cli("list", "--status", "legacy", "--scope", "area:infra")
    assert out == "Canonical memory entries:\n- areas/infra.md#unit-1 [legacy; area:infra] areas/infra.md\n"
    _, out, _ = cli("list", "--status", "Active")
    assert out == "Canonical memory entries:\n- none\n"
    code, data, _ = cli.json("list", "--status", "superseded")
    assert code == 0 and [e["id"] for e in data["entries"]] == ["MC-DEC-20260905-2c3d4e5f"]
    assert data["filters"] == {"status": "superseded", "scope": None, "include_archive": False, "local": False}


def test_json_rows_carry_kind_and_location(cli):
    code, data, _ = cli.json("list")
    assert code == 0 and data["ok"] and data["status"] == "OK" and data["exit_code"] == 0
    assert data["schema"] == {"name": "list.result", "version": 1}
    rows = {e["id"]: e for e in data["entries"]}
    assert rows["MC-DEC-20260910-1b2c3d4e"]["locations"] == [{"path": "docs/memory/decisions.md", "line": 5, "col": 1}]
    assert rows["MC-REC-20260911-8293a4b5"]["kind"] == "record"
    assert rows["MC-REC-20260911-8293a4b5"]["locations"][0] == {"path": "docs/memory/reconciliations.md",
                                                                "line": 3, "col": 1}
    assert rows["changelog.md#unit-1"]["kind"] == "legacy"


def test_duplicate_id_refuses_lookup(cli, acme):
    append(acme, "constraints.md", entry("MC-DEC-20260910-1B2C3D4E", body="Constraint"))
    code, out, err = cli("list")
    assert (code, out) == (2, "")
    assert err.strip() == "Error: Duplicate Entry ID MC-DEC-20260910-1B2C3D4E; canonical lookup is unsafe."
    code, data, _ = cli.json("list")
    assert code == 2 and data["ok"] is False and data["status"] == "INVALID" and data["exit_code"] == 2
    assert data["schema"]["name"] == "list.error"
    assert sorted(d["path"] for d in data["diagnostics"]) == ["docs/memory/constraints.md", "docs/memory/decisions.md"]
    assert {d["code"] for d in data["diagnostics"]} == {"MA-INDEX-DUPLICATE"}


def test_archive_duplicate_counts_only_when_archive_is_indexed(cli, acme):
    append(acme, "archive/decisions-2026-08.md", entry("MC-DEC-20260910-1b2c3d4e"))
    assert cli("list")[0] == 0
    code, _, err = cli("list", "--include-archive")
    assert code == 2 and "Duplicate Entry ID MC-DEC-20260910-1b2c3d4e" in err


def test_managed_symlink_is_refused(cli, acme):
    os.symlink(memory(acme, "decisions.md"), memory(acme, "linked.md"))
    code, out, err = cli("list")
    assert (code, out) == (2, "")
    # read's shape (docs/decisions.md, "Every command fails closed")
    assert err.strip() == "Error: docs/memory/linked.md:1:1: MA-FILE-SYMLINK Managed memory path must not be a symlink"
    code, data, _ = cli.json("list")
    assert code == 2 and data["diagnostics"][0]["path"] == "docs/memory/linked.md"


def test_undecodable_file_is_refused(cli, acme):
    memory(acme, "decisions.md").write_bytes(b"# Decisions\n\xff\xfe broken\n")
    code, out, err = cli("list")
    assert (code, out) == (2, "")
    assert err.startswith("Error: docs/memory/decisions.md:2:1: MA-FILE-ENCODING ") and "Traceback" not in err


def test_missing_memory_dir(cli, acme):
    code, out, err = cli("list", "--memory-dir", "docs/nowhere")
    # the path as check words it (the root as given, then the dir), not only "docs/nowhere"
    assert (code, out, err.strip()) == (1, "", f"Memory directory missing: {acme}/docs/nowhere")
    check = cli("check", "--memory-dir", "docs/nowhere")
    assert check[0] == 1 and (check[1] + check[2]).strip() == err.strip()
    code, data, _ = cli.json("list", "--memory-dir", "docs/nowhere")
    assert code == 1 and data["status"] == "FAILED" and data["exit_code"] == 1


def test_local_entries_only_with_local_and_bound(cli, acme):
    overlay(cli.state, acme, PREF)
    _, out, _ = cli("list")
    assert "MC-PREF-20260801-0e0e0e0e" not in out
    code, out, err = cli("list", "--local")
    assert code == 0, err
    assert "- MC-PREF-20260801-0e0e0e0e [active; local-user] local/preferences.md" in out.splitlines()
    code, data, _ = cli.json("list", "--local", "--scope", "local-user")
    assert data["local_overlay_status"] == "BOUND"
    [row] = data["entries"]
    assert row["kind"] == "local" and row["locations"][0]["path"].endswith("/local/preferences.md")


def test_local_without_overlay_lists_shared_only(cli):
    _, plain, _ = cli("list")
    code, out, _ = cli("list", "--local")
    assert (code, out) == (0, plain)


def test_unbound_overlay_is_refused_with_local(cli, acme, tmp_path):
    overlay(cli.state, acme, PREF, roots=[os.path.realpath(tmp_path)])
    assert cli("list")[0] == 0
    code, out, err = cli("list", "--local")
    assert (code, out) == (2, "")
    assert err.startswith("Error: Local overlay is not bound to this project root")


@pytest.mark.parametrize("case", ["multi-root", "invalid-entry"])
def test_review_overlay_is_refused_with_local(cli, acme, tmp_path, case):
    if case == "multi-root":
        overlay(cli.state, acme, PREF, roots=[os.path.realpath(tmp_path), os.path.realpath(acme)])
    else:
        overlay(cli.state, acme, PREF.replace("local-user", "project"))
    code, out, err = cli("list", "--local")
    assert (code, out) == (2, "")
    assert err.startswith("Error: Local overlay status is REVIEW; --local lookup is refused: ")
    code, data, _ = cli.json("list", "--local")
    assert code == 2 and data["diagnostics"][0]["code"] == "MA-INDEX-LOCAL"


def test_local_refused_when_contract_invalid(cli, acme):
    path = memory(acme, "manifest.md")
    path.write_text(path.read_text(encoding="utf-8").replace("- protocol_version: 0.7", "- protocol_version: 0.8"),
                    encoding="utf-8")
    code, _, err = cli("list", "--local")
    assert code == 2 and "cannot be located" in err
    assert cli("list")[0] == 0


def test_legacy_units_of_a_new_project(tmp_path, cli):
    root = tmp_path / "small"
    for rel in ("manifest.md", "subjects.md"):
        write(root, rel, memory(cli.root, rel).read_text(encoding="utf-8"))
    write(root, "constraints.md", "# Constraints\n\n- Keep the CLI dependency-free.\n\nSome prose.\n\n- Second bullet.\n")
    write(root, "areas/web.md", "# Web\n\n## Notes\n\nText.\n")
    code, out, _ = cli("list", root=root)
    assert code == 0
    assert "- constraints.md#unit-1 [legacy; project] constraints.md" in out
    assert "- constraints.md#unit-2 [legacy; project] constraints.md" in out
    assert "- areas/web.md#unit-1 [legacy; area:web] areas/web.md" in out


def test_deterministic_across_seeds_and_caches(cli, acme):
    runs = {cli("list", "--include-archive", seed=seed, cache=cache)[1]
            for seed, cache in (("0", "a"), ("1", "a"), ("77", "b"))}
    runs.add(cli("list", "--include-archive", "--no-cache", seed="5")[1])
    assert len(runs) == 1
