"""Fixtures of the fleet tests: the SQL back end's optional dependencies (the ``[fleet]``
extra) and a fleet built from the rule corpus, the bundled example and the real-world trees."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REALWORLD = REPO.parent / "shared" / "realworld"


def _check_inputs(prepared):
    """What a fleet evaluation of ``check --all`` takes: the check program, the relations its
    families select, and each prepared repository's facts restricted to what the program needs."""
    from analyzer.query.check import check_program
    from analyzer.query.check_families import FAMILIES, ORDER

    engine = check_program(False)
    only = sorted({rel for name in ORDER for rel in FAMILIES[name].relations})
    facts = [{rel: rows for rel, rows in p.facts.items() if rel in p.needed} for p in prepared]
    return engine, only, facts


@pytest.fixture
def check_inputs():
    """:func:`_check_inputs`, for the tests that evaluate a fleet beside the native engine."""
    return _check_inputs


def corpus_fleet(root: Path):
    """Every corpus case's project under ``root`` (one directory each), the bundled example
    and the real-world trees that are present: the fleet's repository paths."""
    sys.path.insert(0, str(REPO / "tests" / "corpus"))
    import corpus_project

    paths = []
    for case in corpus_project.cases():
        if (case / "git.json").exists():
            continue  # two-sided histories are the merge review's (not part of check --all)
        target = root / f"{case.parent.name}-{case.name}"
        corpus_project.build_project(case, target)
        paths.append(str(target))
    example = root / "acme-shop"
    shutil.copytree(REPO / "examples" / "acme-shop", example)
    paths.append(str(example))
    if REALWORLD.is_dir():
        for tree in sorted(REALWORLD.iterdir()):
            if (tree / "docs" / "memory").is_dir():
                paths.append(str(tree))
    return paths


@pytest.fixture(scope="module")
def fleet_paths(tmp_path_factory):
    """The corpus fleet (built once per module)."""
    return corpus_fleet(tmp_path_factory.mktemp("fleet"))
