"""``analyze list``: the canonical memory entries by ID (spec §9.7)."""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes
from analyzer.commands.indexing import add_lookup_arguments, add_project_arguments, answer, locations


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the list options (the reference's, plus the project options of `read`)."""
    parser.add_argument("--status", metavar="S", help="only entries whose status is S (e.g. active, legacy, INVALID)")
    parser.add_argument("--scope", metavar="S", help="only entries whose scope is S (e.g. project, area:web)")
    add_lookup_arguments(parser)
    add_project_arguments(parser)


def _filter_hint(args: argparse.Namespace, index_rows) -> None:
    """stderr, when a filter matched nothing: the closest status or scope the index holds
    (the listing and the exit status stand: an empty list is an answer)."""
    from analyzer.core.hints import did_you_mean
    from analyzer.project import vocab

    # the protocol's entry statuses (§5.6, rules/entries/fields.dl), and the label of a unit without one
    statuses = vocab.names("status_value") + ("-",)
    for flag, value, column, known in (("--status", args.status, 2, statuses), ("--scope", args.scope, 3, ())):
        if value is None:
            continue
        held = {row[column] for row in index_rows} | set(known)
        if value not in held:
            hint = did_you_mean(value, sorted(held))
            print(f"hint: no entry has {flag[2:]} {value!r}{hint}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """List the index rows, or report why the index cannot be used."""
    ev, code = answer("list", args, ["listed", "local_status", "index_row"], status=args.status, scope=args.scope)
    if ev is None:
        return code
    rows = ev.rows("listed")
    if not rows and (args.status or args.scope):
        _filter_hint(args, ev.relation("index_row"))
    if args.format == "json":
        from analyzer.contract.output import emit_json

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
