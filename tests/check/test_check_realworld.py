"""The two real memory projects of ../shared/realworld and the bundled example (which runs
where ../shared is absent): every check family runs and exits 0 or reports what it finds, and
`check --all` agrees with the per-family runs."""

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
FAMILIES = ["routing", "reachability", "freshness", "conflicts"]
SCANS = ["security", "privacy", "hidden-text"]


@pytest.mark.parametrize("name", tree_params(TREES))
def test_every_family_runs_and_all_agrees(name, analyze, tmp_path):
    if not TREES[name].is_dir():
        pytest.skip("../shared/realworld is not available")
    root = tmp_path / name
    shutil.copytree(TREES[name], root)
    single = {}
    for family in FAMILIES:
        run = analyze("check", f"--{family}", "--project-root", str(root), "--format", "json")
        assert "Traceback" not in run.stderr
        data = json.loads(run.stdout)
        assert run.returncode == data["exit_code"] in (0, 1)
        # a failing family says why: an ERROR finding or a blocking conflict status
        if run.returncode:
            assert data["findings"], data
        single[family] = (data, analyze("check", f"--{family}", "--project-root", str(root)).stdout)
    together = json.loads(analyze("check", "--all", "--project-root", str(root), "--format", "json").stdout)
    # the scan families (no flag of their own): these trees hold no secret, no privacy match
    # and no hidden text
    assert {f: together["families"].pop(f) for f in SCANS} == {f: {"status": "OK", "exit_code": 0} for f in SCANS}
    # `--all` also runs the plain check's lines (family legacy, without the scans: they are
    # families of their own); tests/check/test_check_legacy.py holds its golden text
    legacy = together["families"].pop("legacy")
    # the agents family closes --all (tests/agents/ holds what it finds on these trees)
    agents = analyze("check", "--agents", "--project-root", str(root), "--format", "json")
    agents_data = json.loads(agents.stdout)
    assert together["families"].pop("agents") == agents_data["families"]["agents"]
    together["findings"] = [x for x in together["findings"] if x["family"] != "agents"]
    assert together["families"] == {f: single[f][0]["families"][f] for f in FAMILIES}
    assert [x for x in together["findings"] if x["family"] != "legacy"] == [
        x for f in FAMILIES for x in single[f][0]["findings"]]
    assert together["exit_code"] == max([single[f][0]["exit_code"] for f in FAMILIES] + [legacy["exit_code"],
                                                                                         agents_data["exit_code"]])
    text = analyze("check", "--all", "--project-root", str(root)).stdout
    scans = "".join(f"\nMemoryCustodian {name} check: OK\n- no findings\n" for name in SCANS)
    assert text.startswith("\n".join(single[f][1] for f in FAMILIES) + "\nMemoryCustodian check: ")
    assert text.endswith(scans + "\n" + analyze("check", "--agents", "--project-root", str(root)).stdout)
