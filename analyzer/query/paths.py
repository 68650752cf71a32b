"""Filesystem probes for touched paths (spec §8.1.2 step 4-5).

Rules decide whether a path is valid; this module only asks the filesystem the two
questions rules need answered: does the path exist, and does it (or its nearest existing
ancestor) resolve outside the project root through a symlink. Path contents are never read.
"""

from __future__ import annotations

import os
from pathlib import Path


def probe_path(root: Path, rel: str) -> str:
    """Return ``"exists"``, ``"directory"``, ``"missing"`` or ``"escapes"`` for a
    project-relative path (``"directory"``: it exists and is a directory)."""
    real_root = os.path.realpath(root)
    if not rel or rel.startswith("/") or any(seg in ("", ".", "..") for seg in rel.split("/")):
        return "missing"  # rules reject such paths anyway; never touch the disk with them
    candidate = Path(root, *rel.split("/"))
    probe = candidate
    while not os.path.lexists(probe) and probe != Path(root):
        probe = probe.parent
    if not _inside(os.path.realpath(probe), real_root):
        return "escapes"
    if os.path.lexists(candidate):  # a dangling link inside the root counts as missing
        if not _inside(os.path.realpath(candidate), real_root):
            return "escapes"
        if not os.path.exists(candidate):
            return "missing"
        return "directory" if os.path.isdir(candidate) else "exists"
    return "missing"


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
