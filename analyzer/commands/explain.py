"""``analyze explain CODE``: print the catalogue entry of a finding or reason code (like ``ruff rule``).

The text is the code's section of docs/findings.md, built from the ``@code`` block of the one
rule file that declares it. A reserved code (declared in rules/reserved.dl, produced by the
unbuilt ``analyze check``) is printed too, and its entry says that no rule derives it yet.
Fixtures are listed when the source tree (tests/) is present.
"""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the code argument."""
    parser.add_argument("code", metavar="CODE", help="a finding or reason code, e.g. MC-ROUTE-PATH, or one of the "
                        "tool's own codes (DL108, MA-FILE-ENCODING); case-insensitive")
    parser.add_argument("--rules", dest="packs", action="append", default=[], metavar="PACK.dl",
                        help="also know the codes this rule pack declares (repeatable)")


def run(args: argparse.Namespace, locate=None) -> int:
    """Print the entry; exit 2 with a message on stderr when the catalogue has no such code."""
    from analyzer.contract import catalog
    from analyzer.core.resources import data_dir, source_root

    code = args.code.strip().upper()
    if getattr(args, "packs", None):
        status = _pack_code(args, code)
        if status is not None:
            return status
    root = source_root()
    known = catalog.load(locate or data_dir, root=root)
    # MA- findings a rule file derives (MA-AUTONOMY-…) are in the catalogue; other DL and
    # MA codes are the tool's own diagnostics
    if (code.startswith("DL") or code.startswith("MA-")) and not known.find(code):
        return _tool_code(args.code, code)
    entries = known.find(code)
    if not entries:
        close = sorted(c for c in known.codes() if c.rsplit("-", 1)[0] == code.rsplit("-", 1)[0])
        hint = f"; codes of that family: {', '.join(close)}" if close else ""
        print(f"analyze explain: unknown code {args.code!r}: not in the catalogue{hint}", file=sys.stderr)
        return exitcodes.INVALID
    sys.stdout.write("\n".join(catalog.render_entry(e, with_fixtures=root is not None) for e in entries))
    return exitcodes.OK


def _tool_code(given: str, code: str) -> int:
    """A DL or MA code: its meaning and what to do about it."""
    from analyzer.contract.toolcodes import find, tool_codes

    entry = find(code)
    if entry is None:
        family = code[:3] if code.startswith("DL") else code.rsplit("-", 1)[0]
        close = sorted(c for c in tool_codes() if c.startswith(family))
        hint = f"; codes of that family: {', '.join(close)}" if close else ""
        print(f"analyze explain: unknown code {given!r}: not a code of the analyzer{hint}", file=sys.stderr)
        return exitcodes.INVALID
    sys.stdout.write(entry.render())
    return exitcodes.OK


def _pack_code(args: argparse.Namespace, code: str):
    """The entry of a code a ``--rules`` pack declares (None when no pack declares it); a
    wrong pack is reported as ``check --rules`` reports it (exit 2)."""
    from analyzer.contract.catalog import CodeEntry, render_entry
    from analyzer.core.diagnostics import DiagnosticError
    from analyzer.query.packs import load_packs

    try:
        packs = load_packs(args.packs)
    except DiagnosticError as exc:
        for diag in exc.diagnostics:
            print(diag.render(), file=sys.stderr)
        return exitcodes.INVALID
    for declared in packs.codes():
        if declared.code == code:
            entry = CodeEntry(declared.code, "finding", declared.title, declared.severity, declared.relation,
                              f"{declared.span.path}:{declared.span.line}", declared.explanation)
            sys.stdout.write(render_entry(entry, with_fixtures=False))
            return exitcodes.OK
    return None
