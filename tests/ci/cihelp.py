"""Shared helpers of the CI-format tests: run ``analyze`` in-process or in a subprocess,
normalize what changes with every release or rule edit, compare with golden files."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

from analyzer import __version__
from analyzer.commands.cli import main
from analyzer.core.fingerprint import ruleset_fingerprint

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"
GOLDEN = Path(__file__).resolve().parent / "golden"
SARIF_SCHEMA = REPO.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"


def copy_example(tmp: Path) -> Path:
    """A private copy of examples/acme-shop (outside any Git work tree)."""
    root = tmp / "acme"
    shutil.copytree(EXAMPLE, root)
    return root


def run_inproc(argv: List[str]) -> Tuple[str, str, int]:
    """``analyze ARGV`` in this process: (stdout, stderr, exit status)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return out.getvalue(), err.getvalue(), code


def run_proc(argv: List[str], tmp: Path, seed: str = "0", cwd=None, extra_env=None) -> subprocess.CompletedProcess:
    """``python -m analyzer ARGV`` in a subprocess with a private cache and hash seed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "GITHUB_"))}
    env.update(PYTHONHASHSEED=seed, XDG_CACHE_HOME=str(tmp / "cache"), PYTHONPATH=str(REPO), **(extra_env or {}))
    proc = subprocess.run([sys.executable, "-m", "analyzer", *argv], capture_output=True, text=True, env=env,
                          timeout=300, cwd=cwd)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def normalize(text: str, root: Path = None) -> str:
    """Placeholders for the ruleset fingerprint, the version and the temporary root."""
    text = text.replace(ruleset_fingerprint(), "<ruleset_fingerprint>")
    text = text.replace(f'"version": "{__version__}"', '"version": "<version>"')
    text = text.replace(f'"semanticVersion": "{__version__}"', '"semanticVersion": "<version>"')
    if root is not None:
        text = text.replace(str(root), "<root>")
    return text


def check_golden(name: str, text: str, request) -> None:
    """Compare ``text`` with golden/NAME (``--update-golden`` rewrites it: read the diff)."""
    path = GOLDEN / name
    if request.config.getoption("--update-golden"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no golden file {path}; run with --update-golden and read it"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


def sarif_validator():
    """A validator of the SARIF 2.1.0 schema from ../shared, checking formats too (``uri``:
    code scanning rejects a relative ``helpUri``); None when shared/ is absent."""
    if not SARIF_SCHEMA.is_file():
        return None
    import jsonschema

    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    # without a URI parser installed jsonschema passes any "uri" silently: the test extra
    # installs jsonschema[format-nongpl]; fail loudly rather than validate nothing
    assert "uri" in cls.FORMAT_CHECKER.checkers, "install jsonschema[format-nongpl] (the test extra)"
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def count_evaluations(monkeypatch) -> list:
    """Record the ``only`` argument of every evaluation of the check program (in this
    process) in the returned list."""
    from analyzer.query import check as check_query

    engine_type = type(check_query.check_program(False))
    calls: list = []
    real = engine_type.evaluate

    def counting(self, *args, **kwargs):
        calls.append(kwargs.get("only"))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(engine_type, "evaluate", counting)
    return calls
