"""The files of the repository around a project, for `analyze report`'s glob column: `git
ls-files` where the project is in a Git work tree, else a walk that follows no symlink and
skips `.git`. Read-only either way; paths are relative to the project root, `/`-separated.
"""

from __future__ import annotations

import os
from typing import List, Tuple

CAP = 200_000  # files listed at most; past it the listing is marked incomplete


def list_files(root: str, cap: int = CAP) -> Tuple[List[str], str, bool]:
    """``(paths, source, complete)``: sorted project-relative paths, "git" or "walk", and
    whether every file was listed."""
    if not may_be_in_git(root):  # Git would find no repository: no process to start
        return _walk(root, cap)
    from analyzer.history.git import run_git

    ok, out = run_git(root, "ls-files", "-z", timeout=60.0)
    if ok:
        paths = sorted({p for p in out.split("\0") if p})
        return paths[:cap], "git", len(paths) <= cap
    return _walk(root, cap)


def may_be_in_git(root: str) -> bool:
    """False when neither ``root`` nor any folder above it holds a ``.git`` entry: Git's own
    search for a repository (analyzer/history/git.py clears ``GIT_DIR`` and every other ``GIT_``
    variable) then finds none, so a Git call could only fail and is not started."""
    folder = os.path.realpath(root)
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            return True
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent


def _walk(root: str, cap: int) -> Tuple[List[str], str, bool]:
    found: List[str] = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        # a symlink to a folder is listed as one path (as Git lists it), never followed;
        # sorted in place so the walk (and where a cap stops it) is the same everywhere
        links = [d for d in dirs if os.path.islink(os.path.join(folder, d))]
        dirs[:] = sorted(d for d in dirs if d != ".git" and d not in links)
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        for name in sorted(names + links):
            if len(found) >= cap:
                return sorted(found), "walk", False
            found.append(name if rel == "." else f"{rel}/{name}")
    return sorted(found), "walk", True


def repo_prefix(project_root: str) -> str:
    """The project root's path inside its Git work tree (``examples/shop/``; ``""`` at the
    top or outside Git), so that locations are relative to the repository, as code scanning
    and workflow annotations expect. Read-only (``git rev-parse``)."""
    if not may_be_in_git(project_root):  # no repository around it: nothing to ask Git
        return ""
    from analyzer.history.git import run_git

    ok, out = run_git(project_root, "rev-parse", "--show-prefix", timeout=10.0)
    return out.strip() if ok else ""
