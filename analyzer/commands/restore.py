"""``analyze restore --preview ID --base REV``: the unit at the base and the patch that would
restore it. Preview only: nothing is applied or written.

Exit 0 (READY, or UNCHANGED: nothing to restore), 1 (WARNING: MA-ROLLBACK-002, a restore
would discard later edits), 2 (the ID is in neither revision, its change cannot be read, or
Git cannot answer).
"""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the restore options."""
    parser.add_argument("--preview", required=True, metavar="ID",
                        help="the Entry, Subject or record ID, or a free-form unit as diff names it "
                             "(<file>#unit-<n>), to restore (only a preview exists: nothing is applied)")
    parser.add_argument("--base", required=True, metavar="REV", help="restore the unit's text at REV")
    from analyzer.commands.diff import head_revision

    parser.add_argument("--head", default=None, type=head_revision, metavar="REV", help="the revision the patch applies to (default: the work tree)")
    from analyzer.project.root import add_root_arguments

    add_root_arguments(parser)
    parser.add_argument("--no-cache", action="store_true",
                        help="do not read or write the parse cache or the per-commit Git results (history cache)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def run(args: argparse.Namespace) -> int:
    """Preview the restore and print it (text or the ``restore.result`` document)."""
    from pathlib import Path

    from analyzer.commands.read import history_error, usage_error
    from analyzer.query.restore import run_restore
    from analyzer.project.root import resolve_root

    args.project_root = resolve_root(args.project_root, args.memory_dir).path
    if not Path(args.project_root).is_dir():
        return usage_error("restore", args, f"project root is not a directory: {args.project_root}")
    result = run_restore(Path(args.project_root), args.memory_dir, args.preview, args.base, args.head, not args.no_cache)
    if result.failure is not None:
        return history_error("restore", args, result.failure)
    if args.format == "json":
        from analyzer.contract.output import emit_json
        from analyzer.render.restore_out import restore_payload

        return emit_json("restore", "result", restore_payload(result)) or _hint(args, result) or result.exit_code
    from analyzer.render.restore_out import render_restore_text

    out = render_restore_text(result)
    (sys.stdout if result.exit_code != 2 else sys.stderr).write(out)
    _hint(args, result)
    return result.exit_code if result.exit_code in (0, 1, 2) else exitcodes.INTERNAL


def _hint(args: argparse.Namespace, result) -> None:
    """stderr: for an ID neither revision holds, the IDs it could be (a truncated or mistyped
    ID), as ``show`` suggests them; the answer and exit status stand."""
    if result.status == "UNKNOWN":
        from analyzer.commands.indexing import unknown_id_hint

        unknown_id_hint(args.preview, result.known)
