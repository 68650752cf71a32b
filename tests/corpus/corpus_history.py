"""The Git history of a corpus case: commit steps as folders.

A case folder may hold ``steps/<NN-name>/`` folders. The case's project (``_base``, the case's
``docs/`` and ``root/``, the generated manifest: corpus_project.build_project) is committed
first ("base"); then each step, in name order, is one commit made over the previous tree:

- every file in the step folder (a full or a partial tree of the project, paths relative to
  the project root, e.g. ``docs/memory/decisions.md``) is written over the tree, except
- ``commit.txt`` (optional): the commit message as ``git commit -F`` reads it (subject, body,
  trailers such as ``Memory-Confirmed-By: alice``), with an optional first line
  ``Author: Name <email>`` giving the commit's author, and
- ``remove.txt`` (optional): project-relative paths to delete, one a line.

A step named ``NN-worktree`` (the last one only) is written and not committed: the work
tree's uncommitted changes. Real ``git`` runs with no user or system configuration; commit
``k`` (the base is 0) is authored and committed at a fixed time, one hour after the previous
one, so the commits, their ids and every output are the same on every run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

T0 = 1793000000  # 2026-10-26, the base commit's time (seconds since the epoch)
STEP = 3600
CONTROL = ("commit.txt", "remove.txt")
DEFAULT_AUTHOR = ("Corpus", "corpus@example.invalid")


def steps(case: Path) -> List[Path]:
    """The case's step folders, in order (none when it has no ``steps/``)."""
    folder = case / "steps"
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def git_env(env: Dict[str, str], when: int, author: Tuple[str, str] = DEFAULT_AUTHOR) -> Dict[str, str]:
    """``env`` without Git's variables, plus a fixed author, committer and date, and no user
    or system configuration."""
    out = {k: v for k, v in env.items() if not k.startswith("GIT_")}
    out.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME=author[0],
               GIT_AUTHOR_EMAIL=author[1], GIT_COMMITTER_NAME=DEFAULT_AUTHOR[0],
               GIT_COMMITTER_EMAIL=DEFAULT_AUTHOR[1], GIT_AUTHOR_DATE=f"@{when} +0000",
               GIT_COMMITTER_DATE=f"@{when} +0000")
    return out


def _git(root: Path, env: Dict[str, str], *args: str) -> None:
    subprocess.run(["git", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args], cwd=root,
                   env=env, check=True, capture_output=True)


def _message(step: Path) -> Tuple[str, Tuple[str, str]]:
    """The step's commit message and author (``commit.txt``; the folder name without its
    number when there is none)."""
    path = step / "commit.txt"
    text = path.read_text(encoding="utf-8") if path.is_file() else step.name.split("-", 1)[-1] + "\n"
    author = DEFAULT_AUTHOR
    first, _, rest = text.partition("\n")
    if first.startswith("Author:"):
        name, _, email = first[len("Author:"):].strip().partition("<")
        author, text = (name.strip(), email.rstrip(">").strip()), rest.lstrip("\n")
    return text, author


def _apply(step: Path, root: Path) -> None:
    """Write the step's files over ``root`` and delete the paths its ``remove.txt`` names."""
    for path in sorted(step.rglob("*")):
        rel = path.relative_to(step)
        if path.is_file() and str(rel) not in CONTROL:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, root / rel)
    remove = step / "remove.txt"
    for line in remove.read_text(encoding="utf-8").splitlines() if remove.is_file() else ():
        if line.strip():
            (root / line.strip()).unlink()


def write_steps(case: Path, root: Path, env: Dict[str, str]) -> Dict[str, str]:
    """Make ``root`` (the case's project, already written) a Git repository holding the
    base commit and one commit per step; the environment the analyzer must run with (no
    user or system Git configuration). Without steps, ``env`` unchanged."""
    found = steps(case)
    if not found:
        return env
    _git(root, git_env(env, T0), "init", "-q")
    _git(root, git_env(env, T0), "add", "-A")
    _git(root, git_env(env, T0), "commit", "-q", "-m", "base")
    for k, step in enumerate(found, 1):
        _apply(step, root)
        if step.name.split("-", 1)[-1] == "worktree" and step == found[-1]:
            break
        message, author = _message(step)
        (root.parent / "message.txt").write_text(message, encoding="utf-8")
        run_env = git_env(env, T0 + k * STEP, author)
        _git(root, run_env, "add", "-A")
        _git(root, run_env, "commit", "-q", "--allow-empty", "-F", str(root.parent / "message.txt"))
    return git_env(env, T0 + len(found) * STEP)
