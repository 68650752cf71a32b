"""The lookup structures of one evaluation: hash indexes, key sets and selections.

A rule variant names what it looks up by resource key (analyzer/engine/compile.py):

* ``("I", rel, cols)``: a hash index, key -> bucket of the tuples with that key;
* ``("K", rel, cols)``: only ``key in ...`` tests: the set of keys (built in C, about a
  quarter of an index's cost), or the index itself when one exists anyway;
* ``("Q", rel, cols, key)``: the tuples whose ``cols`` hold the constant ``key``: the
  index's bucket when that index exists anyway, else a filtered copy of the relation,
  computed once per evaluation for a complete relation (every constant key the program
  selects on the same columns at once). A relation still being
  derived (the running stratum's own) gets a real index, extended at each merge, so a
  recursive rule never rescans it per iteration.

Indexes and key sets are built once, when a stratum whose variants use them starts, and
extended as tuples are merged; a key set is only built when no index on the same columns
exists at that point.

An index of a complete relation whose key identifies its tuples (an entry ID: most lookups
of the shipped rules) is built in *unique form*, key -> the tuple itself, for the variants
compiled to look such indexes up without a loop (analyzer/engine/compile.py, ``unique``);
a variant any of whose indexes is not unique runs its general code over bucket forms.
"""

from __future__ import annotations

from itertools import islice
from operator import itemgetter
from typing import Dict, List, Tuple

#: tuples sampled before an index is built as a unique-key index (see build_index)
_SAMPLE = 64


class Indexes:
    """Every index, key set and selection of one evaluation over ``full`` (relation ->
    set of tuples)."""

    def __init__(self, full: Dict[str, set]):
        self.full = full
        self.built: Dict[tuple, object] = {}  # I and K keys -> dict or set
        self.by_rel: Dict[str, List[Tuple[tuple, object]]] = {}
        self.selections: Dict[tuple, list] = {}
        self.unique: Dict[tuple, dict] = {}  # I keys -> unique form (complete relations only)
        self.repeated: set = set()  # I keys of complete relations whose key repeats
        # (relation, columns) -> every constant key the program selects on those columns:
        # the first selection computes them all in one pass (see :func:`select_all`)
        self.selected: Dict[tuple, frozenset] = {}

    def prepare(self, keys, complete=frozenset(), unique: bool = False) -> bool:
        """Build the indexes and key sets ``keys`` name that do not exist yet (indexes
        first: a key set is the index when there is one). With ``unique`` (the variant has
        code for unique indexes), indexes of ``complete`` relations are built in unique form
        when their keys allow; returns whether every index of ``keys`` is in that form (else
        all are built as buckets)."""
        keys = list(keys)
        ikeys = [key for key in keys if key[0] == "I"]
        if unique:
            unique = all(key[1] in complete and key not in self.repeated for key in ikeys)
            for key in ikeys if unique else ():
                if key not in self.unique:
                    index = unique_index(self.full[key[1]], key[2])
                    if index is None:
                        self.repeated.add(key)
                        unique = False
                        break
                    self.unique[key] = index
        if not unique:
            for key in ikeys:
                if key not in self.built:
                    index = self.unique.get(key)
                    index = build_index(self.full[key[1]], key[2]) if index is None else dict(
                        zip(index.keys(), zip(index.values())))
                    self._add(key, index)
        for key in keys:
            if key[0] == "K" and key not in self.built and self.index(key) is None:
                self._add(key, set(map(_getter(key[2]), self.full[key[1]])))
        return unique

    def index(self, key: tuple):
        """The index (either form) on the relation and columns of resource ``key``, or None."""
        ikey = ("I",) + key[1:3]
        index = self.built.get(ikey)
        return self.unique.get(ikey) if index is None else index

    def _add(self, key: tuple, structure) -> None:
        self.built[key] = structure
        self.by_rel.setdefault(key[1], []).append((key, structure))

    def get(self, key: tuple, complete: bool, unique: bool = False):
        """The structure for resource ``key`` (``complete``: whether its relation is done;
        ``unique``: an index in unique form, as :meth:`prepare` found them all)."""
        kind = key[0]
        if kind == "I":
            return self.unique[key] if unique else self.built[key]
        if kind == "K":
            index = self.index(key)
            return self.built[key] if index is None else index
        _, rel, cols, value = key
        index = self.built.get(("I", rel, cols))
        if index is None and not complete:
            self.prepare([("I", rel, cols)])
            index = self.built[("I", rel, cols)]
        if index is not None:
            return index.get(value, ())
        index = self.unique.get(("I", rel, cols))
        if index is not None:
            found = index.get(value)
            return () if found is None else (found,)
        selection = self.selections.get(key)
        if selection is None:
            todo = [v for v in self.selected.get((rel, cols), ()) if ("Q", rel, cols, v) not in self.selections]
            if len(todo) > 1 and value in todo:
                for v, found in select_all(self.full[rel], cols, todo).items():
                    self.selections[("Q", rel, cols, v)] = found
                return self.selections[key]
            selection = self.selections[key] = select(self.full[rel], cols, value)
        return selection

    def extend(self, rel: str, tuples) -> None:
        """Add ``tuples`` (new in ``rel``) to every index and key set of ``rel``."""
        for key, structure in self.by_rel.get(rel, ()):
            if key[0] == "I":
                extend_index(structure, tuples, key[2])
            else:
                structure.update(map(_getter(key[2]), tuples))


def _getter(cols):
    # itemgetter builds the key in C: t[c] for one column, the tuple of columns for several
    return itemgetter(*cols) if cols else _no_columns


def build_index(tuples, cols) -> dict:
    """A hash index of ``tuples`` (a set) on ``cols``: key -> bucket of tuples.

    Most indexes the rules use are on a key that identifies the tuple (an entry ID): their
    buckets are built in C as 1-tuples (about half the time of the Python loop). A sample
    of the tuples with a repeated key goes to the loop directly; a full build that finds a
    repeated key is thrown away and the loop runs (the buckets then are lists)."""
    key = _getter(cols)
    if len(tuples) > _SAMPLE:
        sample = list(islice(tuples, _SAMPLE))
        if len(set(map(key, sample))) == _SAMPLE:
            idx = dict(zip(map(key, tuples), zip(tuples)))
            if len(idx) == len(tuples):
                return idx
    idx: dict = {}
    extend_index(idx, tuples, cols)
    return idx


def unique_index(tuples, cols):
    """The unique form of an index of ``tuples`` on ``cols`` (key -> the one tuple with that
    key), or None when a key repeats (decided on a 64-tuple sample first, as in
    :func:`build_index`)."""
    key = _getter(cols)
    if len(tuples) > _SAMPLE and len(set(map(key, islice(tuples, _SAMPLE)))) < _SAMPLE:
        return None
    idx = dict(zip(map(key, tuples), tuples))
    return idx if len(idx) == len(tuples) else None


def extend_index(idx: dict, tuples, cols) -> None:
    """Add ``tuples`` to the index ``idx`` on ``cols``."""
    key = _getter(cols)
    get = idx.get
    for t in tuples:
        k = key(t)
        bucket = get(k)
        if bucket is None:
            idx[k] = [t]
        elif bucket.__class__ is list:
            bucket.append(t)
        else:  # a 1-tuple bucket of a unique-key index
            idx[k] = [*bucket, t]


def select(tuples, cols, value) -> list:
    """The tuples whose ``cols`` equal ``value`` (as an index on ``cols`` looks them up),
    in the relation's iteration order (a comprehension: faster than compress and map)."""
    if len(cols) == 1:
        col = cols[0]
        return [t for t in tuples if t[col] == value]
    # one column at a time, most selective pass first unknown: the first pass compares one
    # value per tuple instead of building a key tuple per tuple (entries by status "active"
    # and scope "project": about half the time), later passes read only what is left
    (col, first), *rest = zip(cols, value)
    found = [t for t in tuples if t[col] == first]
    for col, v in rest:
        found = [t for t in found if t[col] == v]
    return found


def select_all(tuples, cols, values) -> dict:
    """:func:`select` for each of ``values`` (distinct), in one pass over ``tuples``: value ->
    the tuples whose ``cols`` equal it, each list in the relation's iteration order. The cost
    of a selection over extracted facts is mostly reading each tuple's key from memory, not
    comparing it: two selections on one column (entries by status "active" and
    "superseded") cost little more than one."""
    found: dict = {v: [] for v in values}
    bucket_of = found.get
    key = _getter(cols)
    for t in tuples:
        bucket = bucket_of(key(t))
        if bucket is not None:
            bucket.append(t)
    return found


def _no_columns(_t) -> tuple:
    return ()
