"""``analyze test DIR``: run the unit tests of rule packs (analyzer/query/packtest.py) and
print PASS/FAIL per case with a diff for each failure; exit 0 when every case passed, 1 when
any failed, 2 on bad input (a bad pack, a case that cannot be run, nothing to run)."""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """DIR, --rules, --run, --memory-dir, --no-cache, --format."""
    parser.add_argument("directory", metavar="DIR", help="the packs (*.dl) and one subdirectory per case "
                        "(a fixture project with expected.txt)")
    parser.add_argument("--rules", dest="packs", action="append", default=[], metavar="PACK.dl",
                        help="also test this pack (repeatable)")
    parser.add_argument("--run", metavar="REGEX", default=None, help="run only the cases whose name matches REGEX")
    parser.add_argument("--memory-dir", default="docs/memory", metavar="DIR",
                        help="memory directory of every case (default: docs/memory)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the caches")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def run(args: argparse.Namespace) -> int:
    """Run the cases and print the outcome."""
    from pathlib import Path

    from analyzer.core.diagnostics import Diagnostic, DiagnosticError
    from analyzer.engine.linear_re import PatternError, compile_pattern
    from analyzer.query.packtest import run_tests
    from analyzer.core.span import Span

    try:
        if args.run is not None:
            compile_pattern(args.run)  # matched in linear time, as every user pattern
        outcome = run_tests(Path(args.directory), args.packs, args.memory_dir, not args.no_cache, args.run)
    except PatternError as exc:
        return _fail(args, [Diagnostic(Span("<command line>"), "MA-USAGE", f"--run: bad regular expression: {exc}")])
    except DiagnosticError as exc:
        return _fail(args, exc.diagnostics)
    status = exitcodes.FAILED if outcome.failed else exitcodes.OK
    if args.format == "json":
        from analyzer.contract.output import emit_json

        cases = [{"name": c.name, "result": "pass" if c.passed else "fail", "expected": sorted(c.expected),
                  "actual": c.actual, "diff": c.diff()} for c in outcome.cases]
        code = emit_json("test", "result", {"status": "FAIL" if outcome.failed else "PASS", "exit_code": status,
                                            "packs": outcome.packs, "cases": cases})
        return code or status
    for case in outcome.cases:
        print(f"{'PASS' if case.passed else 'FAIL'}: {case.name}")
        for line in case.diff():
            print(f"  {line}")
    passed = len(outcome.cases) - len(outcome.failed)
    print(f"{len(outcome.cases)} case{'s' if len(outcome.cases) != 1 else ''}: {passed} passed, "
          f"{len(outcome.failed)} failed")
    return status


def _fail(args, diagnostics) -> int:
    for diag in diagnostics:
        print(diag.render(), file=sys.stderr)
    if args.format == "json":
        from analyzer.contract.output import diagnostics_payload, emit_json

        return emit_json("test", "error", diagnostics_payload(diagnostics)) or exitcodes.INVALID
    return exitcodes.INVALID
