"""The registry names its output shapes by reference (analyzer/contract/shape_refs.py): they are the
declared tuples, and building the CLI imports no shape declaration."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

from analyzer.contract import command_shapes, history_shapes, registry
from analyzer.contract.shape_refs import Shapes

REPO = Path(__file__).resolve().parents[2]


def test_registry_shapes_are_the_declared_tuples():
    assert registry.command("read").shapes == command_shapes.READ_SHAPES
    assert registry.command("check").shapes == command_shapes.CHECK_SHAPES + history_shapes.AUTONOMY_SHAPES
    assert registry.command("diff").shapes == history_shapes.DIFF_SHAPES
    assert all(isinstance(s, registry.CommandSpec) for s in registry.COMMANDS)


def test_shapes_behave_as_their_tuple():
    declared = command_shapes.CHECK_SHAPES + history_shapes.AUTONOMY_SHAPES
    ref = Shapes("analyzer.contract.command_shapes:CHECK_SHAPES", "analyzer.contract.history_shapes:AUTONOMY_SHAPES")
    assert tuple(ref) == declared and list(ref) == list(declared) and len(ref) == len(declared)
    assert ref[0] is declared[0] and ref[-1] is declared[-1] and ref[1:3] == declared[1:3]
    assert ref == declared and declared == ref and ref == Shapes(*ref.sources) and ref != declared[:1]
    assert ref != "CHECK_SHAPES" and hash(ref) == hash(declared) and repr(ref) == repr(declared)
    assert ref + (None,) == declared + (None,) and (None,) + ref == (None,) + declared
    assert bool(ref) and not Shapes()
    spec = registry.command("check")
    assert dataclasses.replace(spec, summary="x").shapes == spec.shapes  # a spec still copies and compares
    assert dataclasses.replace(spec, shapes=declared) == spec


def test_building_the_cli_imports_no_shape_declaration():
    probe = ("import sys\nfrom analyzer.commands.cli import build_parser\nbuild_parser('read')\nbuild_parser()\n"
             "print(sorted(m for m in ('analyzer.contract.command_shapes', 'analyzer.contract.history_shapes', 'analyzer.contract.shapes') "
             "if m in sys.modules))\n")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=str(REPO), timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
