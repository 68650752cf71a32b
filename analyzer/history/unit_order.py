"""Which units of a file changed their place among the file's unchanged units.

A mechanical fact, as a diff algorithm's hunks: of the units a file holds with the same text
in both revisions of a comparison (same kind, ID and digest), those that are not on one
longest common subsequence of the file's unit order in the two revisions. Moving one entry
of a 600-entry file to its end puts one unit off the subsequence, not 600; units added or
removed around the others put none off it (they are not in either sequence), and neither
does a unit whose text changed (it is not unchanged, and its own change is reported).

Ties (several longest subsequences, as for two swapped units) are broken one way: of the
longest subsequences, the one whose units come earliest in the earlier revision (the
lexicographically smallest list of base positions). For a swap of A and B (base A, B) A
keeps its place and B is the unit reported as moved. A unit text held twice in one file
(a blind spot) is paired by occurrence: the k-th copy in one revision with the k-th in the
other. rules/diff/ decide what such a unit is (`reordered`, E/order); nothing is decided
here.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import compress
from typing import Dict, Iterable, List, Sequence, Set, Tuple

Order = Tuple[Sequence[str], Sequence[str], Sequence[str]]  # (kinds, ids, digests) in file order


def off_subsequence(before: Sequence[str], after: Sequence[str]) -> List[int]:
    """The positions in ``before`` of the items not on the chosen longest common
    subsequence of ``before`` and ``after`` (each item held once per side, or paired by
    occurrence), in order. Items one side lacks are ignored."""
    common = set(before).intersection(after)
    if not common:
        return []
    # the unchanged units, in each side's order; equal lists (no reorder) cost no Python step
    ours = list(compress(range(len(before)), map(common.__contains__, before)))
    theirs = list(compress(after, map(common.__contains__, after)))
    keys = [before[i] for i in ours]
    if keys == theirs:
        return []
    slots: Dict[str, List[int]] = {}  # key -> its places in the after sequence, by occurrence
    for place, key in enumerate(theirs):
        slots.setdefault(key, []).append(place)
    taken: Dict[str, int] = {}
    values = []  # per unchanged unit of before: its place in after (-1: more copies than after)
    for key in keys:
        n = taken.get(key, 0)
        taken[key] = n + 1
        values.append(slots[key][n] if n < len(slots[key]) else -1)
    kept = _kept(values)
    return [ours[i] for i, value in enumerate(values) if value >= 0 and i not in kept]


def _kept(values: List[int]) -> Set[int]:
    """The indices of the longest strictly increasing subsequence of ``values`` (-1 never
    taken) with the lexicographically smallest indices: the longest run starting at each
    index is known first (right to left, patience sorting), then the earliest index that
    still allows a run of the length needed is taken at each step."""
    longest = [0] * len(values)
    tails: List[int] = []  # over negated values, read right to left: an increasing run
    for i in range(len(values) - 1, -1, -1):
        if values[i] < 0:
            continue
        at = bisect_left(tails, -values[i])
        if at == len(tails):
            tails.append(-values[i])
        else:
            tails[at] = -values[i]
        longest[i] = at + 1
    need, last, kept = len(tails), -1, set()
    for i, value in enumerate(values):
        if need and longest[i] == need and value > last:
            kept.add(i)
            need, last = need - 1, value
    return kept


def reordered(before: Dict[str, Order], after: Dict[str, Order]) -> Set[Tuple[str, str, str]]:
    """The ``(kind, id, module)`` of each unit off the common subsequence of its file, for
    the files both ``before`` and ``after`` (module -> :data:`Order`) hold."""
    out: Set[Tuple[str, str, str]] = set()
    for module in sorted(set(before).intersection(after)):
        kinds, idents, digests = before[module]
        # a digest covers the heading and a unit's kind is its file's: it names the unit
        for i in off_subsequence(digests, after[module][2]):
            out.add((kinds[i], idents[i], module))
    return out


def orders_of(rows: Iterable[tuple], modules=None) -> Dict[str, Order]:
    """module -> :data:`Order` from ``git_unit`` rows ``(rev, kind, id, module, digest,
    line)`` of one revision (file order is line order), of ``modules`` when given."""
    per: Dict[str, List[tuple]] = {}
    for _rev, kind, ident, module, digest, line in rows:
        if modules is None or module in modules:
            per.setdefault(module, []).append((line, kind, ident, digest))
    out: Dict[str, Order] = {}
    for module, units in per.items():
        units.sort()
        _lines, kinds, idents, digests = zip(*units)
        out[module] = (kinds, idents, digests)
    return out
