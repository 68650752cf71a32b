"""Syntax checks for paths written inside memory files: code spans, evidence paths (route names and
globs are judged by rules/manifest/, with the rule language's path_invalid and glob_invalid).

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
