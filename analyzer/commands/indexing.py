"""What the ID index and Subject commands share: their project options, the request they
build, and how a refused request is reported (``Error: …`` on stderr, the ``error`` shape
with --format json)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List

from analyzer.core import exitcodes


def add_project_arguments(parser: argparse.ArgumentParser) -> None:
    """--project-root, --memory-dir, --no-cache, --max-file-bytes and --format, as `read` spells them."""
    from analyzer.commands.bounds import add_max_file_bytes
    from analyzer.project.root import add_root_arguments

    add_root_arguments(parser)
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the parse cache")
    add_max_file_bytes(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def add_lookup_arguments(parser: argparse.ArgumentParser) -> None:
    """--include-archive and --local: which storage the ID index covers."""
    parser.add_argument("--include-archive", action="store_true", help="also index archive/ files")
    parser.add_argument("--local", action="store_true",
                        help="also index the entries of the bound local overlay (refused when it is UNBOUND, "
                             "under REVIEW or cannot be located; none when there is no overlay)")


def request_from(args: argparse.Namespace, **extra):
    """The :class:`~analyzer.query.index.IndexRequest` of parsed options."""
    from analyzer.query.index import IndexRequest

    return IndexRequest(project_root=Path(args.project_root), memory_dir=args.memory_dir,
                        use_cache=not args.no_cache, include_archive=getattr(args, "include_archive", False),
                        local=getattr(args, "local", False), max_file_bytes=getattr(args, "max_file_bytes", None),
                        **extra)


def answer(command: str, args: argparse.Namespace, wanted, **request):
    """Evaluate an index or Subject request for the ``wanted`` relations: ``(evaluation, 0)``,
    or ``(None, exit status)`` after reporting why it was refused."""
    from analyzer.query.needed import UnusableInput, require_usable
    from analyzer.query.index import evaluate

    code = root_problem(command, args)
    if code:
        return None, code
    ev = evaluate(request_from(args, **request), wanted)
    try:  # fail closed, as read: every file the rules say the index needs must have been usable
        require_usable(ev.project, (m for (m,) in ev.relation("needed_file")))
    except UnusableInput as exc:
        return None, exc.report(command, args.format, exit_code=exitcodes.INVALID,
                                error="\n".join(exc.lines()))
    failure = ev.failure()
    if failure is not None:
        status = refuse(command, args, failure)
        if failure.code == "MA-INDEX-UNKNOWN" and getattr(args, "id", None):
            unknown_id_hint(args.id, (row[1] for row in ev.relation("index_row")))
        return None, status
    return ev, exitcodes.OK


def unknown_id_hint(given: str, ids) -> None:
    """stderr: the IDs a truncated ID could be, else the closest one (the answer stands)."""
    from analyzer.core.hints import closest, prefixed

    ids = list(ids)
    started = prefixed(given, ids)
    if started:
        print(f"hint: IDs that start with {given}: {', '.join(started)}", file=sys.stderr)
    else:
        # IDs share their shape, so only a near-identical one (a slipped digit) is a suggestion
        near = closest(given, ids, cutoff=0.9)
        if near:
            print(f"hint: did you mean {near[0]!r}?", file=sys.stderr)


def root_problem(command: str, args: argparse.Namespace) -> int:
    """Resolve the project root (``--project-root``, else the nearest ancestor holding the
    manifest); the exit status of a root that is not a directory, or of a memory dir that
    is not one under docs/ (exit 2; a missing one is the rules' exit 1), else 0."""
    from analyzer.project import files
    from analyzer.contract.results import Failure
    from analyzer.project.root import resolve_root
    from analyzer.core.span import Span

    args.project_root = resolve_root(args.project_root, args.memory_dir).path
    if not Path(args.project_root).is_dir():
        return refuse(command, args, Failure("MA-USAGE", f"Error: project root is not a directory: {args.project_root}",
                                             Span(args.project_root), exitcodes.INVALID))
    name = files.memory_dir_name(args.memory_dir)
    problem = files.check_memory_dir(args.project_root, name)
    if problem is not None and problem != files.MEMORY_DIR_MISSING:
        return refuse(command, args, Failure("MA-MEMDIR", f"Error: {problem}: {name}", Span(name), exitcodes.INVALID))
    return exitcodes.OK


def refuse(command: str, args: argparse.Namespace, failure) -> int:
    """Report a refused request; returns its exit status."""
    print(failure.message, file=sys.stderr)
    if args.format == "json":
        from analyzer.contract.output import emit_json

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
