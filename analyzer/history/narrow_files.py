"""``analyze diff`` extracts of a changed entry file only the units it asks about.

Between two commits every unit of every changed file used to be extracted, so a diff grew
with the size of the files it touched (on the 1,000-commit bench, 100 commits touch every
entry file: 1.8x the CPU at twice the project size). A file's units, their digests, lines
and byte ranges are stored per blob (analyzer/history/unit_digests.py), so which units differ is
known without extracting or even decoding a changed file. Each changed entry file is then
extracted as the text of the units asked about and of the lines between units (titles,
sections), without every other entry's lines; a map of where each kept part starts in the
file gives unit and problem lines back their file lines (``Revision.file_line``). A unit's
facts do not depend on other entries (the extractor leaves cross-entry questions to rules),
so the units kept read as in the whole file.

That holds where a file's structure cannot hide or invent units, so a file is narrowed
only when its stored record says the whole file is plain: no problem without a unit ID (no
Markdown or heading problem, no ambiguous bullet), no line break but ``\\n`` and no byte
order mark, in both revisions (a file read whole in one is read whole in the other). Two
checks follow the extraction, and any miss answers None (the caller then extracts whole
files, as before): no such problem appears in a narrowed file, and every
unit kept has the digest and line its stored record gives. A stored file is one that was
decoded and extracted, so a narrowed file is not decoded again (its size is checked); the
revisions' file digests are the blob ids (of the bytes after a byte order mark, which
decoding drops: a file whose only change is a BOM is the same text, as whole revisions
say). Nothing is decided here.
"""

from __future__ import annotations

from itertools import compress
from operator import ne
from typing import Dict, List, Optional, Sequence, Set, Tuple

from analyzer.history.revisions import Revision
from analyzer.history.unit_digests import UNIT_KINDS, digest_module, idless_modules, stored_units
from analyzer.project.files import BOM
from analyzer.project.loader import file_kind, load_texts

Key = Tuple[str, str]  # (kind, casefolded id)


def within_files(repo, specs: Sequence[Tuple[str, str, str]], listings: Dict[str, Dict[str, str]],
                 blobs: Dict[str, bytes], same: Set[str], memory_dir: str) -> Optional[List[Revision]]:
    """The two revisions of ``specs`` as :func:`analyzer.history.diff_narrow.changed_revisions`
    gives them, with the changed entry files narrowed to the units asked about; None when a
    changed file's units are not stored or a check fails. Raises as decoding every file
    would: a stored file is one that decoded, so only its size is checked again."""
    from analyzer.history.diff_narrow import decoded_files
    from analyzer.history.unit_order import reordered

    revs = [rev for rev, _sha, _label in specs]
    stored, records = {}, {}  # rev -> every changed file's units; rev -> the files narrowed
    for rev in revs:
        found = stored_units(listings[rev], [m for m in listings[rev] if m not in same and file_kind(m) in UNIT_KINDS])
        if found is None:
            return None
        stored[rev] = found
        # a BOM is not in the text the stored byte offsets count
        records[rev] = {m: columns for m, (columns, plain) in found.items()
                        if plain and file_kind(m) == "entries" and not blobs[listings[rev][m]].startswith(BOM)}
    # a file read whole in one revision is read whole in the other: its units left as they
    # are would else be in one revision only (added or removed)
    whole = {m for rev in revs for m in stored[rev] if m not in records[rev]}
    records = {rev: {m: columns for m, columns in records[rev].items() if m not in whole} for rev in revs}
    texts = decoded_files(specs, listings, blobs, memory_dir, {rev: set(records[rev]) for rev in revs})
    differing = _differing(stored[revs[0]], stored[revs[1]])
    # from every unit of each changed file, in order (a narrowed file's git_unit rows are not)
    moved = frozenset(reordered(*({m: columns[:3] for m, (columns, _plain) in stored[rev].items()} for rev in revs)))
    asked = set(differing) | {(kind, ident) for kind, ident, _module in moved}
    for _round in range(2):  # the second adds the Supersedes targets of differing entries
        revisions = _load(repo, specs, listings, blobs, records, texts, same, memory_dir, asked)
        more = {("entry", target) for ident, relation, target in
                revisions[1].project.facts.relation_sets(["entry_relation"]).get("entry_relation", ())
                if relation == "Supersedes" and ("entry", ident) in differing} - asked
        if not more:
            break
        asked |= more
    for revision, other in zip(revisions, revs[::-1]):
        revision.reordered = {other: moved}
    return revisions if _checked(revisions, records, asked) else None


def _differing(before: dict, after: dict) -> Set[Key]:
    """The ``(kind, id)`` of each unit (kind, ID, file, text) one side holds and the other
    does not. A unit's digest covers its heading, and its kind is its file's, so within a
    file the digest alone tells units apart: sets of digests are compared in C."""
    out: Set[Key] = set()
    for module in set(before) | set(after):
        sides = [side[module][0] if module in side else ((),) * 3 for side in (before, after)]
        for (kinds, idents, digests, *_rest), (_k, _i, others, *_r) in (sides, sides[::-1]):
            gone = set(digests).difference(others)
            if gone:
                at = dict(zip(digests, range(len(digests))))
                out.update((kinds[at[d]], idents[at[d]]) for d in gone)
    return out


def _load(repo, specs, listings, blobs, records, texts, same: Set[str], memory_dir: str,
          asked: Set[Key]) -> List[Revision]:
    from analyzer.history.diff_narrow import holding_modules
    from analyzer.history.worktree_blobs import text_id

    holding = holding_modules({m: texts[specs[0][0]][m] for m in same}, asked)
    revisions = []
    for rev, sha, label in specs:
        kept = {m: t for m, t in texts[rev].items() if m not in same or m in holding}
        line_maps = {}
        for module, columns in records[rev].items():
            kept[module], line_maps[module] = units_of(blobs[listings[rev][module]], columns, asked)
        project = load_texts(repo.root, memory_dir, kept, use_cache=True)
        digests = {m: text_id(listings[rev][m], blobs[listings[rev][m]]) for m in kept}
        revisions.append(Revision(rev, sha, label, project, (), digests=digests,
                                  line_maps=line_maps, sources={m: blobs[listings[rev][m]] for m in line_maps}))
    return revisions


def units_of(data: bytes, columns: tuple, asked: Set[Key]) -> Tuple[str, List[Tuple[int, int]]]:
    """The text of ``data`` (UTF-8) without the lines of every unit of ``columns`` (stored, in
    file order) that ``asked`` does not name, and where each kept part starts: ``(line in
    the text, line in the file)``. Only what is kept is decoded."""
    parts: List[str] = []
    lines: List[Tuple[int, int]] = []
    done, line, whole = 0, 1, 1  # bytes before ``done`` are handled; the lines there

    def keep(upto: int, skip: int) -> None:
        nonlocal done, line, whole
        if upto > done:
            lines.append((line, whole))
            count = data.count(b"\n", done, upto)
            parts.append(data[done:upto].decode("utf-8"))
            line, whole = line + count, whole + count
        whole += data.count(b"\n", upto, skip)
        done = skip

    for start, end in left_out(columns, asked):
        keep(start, end)
    keep(len(data), len(data))
    return "".join(parts), lines


def left_out(columns: tuple, asked: Set[Key]) -> List[Tuple[int, int]]:
    """The byte ranges of the units of ``columns`` that ``asked`` does not name, in file
    order, a run of adjacent units as one range. The asked units and the places where a unit
    does not start where the one before it ends (lines between units) are found in C: a
    Python step per unit of every changed file grew with the file, not with the change."""
    kinds, idents, _digests, _firsts, _lasts, starts, ends = columns
    count = len(starts)
    named = set(compress(range(count), map(asked.__contains__, zip(kinds, idents))))
    gaps = compress(range(1, count), map(ne, starts[1:], ends[:-1]))
    marks = sorted({0, *named, *gaps})  # each run of left-out units starts at one of these
    ranges = []
    for mark, following in zip(marks, marks[1:] + [count]):
        first = mark + 1 if mark in named else mark
        if first < following:
            ranges.append((starts[first], ends[following - 1]))
    return ranges


def _checked(revisions: List[Revision], records, asked: Set[Key]) -> bool:
    """Whether the narrowed files read as the whole ones: no problem without a unit ID, and
    the kept units' digests and lines as stored."""

    for revision in revisions:
        modules = set(records[revision.rev])
        rel = revision.relations()  # the comparison reads the same, built once per revision
        if modules & idless_modules(rel):
            return False
        placed = revision.placed()
        for module in modules:
            kinds, idents, digests, firsts = records[revision.rev][module][:4]
            # chosen in C: a Python step per unit of the file grew with the file
            stored = sorted(compress(zip(kinds, idents, digests, firsts), map(asked.__contains__, zip(kinds, idents))))
            found = sorted((kind, ident, digest, revision.file_line(module, line)) for kind, ident, digest, line, _last
                           in digest_module(revision.project, module, placed.get(module, [])))
            if found != stored:
                return False
    return True
