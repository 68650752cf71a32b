"""The two real memory projects of ../shared/realworld read cleanly for every task; so does the
bundled example (examples/acme-shop), which runs where ../shared is absent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from shared_reference import REALWORLD, tree_params

REPO = Path(__file__).resolve().parents[2]
TREES = {"acme-shop": REPO / "examples" / "acme-shop",
         "memorycustodian-dogfood": REALWORLD / "memorycustodian-dogfood",
         "nightnotes-video-demo": REALWORLD / "nightnotes-video-demo"}
TASKS = ["general", "planning", "implementation", "artifact", "preferences", "history", "maintenance"]


@pytest.mark.parametrize("name", tree_params(TREES))
def test_real_project_reads_cleanly_for_every_task(name, analyze, tmp_path):
    if not TREES[name].is_dir():
        pytest.skip("../shared/realworld is not available")
    root = tmp_path / name
    shutil.copytree(TREES[name], root)
    for task in TASKS:
        # the example routes areas by path: a path it touches makes routing complete
        paths = ["--path", "web/src/cart.ts"] if name == "acme-shop" else []
        run = analyze("read", "--project-root", str(root), "--task", task, "--format", "json", "--no-local", *paths)
        # the example holds a conflict on purpose (constraints.md's invalid Evidence): conflict
        # status INVALID, exit 2; the real trees are CLEAR
        clear, status = ("INVALID", 2) if name == "acme-shop" else ("CLEAR", 0)
        assert run.returncode == status, (task, run.stderr)
        data = json.loads(run.stdout)
        assert data["routing_completeness"] == "COMPLETE", (task, data["warnings"])
        assert data["conflict_status"] == clear, (task, data["conflict_findings"])
        loaded = [m["path"] for m in data["modules"] if m["disposition"] == "loaded"]
        assert loaded[:2] == ["brief.md", "constraints.md"]
        assert ("inbox.md" in loaded) == (task == "maintenance")
