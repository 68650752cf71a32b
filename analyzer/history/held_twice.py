"""Which IDs of a commit's snippets a unit outside them holds too ("held twice").

A history window (analyzer/history/window.py) compares each commit with its first parent through
snippets: only the units the commit changed. A rule of rules/diff/ asks about units the
commit did not change: a changed unit whose ID a second unit also holds is a blind spot
(rules/diff/blindspot.dl), at the earlier or the later revision. ``analyze diff`` reads
whole revisions, so the second holder is there; a snippet does not hold it. This module
says, per commit, which IDs of its snippets some other unit holds, without reading a whole
revision per commit: the unit headings of the first compared commit's parent are counted
once (one ``git grep`` of its tree), and each commit's counts follow from its parent's by
the headings its snippets drop and add (a snippet is exactly the lines of Git's widened
hunks, and every line outside them is the same in both revisions). Where the folder's tree
at a commit's parent is not the tree the counting reached (a commit the window leaves out
changed it), the parent's headings are counted afresh. The units holding those IDs are then
read at the parent (analyzer/history/held_units.py) and given to both sides of the pair, so the
window and ``analyze diff commit~1 commit`` see the same units. Nothing is decided here.
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, Iterable, List, Mapping, Optional, Set, Tuple

from analyzer.history.git import Commit, History, unit_heading_ids

Patch = Mapping[str, Tuple[Optional[str], Optional[str]]]  # path -> (text before, text after)


def heading_ids(texts: Iterable[Optional[str]]) -> Counter:
    """How many unit headings of ``texts`` name each (casefolded) ID."""
    found: Counter = Counter()
    for text in texts:
        if text:
            found.update(unit_heading_ids(text))
    return found


def held_elsewhere(history: History, commits: List[Commit], patches: Mapping[str, Patch]) -> Dict[str, Set[str]]:
    """sha -> the IDs named in a unit heading of the commit's snippets (``patches[sha]``,
    every path) that a heading outside the snippets also names, at the parent or at the
    commit; ``commits`` in first-parent order, oldest first. Commits without such an ID are
    left out."""
    trees = history.folder_trees([sha for c in commits for sha in (c.sha, *c.parents[:1])])
    counts: Optional[Counter] = None
    reached = None  # the folder tree ``counts`` describes
    out: Dict[str, Set[str]] = {}
    for commit in commits:
        parent = commit.parents[0] if commit.parents else ""
        tree = trees.get(parent, "") if parent else ""
        if counts is None or tree != reached:
            counts = heading_ids(history.heading_lines(parent)) if tree else Counter()
        patch = patches.get(commit.sha, {})
        before = heading_ids(old for old, _new in patch.values())
        after = heading_ids(new for _old, new in patch.values())
        elsewhere = {i for i in before if counts[i] > before[i]}
        counts.subtract(before)
        counts.update(after)
        elsewhere |= {i for i in after if counts[i] > after[i]}
        if elsewhere:
            out[commit.sha] = elsewhere
        reached = trees.get(commit.sha, "")
    return out


def untouched(found: Mapping[str, List[str]], snippets: Mapping[str, str], ids: Set[str]) -> Dict[str, List[str]]:
    """module -> the units of ``found`` (the units at the parent whose heading names one of
    ``ids``, :func:`analyzer.history.held_units.units_at`) that the parent's snippet of the module
    does not hold: the same text once less for each of the snippet's units (blank lines at
    either end aside, as Git's function context leaves trailing blank lines out)."""
    from analyzer.history.held_units import cut_units

    out: Dict[str, List[str]] = {}
    for module, units in found.items():
        left = Counter(_norm(u) for u in cut_units(snippets.get(module) or "", ids))
        kept = []
        for unit in units:
            if left[_norm(unit)] > 0:
                left[_norm(unit)] -= 1
            else:
                kept.append(unit)
        if kept:
            out[module] = kept
    return out


def _norm(unit: str) -> str:
    lines = unit.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)
