"""Where a unit the head revision no longer holds is annotated: in the head revision.

A CI annotation (GitHub's, a SARIF or JUnit location) is shown on the files of the head, the
revision a pull request's reviewer looks at. A deleted unit's own place is in the base
revision, whose line numbers mean nothing there (``line=109`` in a 107-line file). Its
anchor is the same file at the same line, clamped to the head's length, or the file itself
(line 0: file level) when the head has no such file or an empty one. Text and JSON keep the
unit's own places; only the annotations use the anchor.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Dict, Iterable, Optional

from analyzer.history.git import Repo


def line_count(data: bytes) -> int:
    """How many lines ``data`` holds (a last line without a newline counts)."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def head_lengths(root, head: str, paths: Iterable[str]) -> Dict[str, Optional[int]]:
    """Project-root-relative path -> its line count in commit ``head`` (the work tree when
    ""), None when the head has no such regular file."""
    wanted = sorted(set(paths))
    found: Dict[str, Optional[int]] = {}
    if not head:
        for path in wanted:
            full = os.path.join(str(root), path)
            try:
                if os.path.isfile(full) and not os.path.islink(full):
                    with open(full, "rb") as handle:
                        found[path] = line_count(handle.read())
                    continue
            except OSError:
                pass
            found[path] = None
        return found
    if not wanted:
        return found
    repo = Repo(str(root))
    names = [f"{head}:{repo.prefix}{path}" for path in wanted]
    out = repo._run(repo.top, ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
                    stdin=("\n".join(names) + "\n").encode("utf-8", "surrogateescape"))
    oids = {}
    for path, line in zip(wanted, out.decode("utf-8", "replace").split("\n")):
        oid, _, kind = line.partition(" ")
        if kind == "blob":
            oids[path] = oid
    blobs = repo.blobs(oids.values())
    return {path: line_count(blobs[oids[path]]) if path in oids else None for path in wanted}


def anchor_deleted(root, diff) -> None:
    """Set ``anchor`` of every change of ``diff`` (a :class:`~analyzer.query.diff.DiffResult`)
    that the head no longer holds: its base place's file at the same line, clamped to the
    head's length; line 0 (the file) when the head has no such file."""
    gone = [c for c in diff.changes if c.after is None and c.before is not None]
    if not gone:
        return
    lengths = head_lengths(root, diff.head, (c.before.path for c in gone))
    for change in gone:
        length = lengths.get(change.before.path)
        # the base's place moved to that line (a Place of analyzer/query/diff.py, which this layer
        # does not import)
        change.anchor = replace(change.before, line=min(change.before.line, length) if length else 0)
