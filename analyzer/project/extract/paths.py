"""Syntax checks for paths written inside memory files: route names, globs, evidence paths.

Pure string checks (spec §4.3, §8.1.3, §5.8); nothing here touches the file system.
"""

from __future__ import annotations

import re

_DRIVE_RE = re.compile(r"^[A-Za-z]:")
_REV_RE = re.compile(r"^[A-Za-z0-9._-]+$")


def strip_code_span(name: str) -> str:
    """Remove one pair of surrounding backticks, as route and module names allow."""
    if len(name) >= 2 and name.startswith("`") and name.endswith("`"):
        return name[1:-1].strip()
    return name


def safe_memory_path(name: str) -> bool:
    """A route/module name (§4.3): relative, no backslash or drive, no empty/./.. segment, ``.md``."""
    if not name or "\\" in name or name.startswith("/") or _DRIVE_RE.match(name):
        return False
    if any(seg in ("", ".", "..") for seg in name.split("/")):
        return False
    return name.endswith(".md")


def valid_glob(glob: str) -> bool:
    """A manifest ``paths:`` glob (§8.1.3)."""
    if not glob or "\\" in glob or glob.startswith("/") or _DRIVE_RE.match(glob):
        return False
    if any(ch in glob for ch in "[]{}") or "***" in glob:
        return False
    for seg in glob.split("/"):
        if seg in ("", ".", ".."):
            return False
        if "**" in seg and seg != "**":
            return False
    return True


def safe_project_path(path: str) -> bool:
    """An evidence source path (§5.8) after backslashes became ``/``: relative and clean (a NUL
    byte makes a path invalid: no file system can name it)."""
    if not path or path.startswith("/") or _DRIVE_RE.match(path) or "\0" in path:
        return False
    return not any(seg in ("", ".", "..") for seg in path.split("/"))


def split_source(value: str):
    """Split ``<path>[@<rev>]`` of a repo/doc/test evidence item; None when malformed."""
    path, sep, rev = value.partition("@")
    path = path.replace("\\", "/")
    if not path or any(ch.isspace() for ch in path):
        return None
    if sep and not _REV_RE.match(rev):
        return None
    if not safe_project_path(path):
        return None
    return path, rev
