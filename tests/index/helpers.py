"""Fixtures for the ID index and Subject command tests: a writable copy of the bundled
example, a small-project builder and a CLI runner with private cache and state dirs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

import inprocess

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"
MEMORY = "docs/memory"


class Cli:
    """Runs ``analyze`` on one project root, returning (exit, stdout, stderr): in this process
    (tests/inprocess.py), or as a subprocess when a hash ``seed`` is asked for (Python reads it
    when a process starts)."""

    def __init__(self, tmp_path: Path, root: Path):
        self.tmp = tmp_path
        self.root = root
        self.state = tmp_path / "state"

    def __call__(self, *args: str, seed: Optional[str] = None, cache: str = "cache", root: Path = None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
        env.update(XDG_CACHE_HOME=str(self.tmp / cache), XDG_STATE_HOME=str(self.state))
        argv = [*args, "--project-root", str(root or self.root)]
        if seed is None:
            proc = inprocess.run(argv, env=env)
        else:
            env.update(PYTHONHASHSEED=seed, PYTHONPATH=str(REPO))
            proc = subprocess.run([sys.executable, "-m", "analyzer", *argv], capture_output=True, text=True, env=env,
                                  timeout=300)
        return proc.returncode, proc.stdout, proc.stderr

    def json(self, *args: str, **kw):
        """Run with ``--format json``; (exit, parsed document, stderr)."""
        code, out, err = self(*args, "--format", "json", **kw)
        assert out.strip(), err
        return code, json.loads(out), err


@pytest.fixture
def acme(tmp_path) -> Path:
    """A copy of examples/acme-shop (memory dir under ``docs/memory``) that tests may change."""
    root = tmp_path / "acme"
    shutil.copytree(EXAMPLE, root)
    return root


@pytest.fixture
def cli(tmp_path, acme) -> Cli:
    """The CLI runner on the ``acme`` copy."""
    return Cli(tmp_path, acme)


def memory(root: Path, rel: str) -> Path:
    """A path inside the project's memory dir."""
    return root / MEMORY / rel


def write(root: Path, rel: str, text: str) -> Path:
    """Write a memory file (creating folders)."""
    path = memory(root, rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def append(root: Path, rel: str, text: str) -> None:
    """Append text to a memory file."""
    path = memory(root, rel)
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def entry(eid: str, title: str = "An entry", status: str = "active", scope: str = "project", subject: str = "",
          facet: str = "", body: str = "Decision", extra: str = "") -> str:
    """The text of one schema-2 entry."""
    lines = [f"## {eid} — {title}", "", f"Status: {status}", f"Scope: {scope}"]
    lines += [f"Subject: {subject}"] if subject else []
    lines += [f"Facet: {facet}"] if facet else []
    lines += ["Evidence:", "- user-confirmed"] + ([extra] if extra else []) + ["", f"{body}:", "Body text.", ""]
    return "\n" + "\n".join(lines)


def overlay(state: Path, root: Path, preferences: str, roots=None, project_id: str = "") -> Path:
    """Lay out a local overlay for the project at ``root`` (dirs 0700, files 0600, spec §11)."""
    import re

    if not project_id:
        manifest = memory(root, "manifest.md").read_text(encoding="utf-8")
        project_id = re.search(r"^- project_id: (\S+)$", manifest, re.M).group(1)
    base = state / "memory-custodian" / "projects" / project_id
    state.mkdir(exist_ok=True)
    for d in (state / "memory-custodian", state / "memory-custodian" / "projects", base, base / "local",
              base / "local" / "profiles"):
        d.mkdir(exist_ok=True)
        d.chmod(0o700)
    files = {
        "bindings.json": json.dumps({"project_id": project_id,
                                     "roots": roots if roots is not None else [os.path.realpath(root)]}),
        "local/manifest.md": "# Local Memory Overlay\n\n- local_overlay_schema_version: 1\n"
                             f"- project_id: {project_id}\n\n## Preferences\n- preferences.md\n\n## Profiles\n",
        "local/preferences.md": "# Local Preferences\n" + preferences,
    }
    for rel, text in files.items():
        (base / rel).write_text(text, encoding="utf-8")
        (base / rel).chmod(0o600)
    return base
