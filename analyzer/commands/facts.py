"""``analyze facts``: read a memory project and dump its fact base (table, json or Soufflé files).

Problems in the project's files are diagnostics (stderr, and ``diagnostic`` facts); they do
not fail the command. Stderr shows the first :data:`SHOWN` and counts the rest per code and
file; ``--format json`` carries every one. Exit 2 only when no fact base can be built (the root is not a
directory, or --out is unusable).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter

from analyzer.core import exitcodes

SHOWN = 50  # diagnostics printed on stderr before the rest are only counted


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the facts options."""
    from analyzer.project.root import add_root_arguments

    add_root_arguments(parser)
    parser.add_argument("--format", choices=("table", "json", "souffle"), default="table",
                        help="table (default), json, or souffle (one <Rel>.facts file per relation, needs --out)")
    parser.add_argument("--out", metavar="DIR", help="directory for --format souffle (created if needed)")
    parser.add_argument("--relation", action="append", default=[], metavar="NAME",
                        help="only dump this relation (repeatable)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the facts cache")
    from analyzer.commands.bounds import add_max_file_bytes

    add_max_file_bytes(parser)


def _error(message: str, path: str, fmt: str, code: str = "MA-USAGE") -> int:
    from analyzer.core.diagnostics import Diagnostic
    from analyzer.core.span import Span

    diag = Diagnostic(Span(path, 1, 1), code, message)
    if fmt == "json":
        from analyzer.contract.output import diagnostics_payload, emit_json

        code = emit_json("facts", "error", diagnostics_payload([diag]))
        return exitcodes.INVALID if code == exitcodes.OK else code
    # a command-line mistake has no file to point at (it printed ".:1:1:")
    print(f"analyze facts: error: {code} {message}" if path == "<command line>" else diag.render(caret=False),
          file=sys.stderr)
    return exitcodes.INVALID


def print_diagnostics(diagnostics, shown: int = SHOWN) -> None:
    """The first ``shown`` diagnostics on stderr, then how many more there are per code and
    file (a broken file can have thousands of near-identical ones; JSON keeps them all)."""
    for diag in diagnostics[:shown]:
        print(diag.render(caret=False), file=sys.stderr)
    rest = diagnostics[shown:]
    if rest:
        print(f"... and {len(rest)} more diagnostics:", file=sys.stderr)
        counts = Counter((d.code, d.span.path) for d in rest)
        for (code, path), count in sorted(counts.items()):
            print(f"  {count} {code} in {path}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Load the project and print or write its facts."""
    from analyzer.engine.factsio import fact_line
    from analyzer.project.loader import load_project
    from analyzer.project.root import resolve_root
    from analyzer.project.schema import declared_relations

    args.project_root = resolve_root(args.project_root, args.memory_dir).path
    if not os.path.isdir(args.project_root):
        return _error("project root is not a directory", args.project_root, args.format)
    if args.format == "souffle" and not args.out:
        return _error("--format souffle needs --out DIR", "<command line>", args.format)
    if args.format == "souffle":
        from analyzer.commands.outfiles import refusal

        reason = refusal(args.out, args.project_root, args.memory_dir, directory=True)
        if reason:
            return _error(f"refused to write into {args.out}: {reason}", args.out, args.format, "MA-OUTPUT")
    project = load_project(args.project_root, memory_dir=args.memory_dir, use_cache=not args.no_cache,
                           max_file_bytes=args.max_file_bytes)
    declared = declared_relations()
    names = sorted(declared) if not args.relation else sorted(set(args.relation))
    unknown = [n for n in names if n not in declared]
    if unknown:
        from analyzer.core.hints import closest

        near = [f"{n} (did you mean {m[0]!r}?)" if m else n for n in unknown for m in [closest(n, declared)]]
        return _error(f"undeclared relation(s): {', '.join(near)}", "<command line>", args.format)
    print_diagnostics(project.diagnostics)
    relations = {name: project.facts.relation(name) for name in names}
    if args.format == "json":
        from analyzer.contract.output import emit_json

        return emit_json("facts", "result", {
            "status": "DIAGNOSTICS" if project.diagnostics else "OK",
            "project_root": project.root,
            "relations": [{"name": n, "tuples": [list(t) for t in relations[n]]} for n in names],
            "diagnostics": [d.as_dict() for d in project.diagnostics],
        })
    if args.format == "souffle":
        from analyzer.commands.outfiles import OutputRefused, write_text

        try:
            os.makedirs(args.out, exist_ok=True)
            for name in names:
                write_text(os.path.join(args.out, f"{name}.facts"), "".join(fact_line(f) for f in relations[name]),
                           args.project_root, args.memory_dir)
        except OutputRefused as exc:
            return _error(str(exc), args.out, args.format, "MA-OUTPUT")
        except OSError as exc:
            return _error(f"cannot write facts: {exc.strerror}", args.out, args.format)
        return exitcodes.OK
    for name in names:
        if not relations[name]:
            continue
        print(f"{name} ({len(relations[name])})")
        for fact in relations[name]:
            print("  " + fact_line(fact), end="")
    return exitcodes.OK
