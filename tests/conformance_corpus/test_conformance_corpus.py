"""Our executable conformance corpus: every behaviour of the protocol's scenarios, on our own
projects, run without ../shared (cases.py holds the cases; README.md maps them to scenarios)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import routing_cases  # noqa: F401  (each module registers its cases in cases.CASES)
import conflict_cases  # noqa: F401
import misc_cases  # noqa: F401
from cases import CASES
from runner import build, environment, json_of, run, snapshot
from shared_reference import SHARED, cross_check

BY_ID = {c["id"]: c for c in CASES}
SCENARIOS = SHARED / "spec" / "scenarios.jsonl"
# Scenarios whose behaviour is covered by a dedicated unit test instead of a CLI case.
COVERED_ELSEWHERE = {"glob_dialect_unit_cases": "tests/engine_frontend/test_dl_glob.py"}


def outcome(cid: str, tmp_path: Path, monkeypatch):
    """The text run and the parsed JSON run of case ``cid``."""
    spec = BY_ID[cid]
    work = tmp_path / cid
    work.mkdir()
    root = build(spec, work)
    env = environment(spec, root, work)
    before = snapshot(root)
    text = run(spec["argv"], root, env, monkeypatch)
    data = json_of(run([*spec["argv"], "--format", "json"], root, env, monkeypatch))
    assert snapshot(root) == before, "the analyzer wrote into the project it analyzed"
    return text, data


def codes(data: dict) -> set:
    """Every finding code a read or check JSON document shows."""
    found = {r for m in data.get("modules", []) for r in m.get("reasons", [])}
    for key in ("findings", "conflict_findings"):
        found |= {f.get("code") for f in data.get(key, [])}
    found |= {f.get("code") for f in (data.get("merge") or {}).get("findings", [])}
    for family in data.get("families", []) or []:
        found |= {f.get("code") for f in family.get("findings", [])} if isinstance(family, dict) else set()
    return found


@pytest.mark.cli
@pytest.mark.parametrize("cid", sorted(BY_ID))
def test_case(cid, tmp_path, monkeypatch):
    """The case's command answers as the protocol says: status, exit code, key lines."""
    spec = BY_ID[cid]
    text, data = outcome(cid, tmp_path, monkeypatch)
    shown = f"exit {text.exit_code}\n--- stdout\n{text.stdout}\n--- stderr\n{text.stderr}"
    want = spec.get("exit", 0)
    if want == "nonzero":
        assert text.exit_code != 0, shown
    else:
        assert text.exit_code == want, shown
    for line in spec.get("out", ()):
        assert line in text.stdout, f"{line!r} not in stdout\n{shown}"
    for line in spec.get("not_out", ()):
        assert line not in text.stdout, f"{line!r} in stdout\n{shown}"
    for line in spec.get("err", ()):
        assert line in text.stderr, f"{line!r} not in stderr\n{shown}"
    for line in spec.get("any_out", ()):
        assert line in text.stdout + text.stderr, f"{line!r} in neither stream\n{shown}"
    if not any(k in spec for k in ("fields", "loaded", "dispositions", "reasons", "codes")):
        return
    assert data is not None, f"--format json printed no JSON\n{shown}"
    for key, value in spec.get("fields", {}).items():
        assert data.get(key) == value, f"{key}: {data.get(key)!r} != {value!r}"
    modules = {m["path"]: m for m in data.get("modules", [])}
    if "loaded" in spec:
        assert [m["path"] for m in data["modules"] if m["disposition"] == "loaded"] == spec["loaded"]
    for path, disposition in spec.get("dispositions", {}).items():
        assert modules[path]["disposition"] == disposition, modules.get(path)
    for path, reason in spec.get("reasons", {}).items():
        assert reason in modules[path]["reasons"], modules.get(path)
    missing = set(spec.get("codes", ())) - codes(data)
    assert not missing, f"codes {sorted(missing)} not shown; shown {sorted(codes(data))}"


@pytest.mark.cli
@pytest.mark.parametrize("cid", sorted(c["id"] for c in CASES if c.get("same_as")))
def test_same_output(cid, tmp_path, monkeypatch):
    """Two requests that mean the same answer byte for byte the same."""
    twin = BY_ID[cid]["same_as"]
    mine = outcome(cid, tmp_path, monkeypatch)[0].stdout.replace(str(tmp_path / cid), "<work>")
    other = outcome(twin, tmp_path, monkeypatch)[0].stdout.replace(str(tmp_path / twin), "<work>")
    assert mine == other


def test_every_case_names_what_it_covers():
    """Every case says which behaviour and which scenarios it stands for, under a unique id."""
    assert len(BY_ID) == len(CASES)
    assert all(c["covers"] and c["scenarios"] for c in CASES)


def test_readme_lists_every_case():
    """README.md's table has a row per case."""
    readme = (Path(__file__).parent / "README.md").read_text(encoding="utf-8")
    assert [c["id"] for c in CASES if f"`{c['id']}`" not in readme] == []


@cross_check
def test_every_protocol_scenario_is_covered():
    """Each scenario of the protocol is covered by at least one of our cases (or a named unit test)."""
    names = [json.loads(line)["name"] for line in SCENARIOS.read_text(encoding="utf-8").splitlines() if line.strip()]
    covered = {s for c in CASES for s in c["scenarios"]} | set(COVERED_ELSEWHERE)
    assert [n for n in names if n not in covered] == []
