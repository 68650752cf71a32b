"""``analyze subject list`` and ``analyze subject merge SOURCE --into TARGET`` (spec §9.6).

Both require an exact, valid Protocol 0.7 manifest contract and a Subject registry without
issues (else ``Error: …``, exit 2). ``merge`` is a preview only: it never writes.
"""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes
from analyzer.commands.indexing import add_project_arguments, answer, locations


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the two subcommands, each with the project options of `read`."""
    sub = parser.add_subparsers(dest="subject_command", metavar="SUBCOMMAND")
    sub.required = True
    listing = sub.add_parser("list", help="list the active Subjects",
                             description="List the active Subjects of subjects.md: ID, title, kind, Canonical-Ref.")
    add_project_arguments(listing)
    merge = sub.add_parser("merge", help="preview merging one Subject into another (never writes)",
                           description="Preview a merge of SOURCE into TARGET: current and historical references, "
                                       "review notes, blockers and a Plan ID. Nothing is written; apply needs "
                                       "Protocol 0.8.")
    merge.add_argument("source", metavar="SOURCE", help="the Subject ID to merge away")
    merge.add_argument("--into", required=True, metavar="TARGET", help="the Subject ID that remains")
    add_project_arguments(merge)


def run(args: argparse.Namespace) -> int:
    """Run the chosen subcommand."""
    if args.subject_command == "list":
        return _list(args)
    return _merge(args)


def _list(args: argparse.Namespace) -> int:
    ev, code = answer("subject", args, ["subject_listed", "subject_unit_of"], subjects=True)
    if ev is None:
        return code
    units = dict(ev.relation("subject_unit_of"))
    rows = sorted(ev.relation("subject_listed"))
    if args.format == "json":
        from analyzer.contract.output import emit_json

        payload = {"status": "OK", "exit_code": exitcodes.OK, "subjects": [
            {"id": shown, "title": title, "kind": kind, "canonical_ref": ref or None,
             "locations": locations(ev.locate("subjects.md", units[sid], "subject"))}
            for sid, shown, title, kind, ref in rows]}
        return emit_json("subject", "list", payload) or exitcodes.OK
    from analyzer.render.subject_text import render_subject_list

    sys.stdout.write(render_subject_list(rows))
    return exitcodes.OK


def _merge(args: argparse.Namespace) -> int:
    from analyzer.query.merge_preview import build_preview

    ev, code = answer("subject", args, ["merge_subject", "current_reference", "historical_reference",
                                        "merge_blocker", "merge_blocker_entry", "merge_review", "merge_status",
                                        "merge_project_id"],
                      subjects=True, merge=(args.source, args.into))
    if ev is None:
        return code
    preview = build_preview(ev)
    if args.format == "json":
        from analyzer.contract.output import emit_json

        return emit_json("subject", "merge", preview.payload()) or exitcodes.OK
    from analyzer.render.subject_text import render_merge_preview

    sys.stdout.write(render_merge_preview(preview))
    return exitcodes.OK
