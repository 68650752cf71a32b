"""``analyze list``: the canonical memory entries by ID (spec §9.7)."""

from __future__ import annotations

import argparse
import sys

from analyzer import exitcodes
from analyzer.commands.indexing import add_lookup_arguments, add_project_arguments, answer, locations


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the list options (the reference's, plus the project options of `read`)."""
    parser.add_argument("--status", metavar="S", help="only entries whose status is S (e.g. active, legacy, INVALID)")
    parser.add_argument("--scope", metavar="S", help="only entries whose scope is S (e.g. project, area:web)")
    add_lookup_arguments(parser)
    add_project_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """List the index rows, or report why the index cannot be used."""
    ev, code = answer("list", args, ["listed", "local_status"], status=args.status, scope=args.scope)
    if ev is None:
        return code
    rows = ev.rows("listed")
    if args.format == "json":
        from analyzer.output import emit_json

        local = ev.relation("local_status")
        payload = {
            "status": "OK", "exit_code": exitcodes.OK,
            "filters": {"status": args.status, "scope": args.scope, "include_archive": args.include_archive,
                        "local": args.local},
            "local_overlay_status": local[0][0] if args.local and local else None,
            "entries": [{"id": r.id, "status": r.status, "scope": r.scope, "source": r.source, "kind": r.kind,
                         "locations": locations(r.location)} for r in rows],
        }
        return emit_json("list", "result", payload) or exitcodes.OK
    from analyzer.render.index_text import render_list

    sys.stdout.write(render_list(rows))
    return exitcodes.OK
