"""What the ID index and Subject commands share: their project options, the request they
build, and how a refused request is reported (``Error: …`` on stderr, the ``error`` shape
with --format json)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List

from analyzer import exitcodes


def add_project_arguments(parser: argparse.ArgumentParser) -> None:
    """--project-root, --memory-dir, --no-cache and --format, as `read` spells them."""
    parser.add_argument("--project-root", default=".", metavar="DIR", help="project root (default: current directory)")
    parser.add_argument("--memory-dir", default="docs/memory", metavar="DIR",
                        help="memory directory under docs/ (default: docs/memory)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the parse cache")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def add_lookup_arguments(parser: argparse.ArgumentParser) -> None:
    """--include-archive and --local: which storage the ID index covers."""
    parser.add_argument("--include-archive", action="store_true", help="also index archive/ files")
    parser.add_argument("--local", action="store_true",
                        help="also index the entries of the bound local overlay (refused unless it is BOUND)")


def request_from(args: argparse.Namespace, **extra):
    """The :class:`~analyzer.query.index.IndexRequest` of parsed options."""
    from analyzer.query.index import IndexRequest

    return IndexRequest(project_root=Path(args.project_root), memory_dir=args.memory_dir,
                        use_cache=not args.no_cache, include_archive=getattr(args, "include_archive", False),
                        local=getattr(args, "local", False), **extra)


def answer(command: str, args: argparse.Namespace, wanted, **request):
    """Evaluate an index or Subject request for the ``wanted`` relations: ``(evaluation, 0)``,
    or ``(None, exit status)`` after reporting why it was refused."""
    from analyzer.query.index import evaluate

    code = root_problem(command, args)
    if code:
        return None, code
    ev = evaluate(request_from(args, **request), wanted)
    failure = ev.failure()
    if failure is not None:
        return None, refuse(command, args, failure)
    return ev, exitcodes.OK


def root_problem(command: str, args: argparse.Namespace) -> int:
    """Exit status of a project root that is not a directory (0 when it is one)."""
    if Path(args.project_root).is_dir():
        return exitcodes.OK
    from analyzer.query.index import Failure
    from analyzer.span import Span

    return refuse(command, args, Failure("MA-USAGE", f"Error: project root is not a directory: {args.project_root}",
                                         exitcodes.INVALID, [Span(args.project_root)]))


def refuse(command: str, args: argparse.Namespace, failure) -> int:
    """Report a refused request; returns its exit status."""
    print(failure.message, file=sys.stderr)
    if args.format == "json":
        from analyzer.output import emit_json

        status = emit_json(command, "error", error_payload(failure))
        return status or failure.exit_code
    return failure.exit_code


def error_payload(failure) -> dict:
    """The payload of an ``error`` shape: the message plus one diagnostic per location."""
    return {"status": "INVALID" if failure.exit_code == exitcodes.INVALID else "FAILED",
            "exit_code": failure.exit_code, "error": failure.message,
            "diagnostics": [{"code": failure.code, "severity": "error", "message": failure.message,
                             "path": s.path, "line": s.line, "col": s.col} for s in failure.locations]}


def locations(*spans) -> List[dict]:
    """JSON locations [{path, line, col}] of spans."""
    return [{"path": s.path, "line": s.line, "col": s.col} for s in spans]
