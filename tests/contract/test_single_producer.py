"""CONF-015: a code is produced only by the rule file that declares it (reading it is fine)."""

from __future__ import annotations

import shutil
from pathlib import Path

from analyzer.contract import catalog
from analyzer.core.resources import data_dir


def _copy(tmp_path: Path):
    for kind in ("rules", "facts", "grammar"):
        shutil.copytree(data_dir(kind), tmp_path / kind)
    return lambda kind: tmp_path / kind


def test_shipped_rules_have_one_producer_per_code():
    assert catalog.producer_problems(catalog.load()) == []


def test_a_second_producer_is_reported(tmp_path):
    locate = _copy(tmp_path)
    gate = tmp_path / "rules" / "read" / "gate.dl"
    gate.write_text(gate.read_text(encoding="utf-8")
                    + '\nmodule_reason(M, "MC-SKIP-NOT-REQUESTED", 7) :- rejected(1), disposition(M, _).\n',
                    encoding="utf-8")
    problems = catalog.producer_problems(catalog.load(locate), locate)
    assert problems == ["rules/read/gate.dl: produces MC-SKIP-NOT-REQUESTED (declared in rules/read/routing.dl)"]


def test_reading_a_code_in_a_body_is_not_producing_it(tmp_path):
    locate = _copy(tmp_path)
    gate = tmp_path / "rules" / "read" / "gate.dl"
    gate.write_text(gate.read_text(encoding="utf-8")
                    + '\n.decl skipped_somewhere(m: symbol)\n'
                      'skipped_somewhere(M) :- module_reason(M, "MC-SKIP-NOT-REQUESTED", _).\n',
                    encoding="utf-8")
    assert catalog.producer_problems(catalog.load(locate), locate) == []
