"""Fixtures of the fleet tests: the SQL back end's optional dependencies (the ``[fleet]``
extra) and a fleet built from the rule corpus, the bundled example and the real-world trees."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REALWORLD = REPO.parent / "shared" / "realworld"


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
