"""``analyze diff``: memory changes between two revisions, one class (A-E) per changed unit.

Exit 0 when every changed unit was classified, 2 for a BLINDSPOT (a unit that could not be
read), a revision Git cannot resolve or any other Git failure (never an empty diff).
"""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes


def head_revision(text: str) -> str:
    """The argparse type of --head (diff, restore, check --autonomy): leaving it out means the
    work tree, so an empty value (``--head "$SHA"`` with SHA unset) is refused, never read
    as the work tree."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"invalid revision {text!r}: leave --head out to compare with the work tree")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the diff options."""
    parser.add_argument("--base", required=True, metavar="REV", help="the earlier revision (any Git revision)")
    parser.add_argument("--head", default=None, type=head_revision, metavar="REV",
                        help="the later revision (default: the work tree, uncommitted changes included)")
    from analyzer.project.root import add_root_arguments

    add_root_arguments(parser)
    parser.add_argument("--no-cache", action="store_true",
                        help="do not read or write the parse cache or the per-commit Git results (history cache)")
    parser.add_argument("--format", choices=("text", "json", "sarif", "junit", "github", "markdown"), default="text",
                        help="output format (default: text); sarif, junit, github and markdown are check's CI "
                             "formats, one MA-DIFF-<class> note per change")


def _shallow_note(root, result) -> None:
    """Say on stderr when a shallow clone holds only part of the commits between the
    revisions (analyzer/history/shallow.py): the changes are exact, the commits per change may not be."""
    from analyzer.history.git import GitError, Repo
    from analyzer.history.shallow import range_note

    try:
        note = range_note(Repo(str(root)), result.base, result.head)
    except GitError:
        return  # the diff itself ran: a note that cannot be made is not an error
    if note:
        print(f"analyze diff: note: {note}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Compare the revisions and print the changes (text or the ``diff.result`` document)."""
    from pathlib import Path

    from analyzer.commands.read import history_error, usage_error
    from analyzer.query.diff import run_diff
    from analyzer.project.root import resolve_root

    args.project_root = resolve_root(args.project_root, args.memory_dir).path
    if not Path(args.project_root).is_dir():
        return usage_error("diff", args, f"project root is not a directory: {args.project_root}")
    result = run_diff(Path(args.project_root), args.memory_dir, args.base, args.head, not args.no_cache,
                      findings=args.format not in ("text", "json"))
    if result.failure is not None:
        status = history_error("diff", args, result.failure)
        if args.format not in ("text", "json"):  # check's error document, as check prints one
            from analyzer.commands.read import history_failure
            from analyzer.contract.check_model import failed_run
            from analyzer.commands.check_formats import write_as_check

            message, code, path, line, col = history_failure(result.failure)
            failure = failed_run(message, code, "" if path == "<command line>" else path, line, col)
            return write_as_check(args.format, failure, str(args.project_root), status)
        return status
    _shallow_note(args.project_root, result)
    if args.format == "json":
        from analyzer.contract.output import emit_json
        from analyzer.render.diff_json import diff_payload

        return emit_json("diff", "result", diff_payload(result)) or result.exit_code
    if args.format != "text":  # the CI formats of check, rendered by check's own renderers
        from analyzer.commands.check_formats import write_as_check
        from analyzer.contract.check_model import one_family

        checked = one_family("diff", result.status, result.exit_code, result.findings)
        return write_as_check(args.format, checked, str(args.project_root), result.exit_code)
    from analyzer.render.diff_text import render_diff_text

    sys.stdout.write(render_diff_text(result))
    return result.exit_code if result.exit_code in (0, 2) else exitcodes.INTERNAL
