"""What one file's extraction produces: facts with positions, diagnostics, unit ranges.

A :class:`Sink` belongs to one file. It holds plain data only (strings, ints, tuples, lists),
so a whole extraction result can be cached (``marshal``, analyzer/core/cache.py) keyed by the
file's content hash and merged into the project's :class:`~analyzer.project.factbase.FactBase` later
(analyzer/project/loader.py).

Facts are kept *by relation*: each relation's value tuples in one list, with the line and
column of each in two lists alongside (:attr:`Sink.columns`). Storing, loading and merging a
file's facts are then a few large operations per relation (``set.update``, one ``array`` of
positions) instead of one per fact: a 10,000-entry project has ~170,000 facts.

The values of the columns in :data:`INTERNED` are interned (``sys.intern``) by the extractors
as they write them: an entry's status, scope and code, a Subject reference and its ID. Each
such value is then one string object per distinct value across every file and relation, so
the evaluation's lookups and joins on them compare by identity and read one hot object
instead of 10,000 scattered copies (docs/performance.md, issue 9). ``marshal`` keeps the
flag, so values loaded from the facts cache (the prefetch helper's files, a warm run) come
back interned too.
"""

from __future__ import annotations

import sys
from array import array
from typing import Dict, List, Optional, Sequence, Tuple, Union

FactRow = Tuple[str, tuple, int, int]  # relation, values, line, col
# values, lines, cols of one relation; the positions of a sink read from the facts cache stay
# the cache's bytes until something reads them (read them through positions())
Columns = Tuple[list, Union[Sequence[int], bytes], Union[Sequence[int], bytes]]

# the facts cache's entry format (analyzer/core/cache.py puts it in every key, and from_plain
# checks it): an entry written by another format is never read as this one
FORMAT = "columns-1"
_POSITION = "q"  # positions are stored as signed 64-bit machine integers (native byte order)
_WIDTH = array(_POSITION).itemsize
BYTE_ORDER = sys.byteorder  # part of the cache key too: the arrays are in native byte order

#: relation -> the columns whose string values every extractor interns as it writes them
#: (tests/extract/test_interned.py holds the extractors to it)
INTERNED: Dict[str, Tuple[int, ...]] = {
    "entry": (2, 3, 4), "overlay_entry": (2, 3, 4),  # code, status, scope
    "entry_subject": (1,), "entry_facet": (1,), "entry_body": (1,),  # the Subject ID joins subject's
    "subject": (0, 1, 2),  # ID, status, kind
}


def positions(column: Union[Sequence[int], bytes]) -> Sequence[int]:
    """The lines or columns of one relation as integers: a column still in the facts cache's
    bytes (:meth:`Sink.from_plain`) is converted (in C), any other is returned as it is."""
    return array(_POSITION, column) if column.__class__ is bytes else column


class Sink:
    """Collects the facts and diagnostics extracted from one file (project-relative path)."""

    def __init__(self, path: str) -> None:
        self.path = path
        # relation -> (value tuples, 1-based lines, 1-based columns), three lists of one length
        self.columns: Dict[str, Columns] = {}
        self.diagnostics: List[Tuple[str, str, int, int, str]] = []  # code, message, line, col, severity
        # 0-based inclusive line ranges of the units the file's ordinal columns count, in order:
        # every unit of an entry file (`unit`), the h2 units of subjects/reconciliations
        self.units: List[Tuple[int, int]] = []
        self.has_title = False
        self.info: tuple = ()  # extractor-specific summary kept with the facts (the manifest's)
        self.key: Optional[str] = None  # set by the loader: a digest that determines the facts
        # the formal entries noted for the per-entry rules and, once the file is read, what
        # its judgement needs (analyzer/project/extract/judge.py); never stored: a sink is
        # judged before it is cached or merged
        self.judging: dict = {}  # shape -> [(heading line, Entry ID as written)] (judge.note)
        self.pending: Optional[tuple] = None

    def rel(self, relation: str) -> Columns:
        """The ``(values, lines, cols)`` lists of ``relation``, created on first use. Extractors
        that write many rows append to all three (one value tuple, its line, its column)."""
        found = self.columns.get(relation)
        if found is None:
            found = self.columns[relation] = ([], [], [])
        elif found[1].__class__ is bytes:  # read from the cache: arrays to append to
            found = self.columns[relation] = (found[0], positions(found[1]), positions(found[2]))
        return found

    def row(self, relation: str, values: tuple, line: int, col: int) -> None:
        """Record the fact ``relation`` with the value tuple ``values`` at ``line``/``col``."""
        found = self.columns.get(relation)
        if found is None or found[1].__class__ is bytes:
            found = self.rel(relation)
        found[0].append(values)
        found[1].append(line)
        found[2].append(col)

    def extend(self, relation: str, values: list, lines: list, col: int) -> None:
        """Record the facts ``relation`` with the value tuples ``values`` at ``lines`` (one
        each), all at column ``col``: one ``extend`` per column for many rows (the fast
        paths' runs of matched units); nothing when ``values`` is empty."""
        if values:
            found = self.rel(relation)
            found[0].extend(values)
            found[1].extend(lines)
            found[2].extend([col] * len(values))

    def fact(self, relation: str, *values, line: int = 1, col: int = 1) -> None:
        """Record ``relation(values...)`` at ``line``/``col`` (1-based) of this file."""
        self.row(relation, values, line, col)

    def diag(self, code: str, message: str, line: int = 1, col: int = 1, severity: str = "error") -> None:
        """Record a diagnostic at ``line``/``col`` (1-based) of this file."""
        self.diagnostics.append((code, message, line, col, severity))

    @property
    def facts(self) -> Tuple[FactRow, ...]:
        """Every fact as a ``(relation, values, line, col)`` row, relation by relation (in the
        order each relation was first written), rows in the order written. Read-only: a copy
        for tests and tools; extractors write with :meth:`fact` or :meth:`rel`."""
        return tuple((relation, values, line, col) for relation, (vals, lines, cols) in self.columns.items()
                     for values, line, col in zip(vals, positions(lines), positions(cols)))

    def to_plain(self) -> tuple:
        """Plain data (``marshal``-able) for the facts cache: per relation its value tuples and
        its positions as two byte strings (one machine integer each)."""
        columns = {relation: (values, array(_POSITION, lines).tobytes(), array(_POSITION, cols).tobytes())
                   for relation, (values, lines, cols) in self.columns.items() if values}
        return (FORMAT, self.path, columns, self.diagnostics, self.units, self.has_title, self.info)

    @classmethod
    def from_plain(cls, data) -> Optional["Sink"]:
        """Rebuild a sink from :meth:`to_plain` output; None when the data is malformed or of
        another format (then the caller extracts the file again). The positions stay bytes
        (:func:`positions` reads them): a first history reading rebuilds 20,000 cached snippet
        sinks and reads the positions of almost none, and two arrays per relation were half of
        rebuilding one."""
        try:
            form, path, plain, diagnostics, units, has_title, info = data
            # our own output, keyed by content hash: the container shapes are checked (by
            # exact class: marshal makes no subclass), and every relation's three columns
            # must have one length; the checked dict itself becomes the sink's columns (a
            # first history reading rebuilds 20,000 snippet sinks of ~6 relations each)
            if not (form == FORMAT and path.__class__ is str and plain.__class__ is dict
                    and diagnostics.__class__ is list and units.__class__ is list and info.__class__ is tuple):
                return None
            for relation, (values, lines, cols) in plain.items():
                if not (relation.__class__ is str and values.__class__ is list and values
                        and values[0].__class__ is tuple and lines.__class__ is bytes and cols.__class__ is bytes
                        and len(lines) == len(cols) == _WIDTH * len(values)):
                    return None
        except (TypeError, ValueError):
            return None
        sink = cls(path)
        sink.columns, sink.diagnostics, sink.units = plain, diagnostics, units
        sink.has_title, sink.info = bool(has_title), info
        return sink
