"""``analyze why``: proof trees for read results, for auditors.

``analyze why MODULE [read options]`` explains one module's disposition; ``analyze why
--pattern 'skip_reason(_, _)' [read options]`` explains every matching derived tuple of the
read program (any relation of rules/read/*.dl or facts/schema.dl).
"""

from __future__ import annotations

import argparse
import sys

from analyzer import exitcodes
from analyzer.commands import read as read_command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """MODULE or --pattern, plus the read request options."""
    parser.add_argument("module", nargs="?", help="module whose disposition to explain, e.g. areas/web.md")
    parser.add_argument("--pattern", help="explain every tuple matching this pattern instead, e.g. 'skip_reason(_, _)'")
    for action in _read_actions():
        if action.dest in ("why", "format", "explain", "names_only", "help"):
            continue
        parser._add_action(action)


def _read_actions():
    scratch = argparse.ArgumentParser(add_help=False)
    read_command.add_arguments(scratch)
    return scratch._actions


def run(args: argparse.Namespace) -> int:
    """Evaluate the read request with provenance and print the proofs asked for."""
    from pathlib import Path

    from analyzer.query.read import ReadRequest, UnknownTask, run_read
    from analyzer.query.why import disposition_proof, pattern_proofs

    if bool(args.module) == bool(args.pattern):
        print("analyze why: give either MODULE or --pattern", file=sys.stderr)
        return exitcodes.INVALID
    request = ReadRequest(
        task=args.task, paths=args.path, rules=args.rule, profiles=args.profile, areas=args.area,
        strict=args.strict_routing, no_local=args.no_local, project_root=Path(args.project_root),
        memory_dir=args.memory_dir, use_cache=not args.no_cache,
    )
    try:
        _, db, _ = run_read(request, provenance=True)
    except UnknownTask as exc:
        print(f"analyze why: error: argument --task: invalid choice: '{exc}'", file=sys.stderr)
        return exitcodes.INVALID
    if args.module:
        text, code = disposition_proof(db, args.module)
    else:
        from analyzer.diagnostics import DiagnosticError

        try:
            text, code = pattern_proofs(db, args.pattern)
        except DiagnosticError as exc:
            print(str(exc), file=sys.stderr)
            return exitcodes.INVALID
    (sys.stdout if code == exitcodes.OK else sys.stderr).write(text)
    return code
