"""Which units a commit of a readiness window moved among its file's units (E/order), as
``analyze diff`` finds them: over the whole file.

A window compares each commit through its unit snippets (analyzer/history/window.py), which keep
the order of what they hold but not where each unit sits in the file: a unit moved to the
far end of its file and the units it passed are not in one snippet, so the window saw a
reorder only inside one commit's snippets, and could name another unit than `analyze diff`
(whose longest common subsequence runs over the whole file, analyzer/history/unit_order.py).

A reorder needs a unit with the same text on both sides of the commit's diff of the file (a
moved unit is removed and added again; when Git moves the others instead, they are), so
only a file whose snippets hold an ID with the same text on both sides can hold one; such
files are few (a deletion's hunk also reaches the unit before it). For those, both versions
of the file are read (one ``git cat-file --batch`` for the window) and cut by the unit model,
and the units off the common subsequence of the two whole orders are the commit's moved
units: given to the pair as :attr:`analyzer.history.revisions.Revision.reordered`, and read at the
parent (analyzer/history/held_units.py) when the snippets do not hold them, so that rules/diff/ see
them on both sides. Nothing is decided here.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from analyzer.history.unit_touch import unit_texts

KIND = {"entries": "entry", "subjects": "subject", "reconciliations": "record"}  # file kind -> unit kind
Moved = Set[Tuple[str, str, str]]  # (kind, casefolded id, module)


def candidates(before: Optional[str], after: Optional[str]) -> bool:
    """Whether the two snippets of a file hold an ID with the same text on both sides (or
    cannot be cut: then the whole file is read)."""
    if before is None or after is None:
        return False
    sides = unit_texts(before), unit_texts(after)
    if sides[0] is None or sides[1] is None:
        return True
    return not set(sides[0]).isdisjoint(sides[1])


def _order(text: str, kind: str):
    units = unit_texts(text) or []
    return tuple(kind for _ in units), tuple(i for i, _t in units), tuple(t for _i, t in units)


def moved_units(history, patches: Dict[str, Dict[str, Tuple[Optional[str], Optional[str]]]],
                changed: Dict[str, List[Tuple[str, str, str]]]) -> Dict[str, Moved]:
    """sha -> the units each commit moved among its file's units (whole-file orders), for
    the commits of ``patches`` (sha -> path -> snippets); ``changed``: sha -> (path, old
    blob, new blob) of the files each changed (:meth:`analyzer.history.git.History.changes`)."""
    from analyzer.history.decode import decode_blob
    from analyzer.project.loader import file_kind
    from analyzer.history.unit_order import reordered

    wanted: List[Tuple[str, str, str, str]] = []  # (sha, path, old blob, new blob)
    for sha, files in patches.items():
        blobs = {path: (old, new) for path, old, new in changed.get(sha, [])}
        for path, (before, after) in files.items():
            if file_kind(path) in KIND and path in blobs and all(blobs[path]) and candidates(before, after):
                wanted.append((sha, path, *blobs[path]))
    if not wanted:
        return {}
    data = history.repo.blobs({oid for _s, _p, old, new in wanted for oid in (old, new)})
    out: Dict[str, Moved] = {}
    for sha, path, old, new in wanted:
        kind = KIND[file_kind(path)]
        # a file that is not UTF-8 fails the reading (exit 2), never an order of guessed bytes
        orders = [{path: _order(decode_blob(history, path, sha, data[oid]), kind)} for oid in (old, new)]
        found = reordered(*orders)
        if found:
            out.setdefault(sha, set()).update(found)
    return out
