"""The reference material of ../shared (the protocol's scenarios, the real-world trees, the SARIF
schema's copy) beside this clone, and the mark of the tests that cross-check against it.

Every behaviour those files exercise has tests of our own that run everywhere (the conformance
corpus in tests/conformance_corpus, the firing corpus in tests/corpus, our own projects and
fixtures). The tests marked :data:`cross_check` compare us with the reference material on top
of that. A fresh clone has no ../shared beside it: tests/conftest.py then leaves every
cross-check out of the run (pytest counts them as deselected) and
tests/test_shared_reference.py reports them as one skip whose reason says what is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

import pytest

#: ../shared beside this clone (it may be absent)
SHARED = Path(__file__).resolve().parents[2] / "shared"
#: whether it is there: the cross-checks run only then
PRESENT = SHARED.is_dir()
#: the reason the one skip gives when it is absent
REASON = "../shared not beside this clone (cross-check against the reference material)"
#: the files the cross-checks read, relative to ../shared
FILES = ("spec/scenarios.jsonl", "spec/templates/docs/memory/manifest.md", "realworld/memorycustodian-dogfood",
         "realworld/nightnotes-video-demo", "schemas/sarif-schema-2.1.0.json")

#: the mark of a test that compares us with ../shared's reference material
cross_check = pytest.mark.shared_reference
#: the real-world memory projects of ../shared, as found in the wild
REALWORLD = SHARED / "realworld"


def tree_params(trees: Dict[str, Path]) -> List[object]:
    """The names of ``trees`` (name -> folder) as pytest parameters, sorted; the trees under
    ../shared are cross-checks (our own trees run everywhere)."""
    return [pytest.param(name, marks=cross_check) if SHARED in path.parents else name
            for name, path in sorted(trees.items())]
