"""Lay out one conformance case and run the CLI on it in process.

A case (see cases.py) states a project as changes to the firing corpus's base project
(tests/corpus/_base and its generated manifest), or reuses a firing-corpus case folder with
``from_corpus``; then the command, and what the run must show. The CLI runs in this process
(``analyzer.commands.cli.main``) with private XDG directories: these cases are about what the analyzer
answers, not about the process, and a subprocess per run would cost most of their time.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

import corpus_project as cp

from analyzer.commands import cli


@dataclass
class Run:
    """The outcome of one CLI run."""

    exit_code: int
    stdout: str
    stderr: str


def build(case: dict, work: Path) -> Path:
    """Write the case's project (and local overlay) under ``work``; its root."""
    root = work / "project"
    folder = cp.CORPUS / case["from_corpus"] if case.get("from_corpus") else None
    if folder is not None:
        cp.build_project(folder, root)
    else:
        import shutil

        shutil.copytree(cp.BASE, root)
        text = cp.manifest_text(case.get("manifest"))
        for old, new in case.get("edits", ()):
            assert old in text, f"edit target not in the generated manifest: {old!r}"
            text = text.replace(old, new, 1)
        (root / cp.MEMORY / "manifest.md").write_text(text, encoding="utf-8")
        for name in case.get("remove", ()):
            (root / cp.MEMORY / name).unlink()
    for rel, content in (case.get("files") or {}).items():
        path = root / cp.MEMORY / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return root


def environment(case: dict, root: Path, work: Path) -> Dict[str, str]:
    """The XDG directories of this case (and the Git settings of a case with a history)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(XDG_CACHE_HOME=str(work / "cache"), XDG_STATE_HOME=str(work / "state"))
    folder = cp.CORPUS / case["from_corpus"] if case.get("from_corpus") else None
    if "overlay" in case:
        write_overlay(case["overlay"], work / "state", root)
    if folder is not None:
        cp.write_overlay(folder, work / "state", root)
        env = cp.write_history(folder, root, env)
    return env


def write_overlay(spec: dict, state_home: Path, root: Path) -> None:
    """A private local overlay (folders 0700, files 0600) for the base project: ``roots`` (bound
    roots, ``"<root>"`` being this project), and the texts of ``manifest``, ``preferences`` or
    any other ``files`` under ``local/`` (defaults: the firing corpus's overlay)."""
    base = state_home / "memory-custodian" / "projects" / cp.PROJECT_ID
    (base / "local" / "profiles").mkdir(parents=True)
    for folder in (state_home / "memory-custodian", base.parent, base, base / "local", base / "local" / "profiles"):
        folder.chmod(0o700)
    roots = [str(root.resolve()) if r == "<root>" else r for r in spec.get("roots", ["<root>"])]
    files = {"manifest.md": spec.get("manifest", cp.LOCAL_MANIFEST.format(id=cp.PROJECT_ID)),
             "preferences.md": spec.get("preferences", cp.LOCAL_PREFERENCES)}
    texts = {base / "bindings.json": json.dumps({"project_id": cp.PROJECT_ID, "roots": roots})}
    texts.update({base / "local" / name: text for name, text in files.items()})
    for path, text in texts.items():
        path.write_text(text, encoding="utf-8")
        path.chmod(0o600)


def snapshot(root: Path) -> Dict[str, bytes]:
    """Every file under ``root`` but Git's own, with its bytes (to prove a run wrote nothing)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def run(argv: List[str], root: Path, env: Dict[str, str], monkeypatch) -> Run:
    """``analyze ARGV --project-root ROOT`` in this process, with ``env`` as the environment."""
    for key in [k for k in os.environ if k not in env]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(root)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([*argv, "--project-root", str(root)])
        except SystemExit as stop:  # argparse refusals
            code = stop.code if isinstance(stop.code, int) else 2
    return Run(code, out.getvalue(), err.getvalue())


def json_of(result: Run) -> Optional[dict]:
    """The JSON document of a ``--format json`` run (None when stdout holds none)."""
    try:
        return json.loads(result.stdout)
    except ValueError:
        return None
