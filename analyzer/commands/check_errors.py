"""Every artefact ``analyze check`` was asked for, when it cannot run: a configuration, usage,
rule-pack, baseline or project-root error still writes each requested ``--output FORMAT:FILE``
(and the ``--format`` output on stdout) from a :func:`~analyzer.contract.check_model.failed_run`
result, so a CI upload step finds its file and shows the cause: SARIF with
``executionSuccessful: false`` and the error as a notification, a JUnit ``error`` case, a
``::error`` annotation and a line in ``$GITHUB_STEP_SUMMARY``, a Markdown summary.

Text and JSON are not written here: the caller has put the error on stderr and, for
``--format json``, printed the ``check.error`` document already.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from typing import List

from analyzer.core import exitcodes

#: formats whose error output the caller has written (stderr text, the JSON error document)
WRITTEN_BY_CALLER = ("text", "json")


def write(args: argparse.Namespace, message: str, code: str, path: str = "", line: int = 1, col: int = 1) -> int:
    """Write the error ``message`` (``code``, at ``path:line:col`` when a file is at fault) to
    every output the command line requested; ``exitcodes.INVALID`` (or the write's failure)."""
    from analyzer.commands.check import sarif_options, write_outputs
    from analyzer.contract.check_model import failed_run
    from analyzer.commands.check_formats import RENDERERS, Context, render

    fmt = getattr(args, "format", None)
    fmt = fmt if fmt in RENDERERS else "text"
    # the project root and memory dir go along: every file is written through analyzer/commands/outfiles.py,
    # which refuses a target in the memory dir or .git of this project
    shown = argparse.Namespace(format=fmt, output=list(getattr(args, "output", None) or []),
                               project_root=str(getattr(args, "project_root", None) or "."),
                               memory_dir=getattr(args, "memory_dir", None) or "docs/memory")
    result = failed_run(message, code, path, line, col)
    ctx = Context(str(getattr(args, "project_root", None) or "."), **sarif_options(args))
    status = write_outputs(shown, lambda f: render(f, result, ctx), stdout=fmt not in WRITTEN_BY_CALLER)
    return status or exitcodes.INVALID


def usage_words(words: List[str]) -> argparse.Namespace:
    """What a ``check`` command line argparse refused still says about its outputs: every
    ``--output``, ``--format``, ``--project-root``, ``--memory-dir`` and SARIF option given
    (read without argparse, which stopped at the error)."""
    found = argparse.Namespace(format=None, output=[], project_root=None, memory_dir=None, help_uri=None,
                               sarif_category=None)
    names = {"--output": "output", "--format": "format", "--project-root": "project_root",
             "--memory-dir": "memory_dir", "--help-uri": "help_uri", "--sarif-category": "sarif_category"}
    i = 0
    while i < len(words):
        word = words[i]
        key, sep, value = word.partition("=")
        if key in names and (sep or i + 1 < len(words)):
            if not sep:
                value, i = words[i + 1], i + 1
            if names[key] == "output":
                found.output.append(value)
            else:
                setattr(found, names[key], value)
        i += 1
    from analyzer.commands.check_formats import RENDERERS

    if found.format not in RENDERERS:
        found.format = None
    return found


def parse_or_report(parser: argparse.ArgumentParser, words: List[str]) -> tuple:
    """``parser.parse_known_args(words)`` for ``check``; on a usage error, argparse's message on
    stderr as usual, then the requested artefacts with it (MA-USAGE), and SystemExit(2)."""
    import sys

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return parser.parse_known_args(words)
    except SystemExit as exc:
        sys.stderr.write(err.getvalue())
        if exc.code not in (0, None):
            lines = [l for l in err.getvalue().splitlines() if l.strip()]
            message = lines[-1] if lines else "invalid command line"
            write(usage_words(words[1:]), message, "MA-USAGE")
        raise
