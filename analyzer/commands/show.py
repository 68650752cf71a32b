"""``analyze show ID``: one entry, legacy unit or record of the ID index (spec §9.7)."""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes
from analyzer.commands.indexing import add_lookup_arguments, add_project_arguments, answer, locations


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the show options: the ID, and the index options of `list`."""
    parser.add_argument("id", metavar="ID", help="Entry or record ID (case-insensitive), or a legacy unit reference "
                                                 "such as constraints.md#unit-1")
    add_lookup_arguments(parser)
    add_project_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Print the unit the index holds for ID, or report why it cannot."""
    ev, code = answer("show", args, ["shown_row", "shown_hidden_line", "shown_subject", "index_row"], lookup=args.id)
    if ev is None:
        return code
    row = ev.rows("shown_row")[0]
    hidden = {line for (line,) in ev.relation("shown_hidden_line")}
    unit = [text for n, text in ev.unit_lines(row.module, row.ordinal, row.kind) if n not in hidden]
    subjects = ev.relation("shown_subject")
    if args.format == "json":
        from analyzer.contract.output import emit_json

        payload = {
            "status": "OK", "exit_code": exitcodes.OK, "id": row.id, "kind": row.kind, "entry_status": row.status,
            "scope": row.scope, "source": row.source,
            "subjects": [{"historical": h, "current": c} for h, c in subjects],
            "text": "\n".join(unit), "locations": locations(row.location),
        }
        return emit_json("show", "result", payload) or exitcodes.OK
    from analyzer.render.index_text import render_show

    sys.stdout.write(render_show(row.source, subjects, unit))
    return exitcodes.OK
