"""``analyze query PROGRAM.dl [--facts DIR] PATTERN``: evaluate a program, print matching tuples.

Only the strata the pattern's relation needs are evaluated. Bad input (syntax, static
checks, pattern, facts files, a cycle through negation) prints diagnostics to stderr and
exits 2; so does a resource limit, with a message naming it.
"""

from __future__ import annotations

import argparse
import sys

from analyzer import exitcodes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Program, pattern, facts directory, output format and evaluation options."""
    parser.add_argument("program", metavar="PROGRAM.dl", help="datalog program (Soufflé subset)")
    parser.add_argument("pattern", metavar="PATTERN", help="e.g. 'path(X, \"a\", _)'")
    parser.add_argument("--facts", metavar="DIR", help="directory of Rel.facts files (tab-separated)")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table")
    parser.add_argument("--why", action="store_true", help="print a proof tree for each tuple")
    parser.add_argument("--profile", action="store_true", help="print per-rule time, iterations, tuples")
    parser.add_argument("--no-cache", action="store_true",
                        help="compile the program afresh instead of using the compiled-program cache")
    parser.add_argument("--max-tuples", type=int, default=None, metavar="N",
                        help="stop when more than N tuples have been derived (default 50,000,000)")
    parser.add_argument("--timeout", type=float, default=None, metavar="S",
                        help="stop after S seconds of evaluation")


def run(args: argparse.Namespace) -> int:
    """Evaluate and print; 0 on success (with or without matches), 2 on invalid input or a limit."""
    from analyzer.diagnostics import Diagnostic, DiagnosticError
    from analyzer.engine.errors import EngineError, EvaluationLimitError

    try:
        engine, atom, facts, spans = _inputs(args)
        program = engine.program
        db = _evaluate(args, engine, facts, spans, atom.rel)
        rows = db.query(atom)
    except DiagnosticError as exc:
        return _fail(args, exc.diagnostics, "INVALID")
    except EvaluationLimitError as exc:
        return _fail(args, [exc.diagnostic(args.program)], "LIMIT")
    except EngineError as exc:
        return _fail(args, [exc.diagnostic(args.program)], "INVALID")
    except RecursionError:
        diag = Diagnostic(_span(args.program), "DL913", "program too deeply nested to evaluate")
        return _fail(args, [diag], "INVALID")
    return _emit(args, program.decls[atom.rel], atom, rows, db)


def _inputs(args):
    from pathlib import Path

    from analyzer.diagnostics import Diagnostic, DiagnosticError
    from analyzer.engine.cache import load_engine
    from analyzer.engine.sourcefile import require_regular
    from analyzer.engine.syntax import parse_query

    try:
        require_regular(args.program)  # a FIFO or directory is named as such, never read
        engine = load_engine(Path(args.program), use_cache=not args.no_cache)
        program = engine.program
    except OSError as exc:
        raise DiagnosticError([Diagnostic(_span(args.program), "DL914", f"cannot read program: {exc.strerror}")])
    atom = parse_query(args.pattern)
    decl = program.decls.get(atom.rel)
    where = atom.span or _span("<pattern>")
    if decl is None:
        raise DiagnosticError([Diagnostic(where, "DL915", f"pattern names undeclared relation {atom.rel!r}",
                                          source_line=args.pattern)])
    if len(atom.args) != decl.arity:
        raise DiagnosticError([Diagnostic(where, "DL916", f"{atom.rel} has {decl.arity} columns, the pattern "
                                          f"gives {len(atom.args)}", source_line=args.pattern)])
    facts, spans = {}, {}
    if args.facts:
        from analyzer.engine.factsio import read_facts_dir

        facts, spans = read_facts_dir(args.facts, program.decls)
    return engine, atom, facts, spans


def _evaluate(args, engine, facts, spans, rel):
    from analyzer.engine.limits import Limits

    limits = Limits()
    if args.max_tuples is not None or args.timeout is not None:
        limits = Limits(max_tuples=args.max_tuples if args.max_tuples is not None else limits.max_tuples,
                        timeout_s=args.timeout)
    engine.limits = limits
    return engine.evaluate(facts, spans=spans, provenance=args.why, profile=args.profile, only=[rel])


def _span(path):
    from analyzer.span import Span

    return Span(str(path), 1, 1)


def _fail(args, diagnostics, status: str) -> int:
    for diag in diagnostics:
        print(diag.render(), file=sys.stderr)
    if args.format == "json":
        from analyzer.output import diagnostics_payload, emit_json

        code = emit_json("query", "error", diagnostics_payload(diagnostics, status))
        return exitcodes.INVALID if code == exitcodes.OK else code
    return exitcodes.INVALID


def _emit(args, decl, atom, rows, db) -> int:
    proofs = [db.why(atom.rel, row) for row in rows] if args.why else None
    if args.format == "json":
        from analyzer.output import emit_json

        payload = {"status": "MATCH" if rows else "NO_MATCH", "pattern": args.pattern,
                   "relation": atom.rel, "tuples": [list(r) for r in rows]}
        if proofs is not None:
            payload["proofs"] = [p.as_dict() for p in proofs]
        if args.profile:
            payload["profile"] = [s.as_dict() for s in db.stats if not s.rule.is_fact]
        return emit_json("query", "result", payload)
    header = [c.name for c in decl.columns]
    cells = [[str(v) for v in row] for row in rows]
    if args.format == "csv":
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(cells)
    else:
        widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
        for row in [header, ["-" * w for w in widths]] + cells:
            print("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
        print(f"({len(rows)} tuple{'' if len(rows) == 1 else 's'})")
    out = sys.stderr if args.format == "csv" else sys.stdout
    for proof in proofs or ():
        print("", file=out)
        print(proof.render(), file=out)
    if args.profile:
        from analyzer.engine.profile import render_profile

        print("", file=out)
        print(render_profile(db.stats), file=out)
    return exitcodes.OK
