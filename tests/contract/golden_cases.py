"""Run one golden case (tests/golden/<command>/<case>/) in-process and normalize its output."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path
from typing import Tuple

from analyzer import __version__
from analyzer.commands.cli import main
from analyzer.core.fingerprint import ruleset_fingerprint

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"


def run_case(folder: Path) -> Tuple[str, int]:
    """Run the case's argv with the case folder as working directory: (raw stdout, exit status)."""
    argv = (folder / "argv").read_text(encoding="utf-8").splitlines()
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse usage errors
                code = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.chdir(cwd)
    return out.getvalue(), code


def normalize(stdout: str) -> str:
    """Replace the values that change with every rule edit, release or checkout by placeholders."""
    from analyzer.project.extract.overlay import state_root

    # the overlay directory read names lies under the user's state directory
    text = stdout.replace(ruleset_fingerprint(), "<ruleset_fingerprint>").replace(str(REPO), "<repo>")
    text = text.replace(state_root(), "<state>")
    return re.sub(r'("analyzer": \{\s*"version": )"' + re.escape(__version__) + '"', r'\1"<version>"', text)
