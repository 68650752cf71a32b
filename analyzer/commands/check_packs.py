"""``analyze check --rules PACK.dl``: the command-line side of rule packs (the packs
themselves are analyzer/query/packs.py). Kept apart from analyzer/commands/check.py so the
family options and the pack options evolve separately."""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Tuple

from analyzer.core import exitcodes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare ``--rules``."""
    parser.add_argument("--rules", dest="packs", action="append", default=[], metavar="PACK.dl",
                        help="also report the findings of a rule pack (repeatable)")
    parser.add_argument("--with-proofs", action="store_true",
                        help="add a proof tree to every finding (JSON `proofs`, SARIF code flows)")


def load(args: argparse.Namespace) -> Tuple[Optional[object], Optional[int]]:
    """``(PackSet or None, None)``, or ``(None, exit status)`` after reporting a bad pack on
    stderr (and the ``check.error`` document with ``--format json``): exit 2."""
    if not args.packs:
        return None, None
    from analyzer.core.diagnostics import DiagnosticError
    from analyzer.query.packs import load_packs

    try:
        return load_packs(args.packs, use_cache=not args.no_cache), None
    except DiagnosticError as exc:
        for diag in exc.diagnostics:
            print(diag.render(), file=sys.stderr)
        from analyzer.commands import check_errors

        first = exc.diagnostics[0]
        status = check_errors.write(args, "\n".join(d.render(caret=False) for d in exc.diagnostics), first.code,
                                    first.span.path, first.span.line, first.span.col)
        if status != exitcodes.INVALID:
            return None, status
        if args.format == "json":
            from analyzer.contract.output import emit_json

            status = emit_json("check", "error", {"status": "INVALID", "exit_code": exitcodes.INVALID,
                                                  "diagnostics": [d.as_dict() for d in exc.diagnostics]})
            if status:
                return None, status
        return None, exitcodes.INVALID
