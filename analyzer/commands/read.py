"""``analyze read``: which memory loads for a task and touched paths, and why."""

from __future__ import annotations

import argparse
import os
import sys

from analyzer.core import exitcodes
from analyzer.core.span import Span
from analyzer.commands import bounds
from analyzer.project.root import absolute_path_hint, add_root_arguments, paths_from_cwd, resolve_root


def add_request_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that make up a read request (shared with ``analyze why``)."""
    parser.add_argument("--task", default="default",
                        help="task being started (canonical or alias, e.g. implementation, review, output); default: general")
    parser.add_argument("--path", action="append", default=[], metavar="P",
                        help="project-relative path the work touches (repeatable); activates path-routed areas")
    parser.add_argument("--rule", action="append", default=[], metavar="R", help="open an optional rule explicitly (repeatable)")
    parser.add_argument("--profile", action="append", default=[], metavar="P", help="open a profile explicitly (repeatable)")
    parser.add_argument("--area", action="append", default=[], metavar="A", help="open an optional area explicitly (repeatable)")
    parser.add_argument("--strict-routing", action="store_true",
                        help="reject the pack unless routing is COMPLETE and conflicts allow the task (exit 1/2)")
    parser.add_argument("--no-local", action="store_true", help="ignore the repo-external local overlay")
    add_root_arguments(parser)
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the parse cache")
    bounds.add_max_file_bytes(parser)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the read options (the reference's, plus --format and --why)."""
    add_request_arguments(parser)
    parser.add_argument("--explain", action="store_true", help="show disposition, reason and matching input of every module")
    parser.add_argument("--names-only", action="store_true", help="list modules without their contents")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--why", metavar="MODULE", help="print the proof of MODULE's disposition instead of the pack")
    from analyzer.commands import read_tool

    read_tool.add_arguments(parser)


def usage_error(command: str, args: argparse.Namespace, message: str, code: str = "MA-USAGE",
                path: str = "<command line>", line: int = 1, col: int = 1) -> int:
    """Report a request that cannot be evaluated: stderr text, plus the ``error`` shape in JSON.
    With a ``path`` (a file at fault), the text is ``path:line:col: CODE message``, as ``read``
    and ``check`` report an unusable file."""
    where = "" if path == "<command line>" else f"{path}:{line}:{col}: {code} "
    print(f"analyze {command}: error: {where}{message}", file=sys.stderr)
    if getattr(args, "format", "text") == "json":
        from analyzer.core.diagnostics import Diagnostic
        from analyzer.contract.output import diagnostics_payload, emit_json

        status = emit_json(command, "error", diagnostics_payload([Diagnostic(Span(path, line, col), code, message)]))
        return status or exitcodes.INVALID
    return exitcodes.INVALID


def history_failure(failure) -> tuple:
    """``(message, code, path, line, col)`` of a history command (diff, restore, readiness)
    that could not run (a :class:`analyzer.contract.results.Failure`): a managed file that
    cannot be used at its place with its MA-FILE-* code, a Git failure (no span) on the
    command line."""
    where = failure.span or Span("<command line>")
    return failure.message, failure.code, where.path, where.line, where.col


def history_error(command: str, args: argparse.Namespace, failure) -> int:
    """Report a history command that could not run (:func:`history_failure`); exit 2."""
    return usage_error(command, args, *history_failure(failure))


def report_invalid(result, root) -> None:
    """stderr of an INVALID result: the reference's ``Error:`` line, then where the bad input
    is (``path:line:col: message``, when it is in a file) and which project root was read."""
    from analyzer.render.read_text import error_line

    failure = result.failure
    print(error_line(failure), file=sys.stderr)
    if failure.span is not None:
        print(f"{failure.span}: {failure.message}", file=sys.stderr)
    print(root.describe(), file=sys.stderr)


def request_from(args: argparse.Namespace):
    """The :class:`~analyzer.query.read.ReadRequest` of parsed read options."""
    from pathlib import Path

    from analyzer.query.read import ReadRequest

    for path in args.path:
        hint = absolute_path_hint(path, args.project_root)
        if hint is not None:  # the protocol refuses it (INVALID); say what to type instead
            form = "is absolute" if os.path.isabs(path) else "has a `..` segment"
            print(f"hint: --path {path} {form}; paths are relative to the project root: --path {hint}",
                  file=sys.stderr)
    return ReadRequest(
        task=args.task, paths=paths_from_cwd(args.path, args.project_root), rules=args.rule, profiles=args.profile, areas=args.area,
        strict=args.strict_routing, no_local=args.no_local, project_root=Path(args.project_root),
        memory_dir=args.memory_dir, use_cache=not args.no_cache, max_file_bytes=args.max_file_bytes,
    )


def explicit_hints(args: argparse.Namespace, modules) -> None:
    """stderr: for an explicit --rule/--profile/--area the project does not have, the closest
    one it has (the pack and its warnings stand as the protocol says)."""
    from analyzer.core.hints import did_you_mean

    for flag, folder in (("rule", "rules"), ("profile", "profiles"), ("area", "areas")):
        names = sorted(m[len(folder) + 1:-3] for m in modules if m.startswith(folder + "/") and m.endswith(".md"))
        for given in getattr(args, flag, None) or ():
            hint = did_you_mean(given.strip(), names)
            if given.strip() not in names and hint:
                print(f"hint: --{flag} {given}: {hint[2:]}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Evaluate the request and print the pack, its JSON form, or a proof."""
    from pathlib import Path

    from analyzer.core import lifetime
    from analyzer.query.needed import UnusableInput
    from analyzer.query.read import UnknownTask, run_read

    root = resolve_root(args.project_root, args.memory_dir)
    args.project_root = root.path
    if not Path(args.project_root).is_dir():
        return usage_error("read", args, f"project root is not a directory: {args.project_root}")
    if getattr(args, "tool", None):
        from analyzer.commands import read_tool

        return read_tool.run(args)
    if args.why:
        from analyzer.commands import why

        args.module, args.pattern = args.why, None
        return why.run(args)
    try:
        result, db, project = run_read(request_from(args))
        lifetime.keep(result, db, project)  # freed by the exit, not one object at a time
    except UnknownTask as exc:
        return usage_error("read", args, exc.message())
    except UnusableInput as exc:  # fail closed: no pack without every file it needs
        return exc.report("read", args.format)
    if result.failure is not None:
        report_invalid(result, root)
    # the candidates: modules the project has, not those that exist only because they were asked for
    explicit_hints(args, [m.path for m in result.modules if not (m.disposition.startswith("missing")
                                                                  and (m.matching_input or "").startswith(
                                                                      ("rule:", "profile:", "area:")))])
    from analyzer.query.scans import protect_pack, redacted

    for warning in protect_pack(result, project):  # secrets hidden, hidden text escaped
        print(f"analyze read: warning: {warning}", file=sys.stderr)
    result = redacted(result)  # and in every other line (findings quote memory lines)
    if args.format == "json":
        from analyzer.render.read_json import read_payload
        from analyzer.contract.output import emit_json

        status = emit_json("read", "result", read_payload(result, explain=args.explain, names_only=args.names_only,
                                                          root=root))
        return status if status else result.exit_code
    from analyzer.render.read_text import overlay_dir_text, read_text_lines

    if args.explain:  # stderr: the pack's text stays the reference's, line for line
        print(f"Local overlay directory: {overlay_dir_text(result.local_dir)}", file=sys.stderr)

    write = sys.stdout.write
    for line in read_text_lines(result, explain=args.explain, names_only=args.names_only):
        write(line)
        write("\n")
    return result.exit_code
