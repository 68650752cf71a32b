"""Build Git history in a temporary repository from ``git_steps`` (reference §15).

Steps, in order: ``{"git_init_and_commit": MESSAGE, "tag"?: T}`` (git init, commit every
current file), ``{"write": {path: content}}``, ``{"commit": MESSAGE, "tag"?: T}``,
``{"checkout_new_branch": NAME, "from": REF}`` and ``{"checkout": NAME}``, where
``${DEFAULT_BRANCH}`` is the branch ``git init`` created.

Git runs with no global or system configuration, a fixed author, committer and dates, so
the commits (and their ids) are the same on every machine and run.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Dict, List, Optional

FIXED_DATE = "2026-08-01T12:00:00+00:00"


def git_env(base: Dict[str, str]) -> Dict[str, str]:
    """``base`` plus what makes Git deterministic and independent of the user's config."""
    env = {k: v for k, v in base.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Scenario",
               GIT_AUTHOR_EMAIL="scenario@example.invalid", GIT_COMMITTER_NAME="Scenario",
               GIT_COMMITTER_EMAIL="scenario@example.invalid", GIT_AUTHOR_DATE=FIXED_DATE,
               GIT_COMMITTER_DATE=FIXED_DATE)
    return env


def git(root: Path, env: Dict[str, str], *args: str) -> str:
    """Run one Git command in ``root``; its stdout (raises on failure)."""
    proc = subprocess.run(["git", "-c", "user.name=Scenario", "-c", "user.email=scenario@example.invalid",
                           "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", *args],
                          cwd=root, env=git_env(env), capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def write_files(root: Path, files: Dict[str, Optional[str]]) -> None:
    """Write ``{relative path: content}`` under ``root`` (UTF-8, exact bytes); a None
    content deletes the file."""
    for rel, content in files.items():
        path = root / rel
        if content is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8"))


def _commit(root: Path, env: Dict[str, str], message: str, tag: str = "") -> None:
    git(root, env, "add", "-A")
    git(root, env, "commit", "-q", "--allow-empty", "-m", message or "commit")
    if tag:
        git(root, env, "tag", tag)


def run_steps(root: Path, steps: List[dict], env: Dict[str, str]) -> None:
    """Apply ``steps`` in ``root`` (the scenario's files are already written)."""
    default = ""
    for step in steps:
        if "git_init_and_commit" in step:
            git(root, env, "init", "-q")
            default = git(root, env, "symbolic-ref", "--short", "HEAD").strip()
            _commit(root, env, step["git_init_and_commit"], step.get("tag", ""))
        elif "write" in step:
            write_files(root, step["write"])
        elif "commit" in step:
            _commit(root, env, step["commit"], step.get("tag", ""))
        elif "checkout_new_branch" in step:
            git(root, env, "checkout", "-q", "-b", step["checkout_new_branch"], step.get("from", "HEAD"))
        elif "checkout" in step:
            git(root, env, "checkout", "-q", step["checkout"].replace("${DEFAULT_BRANCH}", default))
        else:
            raise ValueError(f"unknown git step {step!r}")


def two_sided_steps(spec: Dict[str, Dict[str, Optional[str]]]) -> List[dict]:
    """The steps of a two-sided history: ``spec["base"]`` files are committed (tag ``base``)
    with the project, branch ``right`` from it gets ``spec["right"]``, and the default branch,
    checked out last (HEAD), gets ``spec["left"]`` if given."""
    steps: List[dict] = []
    if spec.get("base"):
        steps.append({"write": spec["base"]})
    steps += [{"git_init_and_commit": "base", "tag": "base"},
              {"checkout_new_branch": "right", "from": "base"}, {"write": spec.get("right", {})},
              {"commit": "right"}, {"checkout": "${DEFAULT_BRANCH}"}]
    if spec.get("left"):
        steps += [{"write": spec["left"]}, {"commit": "left"}]
    return steps
