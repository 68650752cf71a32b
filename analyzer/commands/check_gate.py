"""The gating options of ``analyze check`` and ``analyze report`` (``--fail-on``,
``--select``, ``--ignore``, ``--baseline``): their arguments, the gate they make, and the
note a gated run prints. What gating does is analyzer/commands/gating.py."""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the gating options (also set by the project configuration)."""
    from analyzer.project import vocab

    parser.add_argument("--fail-on", choices=vocab.fail_on(), default=None,
                        help="exit 1 on findings at this level or worse: review (REVIEW, WARNING), conflict (CONFLICT, "
                             "INVALID, ERROR: the reference's rule), error (INVALID, ERROR), never; default: the "
                             "reference's exit rule")
    parser.add_argument("--select", action="append", default=None, metavar="CODES",
                        help="report only these codes or code prefixes (comma-separated, repeatable), e.g. MC-FRESH")
    parser.add_argument("--ignore", action="append", default=None, metavar="CODES",
                        help="do not report these codes or code prefixes (comma-separated, repeatable)")
    parser.add_argument("--baseline", default=None, metavar="FILE",
                        help="report only findings not in FILE, a previous --format json or sarif output "
                             "(matched by fingerprint)")


def make_gate(args: argparse.Namespace, command: str = "check", extra_codes=(), on_error=None):
    """The gate of the command line with its baseline read, or exit 2 (an int) for an
    unusable baseline or a ``--select`` / ``--ignore`` pattern that matches no code the
    run can report (the catalogue's and ``extra_codes``, a rule pack's); ``command`` names
    the command in the error line; ``on_error(code, message)`` is told the error too (check
    writes it to its requested artefacts)."""
    from analyzer.commands.gating import BaselineError, Gate, load_baseline, unknown_patterns

    def codes(values):
        return [c.strip() for value in values or () for c in value.split(",") if c.strip()]

    gate = Gate(args.fail_on, codes(args.select), codes(args.ignore), args.baseline)
    if gate.select or gate.ignore:
        from analyzer.contract import catalog

        known = {e.code for e in catalog.load().entries if e.kind not in catalog.VALUE_KINDS} | set(extra_codes)
        unknown = unknown_patterns(list(gate.select) + list(gate.ignore), known)
        if unknown:
            message = (f"--select/--ignore: no finding code starts with {', '.join(map(repr, unknown))} (codes are "
                       "case-sensitive, e.g. MC-FRESH or MC-CONFLICT-001; `analyze explain CODE` describes one)")
            print(f"analyze {command}: error: MA-USAGE: {message}", file=sys.stderr)
            if on_error is not None:
                on_error("MA-USAGE", message)
            return exitcodes.INVALID
    if args.baseline:
        try:
            gate.known = load_baseline(args.baseline)
        except BaselineError as exc:
            print(f"analyze {command}: error: MA-BASELINE: {exc}", file=sys.stderr)
            if on_error is not None:
                on_error("MA-BASELINE", str(exc))
            return exitcodes.INVALID
    return gate


def apply_gate(result, gate, command: str = "check"):
    """The gated result; a note on stderr when the gate hid findings or changed the exit."""
    from analyzer.commands.gating import apply

    gated = apply(result, gate)
    if gated.gate is not None and (gated.gate["hidden"] or gated.exit_code != result.exit_code):
        print(f"analyze {command}: {gated.gate['hidden']} finding(s) hidden by --select/--ignore/--baseline; "
              f"exit {gated.exit_code} by --fail-on {gated.gate['fail_on']}", file=sys.stderr)
    return gated
