"""The repositories of a fleet: every directory named, each subdirectory of a directory of
checkouts, or the paths listed in a file (one a line, ``#`` comments and blank lines skipped,
relative paths taken from the file's directory)."""

from __future__ import annotations

import os
from typing import List


class FleetError(Exception):
    """A fleet argument that names no usable repository (``path:line:col`` in the message)."""


def resolve(sources: List[str]) -> List[str]:
    """The repository paths of ``sources`` (sorted within a directory of checkouts; a listing
    file's order kept), duplicates dropped."""
    out: List[str] = []
    for source in sources:
        if os.path.isfile(source):
            out.extend(_listed(source))
        elif os.path.isdir(source):
            if os.path.isdir(os.path.join(source, "docs")) or os.path.isdir(os.path.join(source, ".git")):
                out.append(source)
            else:
                out.extend(os.path.join(source, name) for name in sorted(os.listdir(source))
                           if os.path.isdir(os.path.join(source, name)) and not name.startswith("."))
        else:
            raise FleetError(f"{source}:1:1: no such directory or listing file")
    seen, unique = set(), []
    for path in out:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def _listed(listing: str) -> List[str]:
    base = os.path.dirname(os.path.abspath(listing))
    paths = []
    with open(listing, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            path = text if os.path.isabs(text) else os.path.join(base, text)
            if not os.path.isdir(path):
                raise FleetError(f"{listing}:{number}:1: not a directory: {text}")
            paths.append(path)
    return paths
