"""Free-form (legacy, §5.11) units of a comparison as ``git_unit`` rows of kind ``legacy``.

A unit without an ID (a bullet, a non-entry h2 section, a preamble or body paragraph: every
unit of the unit model, analyzer/project/markdown.py, whose heading names no ID) is memory all the
same: `read` loads it. Deleting a module file that holds only such units, or rewriting one
to say the opposite, must not read as UNCHANGED. Such a unit is named as §5.11 names units
in budget omissions, ``<file>#unit-<n>``, n its 1-based place among all units of the file
(preamble and body units included), so that every free-form unit has a name.

A free-form unit has no identity across revisions but its text, so the two revisions of a
comparison are aligned per file by text (:class:`difflib.SequenceMatcher` over the files'
free-form unit texts, in order): a unit whose text both hold is no change, wherever it
moved; in each stretch the alignment replaces, the first units of one side are paired with
the first of the other (each pair one unit, named as in the later revision, with two texts:
rules/diff/ then find it modified), and the rest were removed (named as in the earlier
revision) or added (as in the later). Only the files whose text differs are read. The rows
are per comparison (the name of a paired unit depends on the pair), so they are made here,
not per revision. Nothing is decided here: rules/diff/ classify them like any unit.
"""

from __future__ import annotations

import hashlib
from difflib import SequenceMatcher
from typing import Dict, List, Optional, Tuple
from analyzer.history.unit_cuts import cut

KIND = "legacy"
Unit = Tuple[int, str, int]  # (ordinal among all units, text, 1-based first line)


def freeform_units(text: Optional[str]) -> List[Unit]:
    """The free-form units of a file's text (none when the file is absent), in order."""
    return list(cut(text)[1]) if text else []


def digest(text: str) -> str:
    """The digest of a free-form unit's text, as the comparison's ``git_unit`` rows and the
    commits' ``git_commit_touch_free`` rows hold it (one definition: the rules follow a unit's
    texts from one to the other, so the two must never differ)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def name(module: str, ordinal: int) -> str:
    """A free-form unit's name (§5.11): ``<file>#unit-<n>``."""
    return f"{module}#unit-{ordinal}"


def aligned(before: List[Unit], after: List[Unit]) -> List[Tuple[Optional[Unit], Optional[Unit]]]:
    """The units of two versions of a file that differ, as ``(before, after)`` pairs: both
    for a rewritten unit, one side None for a removed or an added one."""
    out: List[Tuple[Optional[Unit], Optional[Unit]]] = []
    old_texts, new_texts = [u[1] for u in before], [u[1] for u in after]
    if old_texts == new_texts:  # no difference to align (most snippets hold no free-form unit)
        return out
    matcher = SequenceMatcher(None, old_texts, new_texts, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        old, new = before[i1:i2], after[j1:j2]
        paired = min(len(old), len(new))
        out += list(zip(old[:paired], new[:paired]))
        out += [(unit, None) for unit in old[paired:]] + [(None, unit) for unit in new[paired:]]
    return out


def pair_rows(before_rev: str, after_rev: str, texts: Dict[str, Tuple[Optional[str], Optional[str]]]
              ) -> Tuple[List[tuple], List[tuple]]:
    """``git_unit`` and ``git_unit_display`` rows of the free-form units that differ between
    two revisions, from ``texts``: module -> (text before, text after) of each file whose
    text differs (None where the file is absent)."""
    units: List[tuple] = []
    display: List[tuple] = []
    for module, (old, new) in sorted(texts.items()):
        for a, b in aligned(freeform_units(old), freeform_units(new)):
            ident = name(module, (b or a)[0])
            for rev, unit in ((before_rev, a), (after_rev, b)):
                if unit is not None:
                    units.append((rev, KIND, ident.casefold(), module, digest(unit[1]), unit[2]))
                    display.append((rev, KIND, ident.casefold(), ident))
    return units, display


def changed(before: Optional[str], after: Optional[str]) -> bool:
    """Whether a file's free-form units differ between two of its texts."""
    return bool(aligned(freeform_units(before), freeform_units(after)))
