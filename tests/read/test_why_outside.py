"""analyze why MODULE answers for every module the project has, not only those in the result."""

from __future__ import annotations

import json

import pytest

TASK = ("--task", "implementation", "--path", "web/src/cart.ts", "--no-local")


def _orphan(root):
    (root / "docs/memory/orphan.md").write_text("# Orphan\n\nNobody routes me.\n", encoding="utf-8")
    return "orphan.md", "not-named", "no route of the manifest names it"


def _absent_route_file(root):
    (root / "docs/memory/changelog.md").unlink()
    return "changelog.md", "other-task", "named by the route of task history, not by the route of task " \
                                         "implementation; the file is absent on disk"


def _inbox(root):
    return "inbox.md", "policy-exclusion", "inbox.md: candidate/maintenance-only"


def _archive(root):
    return "archive/decisions-2026-08.md", "policy-exclusion", "archive/: explicit maintenance only"


def _registry(root):
    return "subjects.md", "not-a-module", "subjects.md is the Subject registry"


CASES = {"orphan": _orphan, "absent-route-file": _absent_route_file, "inbox": _inbox, "archive": _archive,
         "registry": _registry}


@pytest.mark.parametrize("case", sorted(CASES))
def test_module_outside_the_result_in_text(acme, analyze, case):
    module, kind, text = CASES[case](acme)
    proc = analyze("why", module, "--project-root", str(acme), *TASK)
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith(f"{module}: not-in-result ({kind}: ") and text in first
    assert f'outside_reason("{module}"' in proc.stdout and "(rules/read/outside.dl:" in proc.stdout


@pytest.mark.parametrize("case", sorted(CASES))
def test_module_outside_the_result_in_json(acme, analyze, case):
    module, kind, text = CASES[case](acme)
    proc = analyze("why", module, "--project-root", str(acme), *TASK, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["status"], doc["module"], doc["disposition"], doc["primary_reason"]) == \
        ("PROVED", module, "not-in-result", kind)
    assert doc["proofs"][0]["relation"] == "outside_reason" and text in doc["proofs"][0]["tuple"][3]


def test_inbox_routed_by_maintenance_is_in_the_result(acme, analyze):
    proc = analyze("why", "inbox.md", "--project-root", str(acme), "--task", "maintenance", "--no-local")
    assert proc.returncode == 0 and proc.stdout.startswith("inbox.md loaded (MC-ROUTE-TASK): routed for task maintenance")


def test_invalid_routing_explains_every_other_module(acme, analyze):
    proc = analyze("why", "brief.md", "--project-root", str(acme), "--task", "implementation", "--path", "/abs",
                   "--no-local", "--format", "json")
    doc = json.loads(proc.stdout)
    assert (doc["disposition"], doc["primary_reason"]) == ("not-in-result", "invalid-routing")
    manifest = json.loads(analyze("why", "manifest.md", "--project-root", str(acme), "--task", "implementation",
                                  "--path", "/abs", "--no-local", "--format", "json").stdout)
    assert (manifest["disposition"], manifest["primary_reason"]) == ("invalid", "MC-ROUTE-INVALID")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_module_the_project_does_not_have_is_an_error(acme, analyze, fmt):
    proc = analyze("why", "nope.md", "--project-root", str(acme), *TASK, "--format", fmt)
    assert proc.returncode == 2
    assert "the project has no module 'nope.md'" in proc.stderr and "inbox.md" in proc.stderr
    if fmt == "json":
        assert json.loads(proc.stdout)["schema"]["name"] == "why.error"
    else:
        assert proc.stdout == ""
