"""Units a comparison of unit snippets names but did not change, read from Git.

A history window (analyzer/history/window.py) compares each commit with its first parent through
snippets: only the units the commit changed. Some rules of rules/diff/ also ask about a unit
the commit did not change: an entry that newly names a predecessor in ``Supersedes`` is a
rewrite (C/supersede) only when the earlier revision holds that predecessor
(``newly_supersedes``). For ``analyze diff``, which reads whole revisions, the predecessor is
simply there; a snippet does not hold it. So, for the targets a snippet names and does not
hold, the unit text is read at the parent commit, exactly as Git's function context would
have cut it (heading to the next unit heading, :data:`analyzer.history.git.UNIT_FUNCNAME`), and put
into both sides of the pair: unchanged by the commit, it is the same unit in both revisions,
so it is no change itself but is there for the rules to see, as in a whole revision.
Nothing is decided here: which ID is named comes from the extracted facts, what it means
from the rules.
"""

from __future__ import annotations

import re
from typing import Dict, List, Mapping, Optional, Set

from analyzer.history.git import UNIT_HEADING as HEADING, UNIT_ID_HEADING, History
from analyzer.history.decode import decode_blob



def named_outside(before, after) -> Set[str]:
    """The casefolded IDs that the later snippet's entries name in ``Supersedes`` and that
    neither snippet (``before``, ``after``: :class:`analyzer.project.loader.Project`) holds."""
    held = set()
    for project in (before, after):
        held.update(fact[0] for fact in project.facts.relation_sets(["entry_unit"]).get("entry_unit", ()))
    named = {fact[2] for fact in after.facts.relation_sets(["entry_relation"]).get("entry_relation", ())
             if fact[1] == "Supersedes"}
    return named - held


def units_at(history: History, wanted: Mapping[str, Set[str]]) -> Dict[str, Dict[str, List[str]]]:
    """commit -> folder-relative path -> the texts of the units at that commit whose heading
    names one of ``wanted[commit]`` (casefolded IDs); one ``git grep`` over all the commits'
    trees and one ``git cat-file --batch`` for the files it finds."""
    ids = sorted({i for group in wanted.values() for i in group})
    if not ids:
        return {}
    pattern = "^ {0,3}##[ \t]+(" + "|".join(re.escape(i) for i in ids) + ")"
    hits = history.files_matching(pattern, sorted(wanted))
    blobs = history.repo.blobs(hits)
    found: Dict[str, Dict[str, List[str]]] = {}
    prefix = history.folder + "/"
    for hit in hits:
        commit, _, path = hit.partition(":")
        if not path.startswith(prefix):
            continue
        # a file that is not UTF-8 fails the reading (exit 2), never units with guessed bytes
        text = decode_blob(history, path[len(prefix):], commit, blobs[hit])
        units = cut_units(text, wanted.get(commit, set()))
        if units:
            found.setdefault(commit, {})[path[len(prefix):]] = units
    return found


def cut_units(text: str, ids: Set[str]) -> List[str]:
    """The units of ``text`` whose heading names one of ``ids``: each from its heading to the
    line before the next unit heading (or the end), as Git's function context cuts them."""
    lines = text.split("\n")
    starts = [n for n, line in enumerate(lines) if HEADING.match(line)] + [len(lines)]
    units = []
    for start, end in zip(starts, starts[1:]):
        m = UNIT_ID_HEADING.match(lines[start])
        if m and m.group(1).casefold() in ids:
            units.append("\n".join(lines[start:end]))
    return units


def with_units(texts: Dict[str, str], units: Optional[Dict[str, List[str]]]) -> Dict[str, str]:
    """``texts`` (module -> snippet text) with ``units`` (module -> unit texts) added after
    each module's snippet (a module the snippet does not hold gets them alone)."""
    out = dict(texts)
    for module, found in sorted((units or {}).items()):
        parts = ([out[module].rstrip("\n")] if out.get(module) else []) + [u.rstrip("\n") for u in found]
        out[module] = "\n\n".join(parts) + "\n"
    return out
