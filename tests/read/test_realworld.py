"""The two real memory projects of ../shared/realworld read cleanly for every task."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "realworld"
PROJECTS = ["memorycustodian-dogfood", "nightnotes-video-demo"]
TASKS = ["general", "planning", "implementation", "artifact", "preferences", "history", "maintenance"]


@pytest.mark.skipif(not REALWORLD.is_dir(), reason="../shared/realworld is not available")
@pytest.mark.parametrize("name", PROJECTS)
def test_real_project_reads_cleanly_for_every_task(name, analyze, tmp_path):
    root = tmp_path / name
    shutil.copytree(REALWORLD / name, root)
    for task in TASKS:
        run = analyze("read", "--project-root", str(root), "--task", task, "--format", "json", "--no-local")
        assert run.returncode == 0, (task, run.stderr)
        data = json.loads(run.stdout)
        assert data["routing_completeness"] == "COMPLETE", (task, data["warnings"])
        assert data["conflict_status"] == "CLEAR", (task, data["conflict_findings"])
        loaded = [m["path"] for m in data["modules"] if m["disposition"] == "loaded"]
        assert loaded[:2] == ["brief.md", "constraints.md"]
        assert ("inbox.md" in loaded) == (task == "maintenance")
