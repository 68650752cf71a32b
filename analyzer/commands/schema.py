"""``analyze schema [REL] [--derived]``: what can be asked of a project's memory.

Lists the base relations (facts extracted from the project), the request relations and the
derived relations of every shipped rule program, with column names and types, doc comments
and the defining file:line; with REL, everything about one relation (also the rules that
derive it and the relations they read). docs/relations.md is generated from the same source.
"""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """REL, --derived and --format."""
    parser.add_argument("relation", nargs="?", metavar="REL", help="one relation to describe, e.g. owner")
    parser.add_argument("--derived", action="store_true", help="list only relations the rules derive")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def run(args: argparse.Namespace) -> int:
    """Print the relations asked for; exit 2 for an unknown REL (naming the nearest)."""
    from analyzer.query.relations import catalogue, nearest_relation, render_list, render_relation, select

    relations = catalogue()
    if args.relation is not None:
        info = relations.get(args.relation)
        if info is None:
            from analyzer.commands.read import usage_error

            near = nearest_relation(args.relation, relations)
            hint = f"; the nearest known relation is {near}" if near else ""
            return usage_error("schema", args, f"unknown relation {args.relation!r}{hint}", "DL915")
        chosen = [info]
    else:
        chosen = select(relations, derived_only=args.derived)
    if args.format == "json":
        from analyzer.contract.output import emit_json

        return emit_json("schema", "result", {"status": "OK", "relations": [r.as_dict() for r in chosen]})
    sys.stdout.write(render_relation(chosen[0]) if args.relation is not None else render_list(chosen))
    return exitcodes.OK
