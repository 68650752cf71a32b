"""The two real memory projects of ../shared/realworld, and the bundled example (which runs
where ../shared is absent), run cleanly through the index and Subject commands: every listed
unit can be shown, every Subject pair can be previewed."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from helpers import Cli
from shared_reference import REALWORLD, tree_params

REPO = Path(__file__).resolve().parents[2]
TREES = {"acme-shop": REPO / "examples" / "acme-shop",
         "memorycustodian-dogfood": REALWORLD / "memorycustodian-dogfood",
         "nightnotes-video-demo": REALWORLD / "nightnotes-video-demo"}


def _tree(root: Path):
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", tree_params(TREES))
def test_real_project_indexes_cleanly(name, tmp_path):
    if not TREES[name].is_dir():
        pytest.skip("../shared/realworld is not available")
    root = tmp_path / name
    shutil.copytree(TREES[name], root)
    before = _tree(root)
    cli = Cli(tmp_path, root)
    code, data, err = cli.json("list", "--include-archive")
    assert code == 0, err
    assert data["entries"], "a real project lists something"
    code, out, _ = cli("list")
    assert code == 0 and out.startswith("Canonical memory entries:\n")
    # every kind of row can be shown (the first of each kind, to keep the test quick)
    firsts = {}
    for row in data["entries"]:
        firsts.setdefault(row["kind"], row)
    for row in firsts.values():
        code, out, err = cli("show", row["id"], "--include-archive")
        assert code == 0, err
        assert out.startswith(f"Source: {row['source']}\n")
    code, subjects, err = cli.json("subject", "list")
    assert code == 0, err
    ids = [s["id"] for s in subjects["subjects"]]
    if len(ids) >= 2:
        code, preview, err = cli.json("subject", "merge", ids[0], "--into", ids[1])
        assert code == 0, err
        assert preview["status"] in ("READY", "BLOCKED") and len(preview["plan_id"]) == 16
    assert _tree(root) == before
