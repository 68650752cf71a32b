"""The firing corpus: every implemented code fires in its ``fires`` case and not in its ``quiet`` one.

Each case under ``tests/corpus/<CODE>/<fires|quiet>/`` is a small project (see
corpus_project.py) read once by ``analyze read --format json`` (the CLI run in this process,
tests/inprocess.py) with a private XDG_CACHE_HOME and XDG_STATE_HOME. The contract test ties
the folders to the catalogue: an implemented code without a corpus folder, or a folder for a code that is not
implemented, fails the build, and so does a rule that stops firing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Dict, Set

import pytest

from analyzer.contract import catalog
import inprocess
from corpus_history import write_steps
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
    env.update(XDG_CACHE_HOME=str(work / "cache"), XDG_STATE_HOME=str(work / "state"))
    env = write_history(case, root, env)
    env = write_steps(case, root, env)
    request = read_json(case, "request.json")
    argv, command, form = request["argv"], request.get("command", "read"), request.get("format", "json")
    run = inprocess.run([command, *argv, "--format", form, "--no-cache", "--project-root", str(root)], env=env)
    try:
        return json.loads(run.stdout)
    except ValueError:
        return {"error": f"exit {run.returncode}, no JSON: {run.stderr[-2000:]}"}


@pytest.fixture(scope="module")
def results(request, tmp_path_factory) -> Dict[str, Dict[str, object]]:
    """The JSON result of every selected case, each read by the CLI in this process
    (tests/inprocess.py: a process per case cost about 0.2 s of CPU, most of this module's)."""
    selected = sorted({item.callspec.params["case"] for item in request.session.items
                       if getattr(item, "function", None) is test_case}, key=str)
    base = tmp_path_factory.mktemp("corpus")
    return {_case_id(case): _run(case, base / _case_id(case).replace("/", "-")) for case in selected}


def produced(result: Dict[str, object]) -> Set[str]:
    """Every code and value a result shows: module reasons, budget omissions, conflict
    finding codes, check, restore and merge review finding codes, SARIF results (diff and
    check --autonomy name their classes and findings there), routing completeness and local
    overlay status."""
    codes = {reason for module in result.get("modules", []) for reason in module["reasons"]}
    codes |= set(located(result))
    codes |= {finding["code"] for finding in result.get("findings", [])}
    codes |= {"MC-OMIT-BUDGET" for _ in result.get("budget_omissions", [])[:1]}
    codes |= {finding["code"] for finding in result.get("conflict_findings", [])}
    codes |= {finding["code"] for finding in (result.get("merge") or {}).get("findings", [])}
    return codes | {result[field] for field in VALUE_FIELDS.values() if result.get(field)}


def located(result: Dict[str, object]) -> Dict[str, Set[str]]:
    """code -> the ``path:line`` of every place a result locates it at: a JSON finding's
    ``locations``, a SARIF result's physical locations (a code of an unlocated finding
    maps to no place)."""
    found: Dict[str, Set[str]] = {}
    for finding in result.get("findings", []):
        places = found.setdefault(finding["code"], set())
        places |= {f"{at['path']}:{at['line']}" for at in finding.get("locations") or ()}
    for run in result.get("runs", []):
        for sarif in run.get("results", []):
            places = found.setdefault(sarif["ruleId"], set())
            for at in sarif.get("locations", []):
                where = at["physicalLocation"]
                places.add(f"{where['artifactLocation']['uri']}:{where.get('region', {}).get('startLine', 0)}")
    return found


def expected_places(case: Path) -> Set[str]:
    """The ``path:line`` places of ``where.txt`` (none when the case has no such file)."""
    path = case / "where.txt"
    return {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()} \
        if path.is_file() else set()


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_case(case: Path, results):
    """A ``fires`` case produces its folder's code, at exactly the ``path:line`` places its
    ``where.txt`` lists (a code the result locates needs that file; one it does not locate,
    such as a module's route reason, has none); a ``quiet`` case does not produce it."""
    result, code = results[_case_id(case)], case.parent.name
    assert any(key in result for key in ("modules", "families", "runs", "findings")), result.get("error")
    shown = sorted(produced(result))
    if case.name == "fires":
        assert code in shown, f"{code} did not fire; the result produced {shown}"
        assert located(result).get(code, set()) == expected_places(case), f"{code} is located elsewhere"
    else:
        assert code not in shown, f"{code} fired in its quiet case; the result produced {shown}"


# MA- codes with a corpus: the plain legacy check's, the reachability check's stray file, the
# agents', the scans' (security, privacy, hidden text: `check --all` locates them), and the
# history commands' (diff classes and blind spots, check --autonomy, restore), whose cases
# are commit steps (corpus_history.py)
MA_RULE_FILES = ("rules/check/legacy.dl", "rules/check/reach.dl", "rules/agents/findings.dl",
                 "rules/check/scan.dl", "rules/check/hidden.dl")
MA_RULE_FOLDERS = ("rules/diff/", "rules/autonomy/", "rules/restore/")


def implemented_codes() -> Set[str]:
    """The catalogue's codes that rules derive: MC- codes and completeness/status values, and
    the MA- codes of :data:`MA_RULE_FILES` and :data:`MA_RULE_FOLDERS`."""
    return {entry.code for entry in catalog.load().entries
            if not entry.reserved and (entry.code.startswith("MC-") or entry.kind in VALUE_FIELDS
                                       or entry.rule_file in MA_RULE_FILES
                                       or entry.rule_file.startswith(MA_RULE_FOLDERS))}


def test_corpus_covers_exactly_the_implemented_codes():
    """One corpus folder per implemented code, and none for other names."""
    assert set(CODES) == implemented_codes()


def test_catalogue_lists_each_corpus_folder_as_a_fixture():
    """docs/findings.md and `analyze explain` name tests/corpus/<CODE> for every implemented code."""
    implemented = implemented_codes()  # once: per entry it loaded the catalogue again (quadratic, ~3 s)
    unlisted = [e.code for e in catalog.load(root=REPO).entries
                if e.code in implemented and f"tests/corpus/{e.code}" not in e.fixtures]
    assert unlisted == []


@pytest.mark.parametrize("code", CODES)
def test_every_code_has_both_cases(code: str):
    """A code's folder holds a firing and a quiet case, each with a request."""
    for outcome in OUTCOMES:
        assert (CORPUS / code / outcome / "request.json").is_file(), f"{code}/{outcome}/request.json is missing"
