"""The local overlay is trusted only with private permissions (spec §11.1)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest


def _overlay(acme: Path, state: Path, prefs_mode: int = 0o600) -> Path:
    manifest = (acme / "docs" / "memory" / "manifest.md").read_text(encoding="utf-8")
    project_id = re.search(r"- project_id: (\S+)", manifest).group(1)
    base = state / "memory-custodian" / "projects" / project_id
    local = base / "local"
    (local / "profiles").mkdir(parents=True)
    for d in (state / "memory-custodian", state / "memory-custodian" / "projects", base, local, local / "profiles"):
        d.chmod(0o700)
    files = {
        base / "bindings.json": json.dumps({"project_id": project_id, "roots": [str(acme.resolve())]}),
        local / "manifest.md": f"# Local Memory Overlay\n\n- local_overlay_schema_version: 1\n"
                               f"- project_id: {project_id}\n\n## Preferences\n- preferences.md\n\n## Profiles\n",
        local / "preferences.md": "# Local Preferences\n\n## MC-PREF-20261101-0f0f0f0f — Terse\n\nStatus: active\n"
                                  "Scope: local-user\nEvidence:\n- user-confirmed\n\nPreference:\nKeep answers terse.\n",
    }
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
        path.chmod(0o600)
    (local / "preferences.md").chmod(prefs_mode)
    return local


def test_bound_private_overlay_loads(acme, analyze, tmp_path):
    _overlay(acme, tmp_path / "state")
    run = analyze("read", "--project-root", str(acme), "--task", "general", "--no-cache")
    assert "Local overlay status: BOUND" in run.stdout, run.stdout
    assert "Keep answers terse." in run.stdout


def test_world_readable_local_module_puts_overlay_in_review(acme, analyze, tmp_path):
    _overlay(acme, tmp_path / "state", prefs_mode=0o644)
    run = analyze("read", "--project-root", str(acme), "--task", "general", "--no-cache")
    assert "Local overlay status: REVIEW" in run.stdout, run.stdout
    assert "mode 0600" in run.stdout
    assert "Keep answers terse." not in run.stdout


def test_schema_1_manifest_keeps_overlay_unless_strict(acme, analyze, tmp_path):
    manifest = acme / "docs" / "memory" / "manifest.md"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("entry_schema_version: 2",
                                                                     "entry_schema_version: 1"), encoding="utf-8")
    _overlay(acme, tmp_path / "state")
    plain = analyze("read", "--project-root", str(acme), "--task", "general", "--no-cache")
    assert "Local overlay status: BOUND" in plain.stdout, plain.stdout
    assert "migration to entry schema 2 is available" in plain.stdout
    strict = analyze("read", "--project-root", str(acme), "--task", "general", "--strict-routing", "--no-cache")
    assert "Local overlay status: DISABLED" in strict.stdout
    assert strict.returncode != 0


def test_overlay_without_local_directory(acme, analyze, tmp_path):
    local = _overlay(acme, tmp_path / "state")
    bindings = local.parent / "bindings.json"
    import shutil

    shutil.rmtree(local)
    with_binding = analyze("read", "--project-root", str(acme), "--task", "general", "--no-cache")
    assert "Local overlay status: REVIEW" in with_binding.stdout
    assert "required local directory is missing" in with_binding.stdout
    bindings.unlink()
    nothing = analyze("read", "--project-root", str(acme), "--task", "general", "--no-cache")
    assert "Local overlay status: DISABLED" in nothing.stdout, nothing.stdout


@pytest.mark.parametrize("bindings", [
    "[" * 100000 + "]" * 100000,  # deep: json recursed until RecursionError
    '{"project_id": "%s", "roots": ["/tmp/a\\u0000b"]}',  # NUL: realpath raised ValueError
    '{"project_id": "%s", "roots": ["/tmp/\\ud800"]}',  # a lone surrogate: no path either
    '{"project_id": "%s", "roots": [{"a": [[[[1]]]]}]}',
], ids=["deep", "nul", "surrogate", "object-root"])
def test_a_hostile_binding_file_is_corrupt_not_an_internal_error(acme, analyze, tmp_path, bindings):
    # issue 32: each of these ended in "internal error" (exit 3)
    local = _overlay(acme, tmp_path / "state")
    manifest = (acme / "docs" / "memory" / "manifest.md").read_text(encoding="utf-8")
    project_id = re.search(r"- project_id: (\S+)", manifest).group(1)
    path = local.parent / "bindings.json"
    path.write_text(bindings.replace("%s", project_id), encoding="utf-8")
    path.chmod(0o600)
    run = analyze("read", "--project-root", str(acme), "--task", "general", "--no-cache")
    assert "internal error" not in run.stderr and run.returncode != 3, run.stderr
    assert "Local overlay status: REVIEW" in run.stdout, run.stdout
    assert "Local overlay binding file is corrupt." in run.stdout
