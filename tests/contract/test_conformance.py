"""`analyze conformance` on the real CLI, and on doctored registries and parsers (injected, not patched)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer import __version__
from analyzer.contract import catalog, registry
from analyzer.commands.cli import build_parser, main
from analyzer.dev.conformance import CHECKS, run_checks
from analyzer.contract.shapes import Shape
from analyzer.core.fingerprint import ruleset_fingerprint
from analyzer.dev.gendocs import source_root

NO_SOURCE = {"use_source": False}
ROOT = source_root()


def _failed(results):
    return {r["id"]: r["details"] for r in results if r["result"] == "fail"}


def _parser(*names, json_format=True):
    parser = argparse.ArgumentParser(prog="analyze")
    sub = parser.add_subparsers(dest="command")
    for name in names:
        cmd = sub.add_parser(name)
        if json_format:
            cmd.add_argument("--format", choices=("text", "json"))
    return parser


def _replace(name, **changes):
    return tuple(dataclasses.replace(c, **changes) if c.name == name else c for c in registry.COMMANDS)


def test_check_ids_are_stable_and_unique():
    ids = [c.id for c in CHECKS]
    assert ids == [f"CONF-{i:03d}" for i in range(1, len(ids) + 1)]


# The one known failure, outside this area: rules/read/completeness.dl declares COMPLETE,
# INCOMPLETE and INVALID with `@relation completeness`, a relation rules/read/overlay.dl defines.
# The xfail applies only while that exact problem exists; once the rule file is fixed these
# tests run normally and must pass.
COMPLETENESS_METADATA = [p for p in catalog.load().problems
                         if p.startswith("rules/read/completeness.dl:") and "'completeness'" in p]
KNOWN_CONF_012 = pytest.mark.xfail(bool(COMPLETENESS_METADATA), strict=True, reason=(
    "CONF-012: rules/read/completeness.dl names @relation completeness, defined in rules/read/overlay.dl "
    "(fix belongs to the rules/read owner)"))


@pytest.fixture(scope="module")
def real_results():
    """run_checks() on the real CLI and tree, once for the tests that only read it (~2 s of CPU)."""
    return run_checks()


@KNOWN_CONF_012
def test_real_cli_and_tree_pass_every_check(real_results):
    assert _failed(real_results) == {}


def test_real_tree_fails_no_check_but_the_known_one(real_results):
    failed = _failed(real_results)
    assert set(failed) <= {"CONF-012"}
    assert failed.get("CONF-012", []) == COMPLETENESS_METADATA


@KNOWN_CONF_012
def test_conformance_json_subprocess_passes_on_the_source_tree():
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(repo), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-m", "analyzer", "conformance", "--format", "json"], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=600)
    document = json.loads(proc.stdout)
    assert document["schema"] == {"name": "conformance.result", "version": 2}
    assert document["analyzer"] == {"version": __version__, "ruleset_fingerprint": ruleset_fingerprint()}
    assert document["source_tree"] is True
    assert {c["id"] for c in document["checks"]} == {c.id for c in CHECKS}
    assert [c for c in document["checks"] if c["result"] != "pass"] == []
    assert (document["status"], proc.returncode) == ("PASS", 0), proc.stderr


def test_reserved_codes_are_shown_as_reserved_not_implemented():
    results = {r["id"]: r for r in run_checks(only=("CONF-012", "CONF-013", "CONF-014"))}
    reserved = catalog.load().reserved_codes()
    assert reserved and results["CONF-014"]["result"] == "pass"
    (count,) = results["CONF-012"]["notes"]
    assert f"{len(reserved)} reserved in rules/reserved.dl (not implemented)" in count
    mentioned = catalog.mentions(ROOT, ("docs", "tests"))
    noted = [n.split(" ", 1)[0] for n in results["CONF-013"]["notes"]]
    assert noted == sorted(c for c in mentioned if c in reserved)
    assert all("(no rule derives it yet)" in n for n in results["CONF-013"]["notes"])


def test_a_rule_deriving_a_reserved_code_fails_conf_014(tmp_path):
    code = "-".join(["MC", "DEMO", "002"])
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "reserved.dl").write_text(
        f"/// @code {code}\n/// @kind reserved\n/// @title t\n/// @relation none\n/// later.\n")
    (tmp_path / "rules" / "x.dl").write_text(f'.decl r(c: symbol)\nr("{code}").\n')
    locate = lambda kind: tmp_path / kind  # noqa: E731
    failed = _failed(run_checks(parser=build_parser(), locate=locate, use_source=False, only=("CONF-014",)))
    assert failed["CONF-014"] == [f"rules/x.dl: derives reserved code {code} (move its block here from "
                                  "rules/reserved.dl)"]


def test_real_cli_passes_the_parser_checks():
    failed = _failed(run_checks(**NO_SOURCE))
    assert not {k: v for k, v in failed.items() if k in {"CONF-001", "CONF-002", "CONF-003", "CONF-004", "CONF-005"}}


def test_live_command_missing_from_parser_fails_conf_002():
    real = build_parser()
    commands = registry.COMMANDS + (registry.CommandSpec("ghost", "live", "nowhere", "x"),)
    assert _failed(run_checks(commands=commands, parser=real, **NO_SOURCE))["CONF-002"] == [
        "ghost: live in the registry but not a subcommand"]


# a reserved command of our own: every command of the registry is live today, and the check must
# still hold for the next one reserved
GHOST = registry.CommandSpec("ghost", "reserved", "nowhere", "a command for later", instead="use read")
WITH_GHOST = registry.COMMANDS + (GHOST,)


def test_reserved_command_offered_fails_conf_003():
    live = [c.name for c in registry.COMMANDS if c.status == "live"]
    failed = _failed(run_checks(commands=WITH_GHOST, parser=_parser(*live, "ghost"), **NO_SOURCE))
    assert failed["CONF-003"] == ["ghost: reserved but offered by the parser"]


def test_reserved_without_instead_fails_conf_003():
    commands = registry.COMMANDS + (dataclasses.replace(GHOST, instead=""),)
    failed = _failed(run_checks(commands=commands, parser=build_parser(), **NO_SOURCE))
    assert failed["CONF-003"] == ["ghost: reserved without saying what to use instead"]


def test_a_reserved_command_that_says_what_to_use_and_is_not_offered_passes_conf_003():
    assert "CONF-003" not in _failed(run_checks(commands=WITH_GHOST, parser=build_parser(), **NO_SOURCE))


def test_undeclared_subcommand_fails_conf_004():
    live = [c.name for c in registry.COMMANDS if c.status == "live"]
    failed = _failed(run_checks(parser=_parser(*live, "extra"), **NO_SOURCE))
    assert failed["CONF-004"] == ["extra: offered by the parser but not declared in the registry"]


def test_shape_without_condition_or_json_option_fails_conf_005():
    bad = Shape("result", 1, " ", True, ("PASS",), (0, 9))
    failed = _failed(run_checks(commands=_replace("conformance", shapes=(bad,)), parser=build_parser(), **NO_SOURCE))
    assert "conformance.result: no condition (when)" in failed["CONF-005"]
    assert "conformance.result: exit 9 is not in exitcodes.TABLE" in failed["CONF-005"]
    live = [c.name for c in registry.COMMANDS if c.status == "live"]
    failed = _failed(run_checks(parser=_parser(*live, json_format=False), **NO_SOURCE))
    assert "query: declares output shapes but offers no --format json" in failed["CONF-005"]


def test_shape_without_golden_case_fails_conf_006(tmp_path):
    extra = Shape("other", 1, "never", True, ("PASS",), (0,))
    commands = _replace("conformance", shapes=registry.command("conformance").shapes + (extra,))
    # only the check under test (run_checks runs each check on its own over the same context;
    # the whole list took 1.5 s more, for results nothing here reads)
    failed = _failed(run_checks(commands=commands, parser=build_parser(), root=tmp_path, only=("CONF-006",)))
    assert any(d.startswith("conformance.other: no golden case") for d in failed["CONF-006"])


def test_golden_case_with_wrong_shape_fails_conf_007(tmp_path):
    case = tmp_path / "tests" / "golden" / "query" / "bad"
    case.mkdir(parents=True)
    (case / "argv").write_text("query\n")
    (case / "exit").write_text("0\n")
    (case / "stdout").write_text(json.dumps({"ok": True, "status": "MATCH", "schema": {"name": "query.nope"}}))
    failed = _failed(run_checks(parser=build_parser(), root=tmp_path, only=("CONF-007",)))
    assert failed["CONF-007"] == ["tests/golden/query/bad: output names schema 'query.nope', not a shape of query"]


def test_without_source_tree_source_checks_skip_not_fail():
    results = run_checks(**NO_SOURCE)
    skipped = {r["id"] for r in results if r["result"] == "skip"}
    assert skipped == {c.id for c in CHECKS if c.needs_source}
    assert all(r["details"] == ["skipped: source tree not found"] for r in results if r["result"] == "skip")


def test_cli_exit_status_follows_the_checks(capsys):
    code = main(["conformance"])
    out = capsys.readouterr().out
    assert code == (1 if " FAIL " in out else 0)
    assert out.splitlines()[-1].startswith("conformance: ")
