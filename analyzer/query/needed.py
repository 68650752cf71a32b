"""Fail closed on the managed files a command needs.

The loader never stops on a bad file: it records why each unusable managed path could not be
used (``Project.unusable``: not readable, not UTF-8, over the size cap, a symlink, not a
regular file, a directory it could not list) and carries on, so that ``analyze facts`` can
show everything that is wrong. A command that *uses* files must not: a pack that silently
lacks a module's text, or a conflict status computed without a file, is a wrong answer.

Usage, from a command (``needed`` usually comes from a rule-derived relation such as
``needed_file`` of rules/needed.dl, so the rules say which files a command needs)::

    from analyzer.query.needed import UnusableInput, require_usable

    try:
        require_usable(project, needed)          # raises UnusableInput
    except UnusableInput as exc:
        return exc.report("list", args.format)   # "Error: ..." on stderr (+ JSON error shape), exit 2
"""

from __future__ import annotations

import sys
from typing import Iterable, List

from analyzer.core import exitcodes
from analyzer.core.diagnostics import Diagnostic, sort_diagnostics


def unusable(project, needed: Iterable[str]) -> List[Diagnostic]:
    """Why each needed path (relative to the memory dir) could not be used, sorted; empty if all are usable."""
    return sort_diagnostics(project.unusable[m] for m in set(needed) if m in project.unusable)


class UnusableInput(Exception):
    """A file a command needs could not be used; carries one diagnostic per such file."""

    def __init__(self, diagnostics: List[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("; ".join(self.lines()))

    def lines(self) -> List[str]:
        """The ``Error: path:line:col: CODE message`` lines, one per file."""
        return [error_line(d) for d in self.diagnostics]

    def report(self, command: str, fmt: str = "text", **fields) -> int:
        """Print one ``Error: path:line:col: CODE message`` line per file on stderr and, for
        ``fmt == "json"``, the command's ``error`` shape on stdout (its diagnostics, plus the
        ``fields`` that command's shape adds, e.g. ``exit_code``); returns the exit status (2)."""
        for line in self.lines():
            print(line, file=sys.stderr)
        if fmt == "json":
            from analyzer.contract.output import diagnostics_payload, emit_json

            payload = {**diagnostics_payload(self.diagnostics), **fields}
            return emit_json(command, "error", payload) or exitcodes.INVALID
        return exitcodes.INVALID


def require_usable(project, needed: Iterable[str]) -> None:
    """Raise :class:`UnusableInput` when any needed path could not be used."""
    problems = unusable(project, needed)
    if problems:
        raise UnusableInput(problems)


def error_line(diag: Diagnostic) -> str:
    """The stderr line of an unusable file: ``Error: <path>:<line>:<col>: <CODE> <message>``."""
    return f"Error: {diag.render(caret=False)}"
