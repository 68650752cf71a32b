"""``analyze conformance``: check the real CLI, the golden cases and the generated docs against the registry.

The CLI is inspected through the argparse objects ``analyzer.commands.cli.build_parser()`` returns,
never by scanning source text, so no branch can hide from it. Each check has a stable id
(CONF-001 …) listed in :data:`CHECKS` and in docs/cli.md. A check that needs the source
tree (tests/, docs/) reports ``skip`` with "source tree not found" when run from an
installed wheel; skips never fail the run. Exit 1 when any check fails.

Golden cases live in ``tests/golden/<command>/<case>/`` with three files: ``argv`` (the
arguments after ``analyze``, one per line, the command first), ``stdout`` (expected output,
the rule-set fingerprint and analyzer version replaced by ``<ruleset_fingerprint>`` and
``<version>``) and ``exit`` (the expected exit status). The shape a case produces is read
from its recorded output's ``schema.name``. ``tests/golden/fixtures/`` holds the small memory
projects the cases point at (``--project-root ../../fixtures/<name>``); it is not a case folder.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from analyzer.core import exitcodes

FORMATS = ("text", "json")
# tests/golden/fixtures/ holds the small projects golden cases run on; it is not a command
FIXTURES = "fixtures"


@dataclass
class GoldenCase:
    """One folder under tests/golden/<command>/: its argv, expected stdout and exit status."""

    rel: str
    command: str
    argv: List[str]
    stdout: Optional[str]
    exit: Optional[int]
    problems: List[str] = field(default_factory=list)

    def document(self) -> Optional[dict]:
        """The recorded output as a JSON object when it is one, else None."""
        try:
            value = json.loads(self.stdout or "")
        except ValueError:
            return None
        return value if isinstance(value, dict) else None


def golden_folders(root: Path) -> List[Path]:
    """Every golden case folder under ``root/tests/golden`` (not the shared fixtures), sorted."""
    base = root / "tests" / "golden"
    if not base.is_dir():
        return []
    return sorted(p for p in base.glob("*/*") if p.is_dir() and p.parent.name != FIXTURES)


def load_golden(root: Path) -> List[GoldenCase]:
    """Every golden case under ``root/tests/golden``, sorted by path."""
    cases = []
    for folder in golden_folders(root):
        rel, problems = folder.relative_to(root).as_posix(), []
        argv_file, stdout_file, exit_file = folder / "argv", folder / "stdout", folder / "exit"
        argv = argv_file.read_text(encoding="utf-8").splitlines() if argv_file.is_file() else []
        stdout = stdout_file.read_text(encoding="utf-8") if stdout_file.is_file() else None
        code = None
        if exit_file.is_file() and exit_file.read_text(encoding="utf-8").strip().isdigit():
            code = int(exit_file.read_text(encoding="utf-8"))
        problems += [f"{rel}: no {name} file" for name, f in (("argv", argv_file), ("stdout", stdout_file))
                     if not f.is_file()]
        if code is None:
            problems.append(f"{rel}: exit file missing or not a number")
        cases.append(GoldenCase(rel, folder.parent.name, argv, stdout, code, problems))
    return cases


@dataclass
class Context:
    """What the checks look at: the registry, the real parser, the source tree, the data files."""

    commands: Sequence
    parser: Optional[argparse.ArgumentParser]
    parser_error: Optional[str]
    root: Optional[Path]
    locate: Callable[[str], Path]
    _generated: Optional[Dict[str, str]] = None

    def subcommands(self) -> Dict[str, argparse.ArgumentParser]:
        """The parser's subcommands by name (empty when it did not build)."""
        for action in getattr(self.parser, "_actions", ()):
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}

    def generated(self) -> Dict[str, str]:
        """The expected content of every generated doc (computed once)."""
        from analyzer.dev.gendocs import expected_files

        if self._generated is None:
            self._generated = expected_files(self.root, self.commands, self.locate)
        return self._generated


def _parser_builds(ctx: Context) -> List[str]:
    return [f"build_parser() failed: {ctx.parser_error}"] if ctx.parser_error else []


def _live_offered(ctx: Context) -> List[str]:
    if ctx.parser is None:
        return ["no parser to inspect (see CONF-001)"]
    offered = ctx.subcommands()
    return [f"{c.name}: live in the registry but not a subcommand" for c in ctx.commands
            if c.status == "live" and c.name not in offered]


def _reserved_hidden(ctx: Context) -> List[str]:
    offered = ctx.subcommands()
    problems = [f"{c.name}: reserved but offered by the parser" for c in ctx.commands
                if c.status != "live" and c.name in offered]
    problems += [f"{c.name}: reserved without saying what to use instead" for c in ctx.commands
                 if c.status != "live" and not (c.instead or "").strip()]
    return problems + [f"{c.name}: status {c.status!r} is neither live nor reserved" for c in ctx.commands
                       if c.status not in ("live", "reserved")]


def _nothing_undeclared(ctx: Context) -> List[str]:
    names = [c.name for c in ctx.commands]
    problems = [f"{n}: declared {names.count(n)} times" for n in sorted(set(names)) if names.count(n) > 1]
    return problems + [f"{n}: offered by the parser but not declared in the registry"
                       for n in sorted(ctx.subcommands()) if n not in names]


def _shapes_declared(ctx: Context) -> List[str]:
    known_exits, problems = {code for code, _ in exitcodes.TABLE}, []
    offered = ctx.subcommands()
    for spec in ctx.commands:
        names = [s.name for s in spec.shapes]
        problems += [f"{spec.name}.{n}: shape declared twice" for n in sorted(set(names)) if names.count(n) > 1]
        for s in spec.shapes:
            where = f"{spec.name}.{s.name}"
            problems += [f"{where}: no condition (when)"] if not s.when.strip() else []
            problems += [f"{where}: version must be >= 1"] if s.version < 1 else []
            problems += [f"{where}: no status values"] if not s.statuses else []
            problems += [f"{where}: exit {c} is not in exitcodes.TABLE" for c in s.exits if c not in known_exits]
            problems += [f"{where}: no exit codes"] if not s.exits else []
        problems += [f"{spec.name}: exit {c} is not in exitcodes.TABLE" for c, _ in spec.exits if c not in known_exits]
        if spec.name in offered and spec.status == "live":
            has_json = _offers_json(offered[spec.name])
            if has_json and not spec.shapes:
                problems.append(f"{spec.name}: offers --format json but declares no output shape")
            if spec.shapes and not has_json:
                problems.append(f"{spec.name}: declares output shapes but offers no --format json")
    return problems


def _offers_json(parser: argparse.ArgumentParser) -> bool:
    """The parser (or, for a command with subcommands such as `subject`, each of them) takes
    ``--format json``."""
    nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if nested:
        return all(_offers_json(p) for p in nested[0].choices.values())
    fmt = next((a for a in parser._actions if "--format" in a.option_strings), None)
    return bool(fmt and fmt.choices and "json" in fmt.choices)


def _shapes_covered(ctx: Context) -> List[str]:
    produced = {(doc.get("schema") or {}).get("name") for case in load_golden(ctx.root)
                for doc in [case.document()] if doc}
    return [f"{spec.name}.{s.name}: no golden case under tests/golden/{spec.name}/ produces it"
            for spec in ctx.commands if spec.status == "live" for s in spec.shapes
            if f"{spec.name}.{s.name}" not in produced]


def _golden_well_formed(ctx: Context) -> List[str]:
    from analyzer.contract.shapes import document_type, validate

    specs, problems = {c.name: c for c in ctx.commands}, []
    for case in load_golden(ctx.root):
        problems += case.problems
        spec = specs.get(case.command)
        if spec is None or spec.status != "live":
            problems.append(f"{case.rel}: {case.command!r} is not a live command")
            continue
        if case.argv[:1] != [case.command]:
            problems.append(f"{case.rel}: argv must start with {case.command!r}")
        doc = case.document()
        if doc is None:
            continue  # text output has no shape to check
        name = str((doc.get("schema") or {}).get("name", ""))
        try:
            if not name.startswith(spec.name + "."):
                raise KeyError(name)
            shape = spec.shape(name[len(spec.name) + 1:])
        except KeyError:
            problems.append(f"{case.rel}: output names schema {name!r}, not a shape of {spec.name}")
            continue
        problems += [f"{case.rel}: {e}" for e in validate(doc, document_type(name, shape))]
        if case.exit is not None and case.exit not in shape.exits:
            problems.append(f"{case.rel}: exit {case.exit} is not one of {name}'s exit codes {list(shape.exits)}")
    return problems


def _fresh(prefix: str) -> Callable[[Context], List[str]]:
    def check(ctx: Context) -> List[str]:
        from analyzer.dev.gendocs import stale_files

        expected = {k: v for k, v in ctx.generated().items() if k.startswith(prefix)}
        problems = [p for p in stale_files(ctx.root, expected) if p.startswith(prefix)]
        if prefix == "docs/cli.md" and not expected:
            problems.append("docs/cli.md: missing")
        return [f"{p} (run: python -m analyzer.dev.gendocs)" for p in problems]
    return check


def _codes_well_formed(ctx: Context) -> List[str]:
    from analyzer.contract import catalog

    return catalog.load(ctx.locate).problems


def _codes_counted(ctx: Context) -> List[str]:
    from analyzer.contract import catalog

    known = catalog.load(ctx.locate)
    reserved = len(known.reserved_codes())
    return [f"{len(known.entries) - reserved} codes and values implemented by rules, "
            f"{reserved} reserved in {catalog.RESERVED_FILE} (not implemented)"]


def _codes_single_producer(ctx: Context) -> List[str]:
    from analyzer.contract import catalog

    return catalog.producer_problems(catalog.load(ctx.locate), ctx.locate)


def _codes_known(ctx: Context) -> List[str]:
    from analyzer.contract import catalog

    declared = catalog.load(ctx.locate).codes()
    return catalog.missing_codes(catalog.mentions(ctx.root, ("docs", "tests")), declared)


def _reserved_mentioned(ctx: Context) -> List[str]:
    from analyzer.contract import catalog

    reserved = catalog.load(ctx.locate).reserved_codes()
    found = catalog.mentions(ctx.root, ("docs", "tests"))
    return [f"{code} is reserved (no rule derives it yet): mentioned in "
            f"{', '.join(sorted(found[code]))}" for code in sorted(found) if code in reserved]


def _reserved_unimplemented(ctx: Context) -> List[str]:
    from analyzer.contract import catalog

    return catalog.reserved_problems(catalog.load(ctx.locate), ctx.locate)


@dataclass(frozen=True)
class Check:
    """One conformance check: stable id, title, whether it needs the source tree, and its test."""

    id: str
    title: str
    needs_source: bool
    test: Callable[[Context], List[str]]
    # notes are facts worth showing that do not fail the check (e.g. which codes are reserved)
    notes: Optional[Callable[[Context], List[str]]] = None


CHECKS = (
    Check("CONF-001", "the CLI parser builds from the registry", False, _parser_builds),
    Check("CONF-002", "every live command is a subcommand of the real parser", False, _live_offered),
    Check("CONF-003", "no reserved command is offered, and each says what to use instead", False, _reserved_hidden),
    Check("CONF-004", "every subcommand is declared in the registry, once", False, _nothing_undeclared),
    Check("CONF-005", "every shape has a condition, version, statuses and known exit codes; "
          "JSON output iff shapes", False, _shapes_declared),
    Check("CONF-006", "every shape of a live command is produced by a golden case", True, _shapes_covered),
    Check("CONF-007", "every golden case is complete and its output matches its declared shape", True,
          _golden_well_formed),
    Check("CONF-008", "docs/schemas/ is generated from the registry", True, _fresh("docs/schemas/")),
    Check("CONF-009", "docs/cli.md's generated sections are fresh", True, _fresh("docs/cli.md")),
    Check("CONF-010", "docs/findings.md is fresh", True, _fresh("docs/findings.md")),
    Check("CONF-011", "docs/facts.md is fresh", True, _fresh("docs/facts.md")),
    Check("CONF-012", "every @code block in rules/ is well-formed and declared once", False, _codes_well_formed,
          _codes_counted),
    Check("CONF-013", "every MC- code mentioned in docs/ or tests/ is in the catalogue", True, _codes_known,
          _reserved_mentioned),
    Check("CONF-014", "reserved codes are metadata only: rules/reserved.dl has no rules and no rule derives them",
          False, _reserved_unimplemented),
    Check("CONF-015", "every MC- code is produced only by the rule file that declares it", False,
          _codes_single_producer),
)


def run_checks(commands: Optional[Sequence] = None, parser: Optional[argparse.ArgumentParser] = None,
               root: Optional[Path] = None, locate: Optional[Callable[[str], Path]] = None,
               use_source: bool = True, only: Sequence[str] = ()) -> List[dict]:
    """Run the checks (all, or the ids in ``only``); arguments left None mean the real thing."""
    from analyzer.contract import registry
    from analyzer.dev.gendocs import source_root
    from analyzer.core.resources import data_dir

    error = None
    if parser is None:
        try:
            from analyzer.commands.cli import build_parser

            parser = build_parser()
        except Exception as exc:  # a broken command module is a finding here, not a crash
            error = f"{type(exc).__name__}: {exc}"
    if root is None and use_source:
        root = source_root()
    ctx = Context(registry.COMMANDS if commands is None else commands, parser, error, root, locate or data_dir)
    results = []
    for check in CHECKS:
        if only and check.id not in only:
            continue
        if check.needs_source and ctx.root is None:
            results.append({"id": check.id, "title": check.title, "result": "skip",
                            "details": ["skipped: source tree not found"], "notes": []})
            continue
        notes = []
        try:
            details = check.test(ctx)
            notes = check.notes(ctx) if check.notes else []
        except Exception as exc:  # report, never crash: the other checks still run
            details = [f"check raised {type(exc).__name__}: {exc}"]
        results.append({"id": check.id, "title": check.title, "result": "fail" if details else "pass",
                        "details": details, "notes": notes})
    return results


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the conformance options."""
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    parser.add_argument("--check", action="append", default=[], metavar="ID", choices=[c.id for c in CHECKS],
                        help="run only this check (repeatable), e.g. --check CONF-003")


def run(args: argparse.Namespace) -> int:
    """Run the checks on the real CLI and source tree; exit 1 when one fails."""
    from analyzer.dev.gendocs import source_root
    from analyzer.contract.output import emit_json

    results = run_checks(only=args.check)
    failed = [r for r in results if r["result"] == "fail"]
    code = exitcodes.FAILED if failed else exitcodes.OK
    if args.format == "json":
        emitted = emit_json("conformance", "result", {
            "status": "FAIL" if failed else "PASS", "source_tree": source_root() is not None, "checks": results})
        return emitted or code
    installed = source_root() is None
    if installed:  # a developer check: say once what an installed package cannot check
        needs = [c.id for c in CHECKS if c.needs_source and (not args.check or c.id in args.check)]
        if needs:
            print(f"conformance: installed package, no source tree: {len(needs)} checks that compare tests/ and "
                  f"docs/ with the CLI ({', '.join(needs)}) run only from a source checkout")
    for r in results:
        if installed and r["result"] == "skip":
            continue
        print(f"{r['id']} {r['result'].upper() if r['result'] == 'fail' else r['result']:4}  {r['title']}")
        for detail in r["details"]:
            print(f"    {detail}")
        for note in r["notes"]:
            print(f"    note: {note}")
    skipped = sum(r["result"] == "skip" for r in results)
    print(f"conformance: {len(failed)} of {len(results) - skipped if installed else len(results)} checks failed"
          + ("" if installed else f", {skipped} skipped"))
    return code
