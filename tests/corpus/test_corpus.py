"""The firing corpus: every implemented code fires in its ``fires`` case and not in its ``quiet`` one.

Each case under ``tests/corpus/<CODE>/<fires|quiet>/`` is a small project (see
corpus_project.py) read once by ``python -m analyzer read --format json`` in a subprocess with
a private XDG_CACHE_HOME and XDG_STATE_HOME. The contract test ties the folders to the
catalogue: an implemented code without a corpus folder, or a folder for a code that is not
implemented, fails the build, and so does a rule that stops firing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, Set

import pytest

from analyzer.contract import catalog
from corpus_project import CORPUS, OUTCOMES, build_project, cases, read_json, write_history, write_overlay

REPO = CORPUS.parents[1]
CASES = cases()
# The catalogue finds the corpus folders the same way when it lists a code's fixtures.
CODES = sorted(catalog.corpus_folders(REPO))
# Completeness and overlay status values are covered too; conflict statuses are not codes here.
VALUE_FIELDS = {"completeness": "routing_completeness", "status": "local_overlay_status"}


def _case_id(case: Path) -> str:
    return f"{case.parent.name}/{case.name}"


def _run(case: Path, work: Path) -> Dict[str, object]:
    """Build the case's project in ``work`` and read it; the parsed JSON result."""
    root = build_project(case, work / "project")
    write_overlay(case, work / "state", root)
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(XDG_CACHE_HOME=str(work / "cache"), XDG_STATE_HOME=str(work / "state"), PYTHONPATH=str(REPO))
    env = write_history(case, root, env)
    request = read_json(case, "request.json")
    argv, command = request["argv"], request.get("command", "read")
    run = subprocess.run([sys.executable, "-m", "analyzer", command, *argv, "--format", "json", "--no-cache",
                          "--project-root", str(root)], capture_output=True, text=True, env=env, timeout=120)
    try:
        return json.loads(run.stdout)
    except ValueError:
        return {"error": f"exit {run.returncode}, no JSON: {run.stderr[-2000:]}"}


@pytest.fixture(scope="module")
def results(request, tmp_path_factory) -> Dict[str, Dict[str, object]]:
    """The JSON result of every selected case, read in parallel (one subprocess per case)."""
    selected = sorted({item.callspec.params["case"] for item in request.session.items
                       if getattr(item, "function", None) is test_case}, key=str)
    base = tmp_path_factory.mktemp("corpus")
    work = {case: base / _case_id(case).replace("/", "-") for case in selected}
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        found = pool.map(lambda case: _run(case, work[case]), selected)
        return {_case_id(case): result for case, result in zip(selected, found)}


def produced(result: Dict[str, object]) -> Set[str]:
    """Every code and value a read or check result shows: module reasons, budget omissions,
    conflict finding codes, check and merge review finding codes, routing completeness and
    local overlay status."""
    codes = {reason for module in result.get("modules", []) for reason in module["reasons"]}
    codes |= {finding["code"] for finding in result.get("findings", [])}
    codes |= {"MC-OMIT-BUDGET" for _ in result.get("budget_omissions", [])[:1]}
    codes |= {finding["code"] for finding in result.get("conflict_findings", [])}
    codes |= {finding["code"] for finding in (result.get("merge") or {}).get("findings", [])}
    return codes | {result[field] for field in VALUE_FIELDS.values() if result.get(field)}


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_case(case: Path, results):
    """A ``fires`` case produces its folder's code; a ``quiet`` case does not."""
    result, code = results[_case_id(case)], case.parent.name
    assert "modules" in result or "families" in result, result.get("error")
    shown = sorted(produced(result))
    if case.name == "fires":
        assert code in shown, f"{code} did not fire; the read produced {shown}"
    else:
        assert code not in shown, f"{code} fired in its quiet case; the read produced {shown}"


def implemented_codes() -> Set[str]:
    """The catalogue's codes that rules derive: MC- codes and completeness/status values, and
    the plain legacy check's MA-LEGACY codes (rules/check/legacy.dl; the corpus runs `check`)."""
    return {entry.code for entry in catalog.load().entries
            if not entry.reserved and (entry.code.startswith("MC-") or entry.kind in VALUE_FIELDS
                                       or entry.rule_file == "rules/check/legacy.dl")}


def test_corpus_covers_exactly_the_implemented_codes():
    """One corpus folder per implemented code, and none for other names."""
    assert set(CODES) == implemented_codes()


def test_catalogue_lists_each_corpus_folder_as_a_fixture():
    """docs/findings.md and `analyze explain` name tests/corpus/<CODE> for every implemented code."""
    unlisted = [e.code for e in catalog.load(root=REPO).entries
                if e.code in implemented_codes() and f"tests/corpus/{e.code}" not in e.fixtures]
    assert unlisted == []


@pytest.mark.parametrize("code", CODES)
def test_every_code_has_both_cases(code: str):
    """A code's folder holds a firing and a quiet case, each with a request."""
    for outcome in OUTCOMES:
        assert (CORPUS / code / outcome / "request.json").is_file(), f"{code}/{outcome}/request.json is missing"
