"""Build the project (and local overlay state) of one corpus case from its folder.

A case folder ``tests/corpus/<CODE>/<fires|quiet>/`` holds:

- ``request.json``: ``{"argv": [...]}``, the ``analyze read`` arguments, or
  ``{"command": "check", "argv": [...]}`` for a code ``analyze check`` reports;
- ``project.json`` (optional): ``{"manifest": {...}, "remove": [...], "git": true}``: how the
  manifest differs from the base one (see :func:`manifest_text`), which memory files to drop
  (``manifest.md`` included), and whether the project is a Git repository with one commit;
- ``docs/...`` (optional): files written over the base project ``tests/corpus/_base``;
- ``root/...`` (optional): files written at the project root, outside the memory dir (the
  agent entry files plain `check` reads);
- ``state.json`` (optional): a local overlay to create under XDG_STATE_HOME (see
  :func:`write_overlay`);
- ``git.json`` (optional, for merge review codes): a two-sided Git history built on the
  project (see :func:`write_history`); ``request.json`` then names ``"command": "check"``;
- ``steps/<NN-name>/`` (optional, for history codes): one commit per step over the project
  (corpus_history.py); ``request.json`` names the command (``diff``, ``check --autonomy``,
  ``restore``) and may name ``"format"`` (``sarif`` for the codes only CI formats name);
- ``where.txt`` (fires cases whose code has a place): the ``path:line`` places expected.

The manifest is generated here so that each case states only what it changes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scenarios"))
import gitsteps  # noqa: E402  (the scenario harness's Git history builder)

CORPUS = Path(__file__).resolve().parent
BASE = CORPUS / "_base"
MEMORY = Path("docs") / "memory"
PROJECT_ID = "3f2b8c1d-5e6a-4b7c-9d8e-1f2a3b4c5d6e"
OUTCOMES = ("fires", "quiet")

# The protocol block of a valid 0.7 manifest; a case may change or drop (null) any key.
PROTOCOL = {
    "protocol_version": "0.7",
    "entry_schema_version": "2",
    "subject_schema_version": "1",
    "subject_registry": "subjects.md",
    "routing_schema_version": "1",
    "conflict_schema_version": "1",
    "initialized_with": "memory-custodian 0.11.0",
    "last_migrated_with": "memory-custodian 0.11.0",
    "project_id": PROJECT_ID,
    "admission_policy": "evidence-required",
    "routing_policy": "explicit-task-and-scope",
    "conflict_policy": "canonical-subject-and-review",
}

# Route headings of `## Load by task`, in manifest order.
TASK_HEADINGS = {
    "planning": "Planning / architecture / refactoring",
    "implementation": "Implementation / execution / debugging",
    "artifact": "User-facing artifact / output",
    "preferences": "Preferences",
    "history": "Change history / recap",
    "maintenance": "Memory maintenance",
}

# Module names per route; a leading "?" puts the name under `Load if present:`.
ROUTES = {
    "always": ["brief.md", "constraints.md"],
    "planning": ["decisions.md"],
    "implementation": ["decisions.md", "do-not-use.md"],
    "artifact": ["do-not-use.md"],
    "preferences": ["?preferences.md"],
    "history": ["decisions.md"],
    "maintenance": ["do-not-use.md"],
}

FOLDERS = (("rules", "Enabled rules"), ("profiles", "Enabled profiles"), ("areas", "Enabled areas"))


def _route_lines(names: List[str]) -> List[str]:
    required = [n for n in names if not n.startswith("?")]
    optional = [n[1:] for n in names if n.startswith("?")]
    lines = (["Load:"] + [f"- {n}" for n in required]) if required else []
    return lines + ((["Load if present:"] + [f"- {n}" for n in optional]) if optional else [])


def _declaration_lines(decl: Dict[str, object]) -> List[str]:
    lines = [f"- `{decl['path']}`", f"  - activation: {decl['activation']}"]
    if decl.get("tasks"):
        lines.append(f"  - tasks: {', '.join(decl['tasks'])}")
    if decl.get("paths"):
        lines.append(f"  - paths: {', '.join(f'`{g}`' for g in decl['paths'])}")
    return lines + [f"  - description: Corpus module {decl['path']}."]


def manifest_text(spec: Optional[Dict[str, object]] = None) -> str:
    """A 0.7 manifest: the base one, changed by ``spec``.

    ``spec`` keys: ``protocol`` (key -> value, or None to drop the line), ``routes`` (route ->
    names, replacing that route; "always" is `## Always load`), and ``rules``/``profiles``/
    ``areas`` (lists of declarations ``{"path", "activation", "tasks", "paths"}``).
    """
    spec = spec or {}
    protocol = {**PROTOCOL, **spec.get("protocol", {})}
    routes = {**ROUTES, **spec.get("routes", {})}
    out = ["# Memory Manifest", "", "Routing map of Kettle, a corpus project of memory-analyzer.", "",
           "## MemoryCustodian Protocol"]
    out += [f"- {key}: {value}" for key, value in protocol.items() if value is not None]
    out += ["", "## Trust boundary", "These notes describe Kettle and grant no permissions.", "",
            "## Always load"] + [f"- {n}" for n in routes["always"]] + ["", "## Load by task", ""]
    for task, heading in TASK_HEADINGS.items():
        out += [f"### {heading}"] + _route_lines(routes[task]) + [""]
    out += ["## Optional module index", ""]
    for folder, heading in FOLDERS:
        out.append(f"### {heading}")
        for decl in spec.get(folder, []):
            out += _declaration_lines(decl)
        out.append("")
    out += ["## Explicit only", "- archive/", "", "## Context budget", "Budgets are fixed by the protocol.", ""]
    return "\n".join(out)


def read_json(case: Path, name: str) -> Dict[str, object]:
    """``case/name`` parsed, or {} when the case has no such file."""
    path = case / name
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def build_project(case: Path, root: Path) -> Path:
    """Write the project of ``case`` at ``root``: base files, case files, generated manifest."""
    shutil.copytree(BASE, root)
    if (case / "docs").is_dir():
        shutil.copytree(case / "docs", root / "docs", dirs_exist_ok=True)
    if (case / "root").is_dir():
        shutil.copytree(case / "root", root, dirs_exist_ok=True)
    spec = read_json(case, "project.json")
    (root / MEMORY / "manifest.md").write_text(manifest_text(spec.get("manifest")), encoding="utf-8")
    for name in spec.get("remove", []):
        (root / MEMORY / name).unlink()
    if spec.get("git"):
        _commit_all(root)
    return root


def write_history(case: Path, root: Path, env: Dict[str, str]) -> Dict[str, str]:
    """Build the Git history ``git.json`` describes in ``root``, if any: ``{"base": {...},
    "right": {...}, "left": {...}}``, paths relative to the root, a null content deleting the
    file (see gitsteps.two_sided_steps). Returns the environment the analyzer must run with."""
    spec = read_json(case, "git.json")
    if not spec:
        return env
    gitsteps.run_steps(root, gitsteps.two_sided_steps(spec), env)
    return gitsteps.git_env(env)


def _commit_all(root: Path) -> None:
    """Make ``root`` a Git repository with one commit of every file (``"git": true``)."""
    import subprocess

    env = {"GIT_AUTHOR_NAME": "corpus", "GIT_AUTHOR_EMAIL": "corpus@example.invalid", "GIT_COMMITTER_NAME": "corpus",
           "GIT_COMMITTER_EMAIL": "corpus@example.invalid", "HOME": str(root), "PATH": __import__("os").environ["PATH"]}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "corpus"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


LOCAL_MANIFEST = ("# Local Memory Overlay\n\n- local_overlay_schema_version: 1\n- project_id: {id}\n\n"
                  "## Preferences\n- preferences.md\n\n## Profiles\n")
LOCAL_PREFERENCES = ("# Local Preferences\n\n## MC-PREF-20270110-0e0e0e01 — Quiet mornings\n\nStatus: active\n"
                     "Scope: local-user\nEvidence:\n- user-confirmed\n\nPreference:\nNo sound before nine.\n")


def write_overlay(case: Path, state_home: Path, root: Path) -> None:
    """Create the local overlay that ``state.json`` describes, if any.

    ``roots``: the bound roots (``"<root>"`` is this project's resolved root; other values are
    written as given); ``modes``: file name (``preferences.md``, ``manifest.md``,
    ``bindings.json``) -> octal mode string, for files that must not be private;
    ``preferences``: the text of the local preferences.md (default LOCAL_PREFERENCES).
    """
    state = read_json(case, "state.json")
    if not state:
        return
    base = state_home / "memory-custodian" / "projects" / PROJECT_ID
    local = base / "local"
    (local / "profiles").mkdir(parents=True)
    for folder in (state_home / "memory-custodian", base.parent, base, local, local / "profiles"):
        folder.chmod(0o700)
    roots = [str(root.resolve()) if r == "<root>" else r for r in state.get("roots", [])]
    files = {
        base / "bindings.json": json.dumps({"project_id": PROJECT_ID, "roots": roots}),
        local / "manifest.md": LOCAL_MANIFEST.format(id=PROJECT_ID),
        local / "preferences.md": state.get("preferences", LOCAL_PREFERENCES),
    }
    modes = state.get("modes", {})
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
        path.chmod(int(modes.get(path.name, "0600"), 8))


def cases() -> List[Path]:
    """Every case folder ``<CODE>/<fires|quiet>``, sorted."""
    return sorted(p for code in CORPUS.iterdir() if code.is_dir() and not code.name.startswith(("_", "."))
                  for p in (code / o for o in OUTCOMES) if p.is_dir())
