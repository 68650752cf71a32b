"""``analyze diff`` reads what differs, not the whole project.

A unit with the same kind, ID, file and text in both revisions of a comparison is no change,
and the rules of rules/diff/ look at it only through its ID: as the predecessor a changed
entry newly names in ``Supersedes`` (``newly_supersedes``), or as a second unit holding a
changed unit's ID (a blind spot). So ``analyze diff`` between two commits

- extracts only the managed files whose blob differs (plus manifest.md, which selects the
  entry grammar), and the unchanged files that hold, in a unit heading, one of the IDs the
  rules can ask about (found by the unit-heading pattern in the decoded text of the files
  whose units are of that ID's kind: an unchanged file is the same in both revisions);
- gives the rules, of those files, the units that differ and every unit holding one of their
  IDs or a ``Supersedes`` target of theirs (:func:`asked_ids`), in both revisions.

Every unit left out is the same in both revisions and holds no ID a rule asks about, so the
rules derive what they derive over the whole revisions (tests/history/test_diff_narrow.py
compares both on every class, blind spot and supersession). Once a changed file's units are
stored, only the units asked about are extracted from it, not the whole file
(analyzer/history/narrow_files.py, tests/history/test_narrow_files.py). Work grows with the changed
units, not with the project. Nothing is decided here.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from analyzer.history.git import Repo, unit_heading_ids
from analyzer.project.loader import file_kind, load_texts
from analyzer.history.revisions import Revision, decode_files, list_files, unit_facts

MANIFEST = "manifest.md"
FILE_KIND = {"entry": "entries", "subject": "subjects", "record": "reconciliations"}  # unit kind -> file kind

Key = Tuple[str, str]  # (kind, casefolded id)


def asked_ids(before: Iterable[tuple], after: Iterable[tuple], after_revision: Revision,
              reordered: Iterable[Key] = ()) -> Set[Key]:
    """The ``(kind, id)`` of every unit that differs between ``before`` and ``after``
    (``git_unit`` rows of the two revisions: a unit differs when the other revision has no
    unit of the same kind, ID, file and text), of each ``Supersedes`` target that a
    differing entry names in the later revision, and the ``reordered`` units (unchanged,
    yet off the common subsequence of their file's order: analyzer/history/unit_order.py)."""
    shapes = {}
    for side, rows in ((0, before), (1, after)):
        for _rev, kind, ident, module, digest, _line in rows:
            shapes.setdefault((kind, ident, module, digest), set()).add(side)
    asked = {(kind, ident) for (kind, ident, _m, _d), sides in shapes.items() if len(sides) == 1}
    entries = {ident for kind, ident in asked if kind == "entry"}
    asked.update(reordered)
    for ident, relation, target in after_revision.project.facts.relation_sets(["entry_relation"]).get("entry_relation", ()):
        if relation == "Supersedes" and ident in entries:
            asked.add(("entry", target))
    return asked


def changed_revisions(repo: Repo, specs: Sequence[Tuple[str, str, str]], memory_dir: str,
                      use_cache: bool, worktree: Optional[Tuple[Dict[str, str], Dict[str, bytes]]] = None
                      ) -> List[Revision]:
    """The two revisions of ``specs`` (``[(rev, sha, label)]``, base first) with only the
    files that differ, the manifest, and the unchanged files holding an ID the rules can ask
    about; of a changed entry file only the units asked about when its units are stored
    (:func:`within_files`). Every managed file is still read and decoded (fail closed: a
    file that cannot be read makes the comparison unavailable, as for whole revisions);
    only extraction is spared. ``worktree``: the later revision is the work tree, whose
    files and their bytes are these (analyzer/history/worktree_blobs.py): a commit's file with the
    same blob id is not read from Git."""
    from analyzer.history.unit_order import orders_of

    listings: Dict[str, Dict[str, str]] = {}
    blobs: Dict[str, bytes] = {}
    if worktree is not None:
        listings[specs[-1][0]], blobs = worktree
    for rev, sha, label in specs:
        if rev not in listings:
            listings[rev] = list_files(repo, sha, memory_dir, label)
    blobs = {**blobs, **repo.blobs(oid for listing in listings.values() for oid in listing.values()
                                   if oid not in blobs)}
    (base, _sha, _), (head, _sha2, _) = specs
    same = {m for m, oid in listings[base].items() if listings[head].get(m) == oid and m != MANIFEST}
    if use_cache:
        from analyzer.history.narrow_files import within_files

        narrowed = within_files(repo, specs, listings, blobs, same, memory_dir)
        if narrowed is not None:
            return narrowed
    texts = decoded_files(specs, listings, blobs, memory_dir)
    revisions = _load(repo, specs, texts, same, memory_dir, use_cache, listings)
    if not same:
        return revisions
    rows = [unit_facts(r, use_cache)["git_unit"] for r in revisions]  # stored for within_files
    asked = asked_ids(rows[0], rows[1], revisions[1], reordered_keys(*map(orders_of, rows)))
    holding = holding_modules({m: texts[base][m] for m in same}, asked)
    if not holding:
        return revisions
    return _load(repo, specs, texts, same - holding, memory_dir, use_cache, listings)


def decoded_files(specs, listings: Dict[str, Dict[str, str]], blobs: Dict[str, bytes], memory_dir: str,
                  unread: Dict[str, Set[str]] = None) -> Dict[str, Dict[str, str]]:
    """rev -> module -> text of every managed file of the revisions (a file both hold as one
    blob is decoded once), but for the modules ``unread`` names per revision (their size
    alone is checked); the first file that cannot be read, base first, raises."""
    by_blob: Dict[Tuple[str, str], str] = {}
    return {rev: decode_files(listings[rev], blobs, memory_dir, label, by_blob, (unread or {}).get(rev, ()))
            for rev, _sha, label in specs}


def _load(repo: Repo, specs, texts: Dict[str, Dict[str, str]], left_out: Set[str], memory_dir: str,
          use_cache: bool, listings: Dict[str, Dict[str, str]]) -> List[Revision]:
    out = []
    for rev, sha, label in specs:
        kept = {m: t for m, t in texts[rev].items() if m not in left_out}
        blob_ids = tuple(sorted((m, listings[rev][m]) for m in kept))
        out.append(Revision(rev, sha, label, load_texts(repo.root, memory_dir, kept, use_cache=use_cache), blob_ids))
    return out


def holding_modules(texts: Dict[str, str], asked: Set[Key]) -> Set[str]:
    """The modules of ``texts`` with a unit heading naming the ID of one of the ``(kind,
    id)`` ``asked`` (casefolded), found by the unit-heading pattern
    (:data:`analyzer.history.git.UNIT_ID_HEADING`) in the files whose units are of that kind (a
    unit's kind is its file's: an entry heading in subjects.md is a Subject unit): the
    extractors then read those files whole."""
    ids: Dict[str, Set[str]] = {}
    for kind, ident in asked:
        ids.setdefault(FILE_KIND[kind], set()).add(ident)
    return {module for module, text in texts.items()
            if file_kind(module) in ids and not ids[file_kind(module)].isdisjoint(unit_heading_ids(text))}


def reordered_keys(before: dict, after: dict) -> Set[Key]:
    """The ``(kind, id)`` of the units off the common subsequence of their file's order
    between the :func:`analyzer.history.unit_order.reordered` orders ``before`` and ``after``."""
    from analyzer.history.unit_order import reordered

    return {(kind, ident) for kind, ident, _module in reordered(before, after)}


def narrow_units(units: Dict[str, Dict[str, List[tuple]]], pairs: Sequence[Tuple[str, str, str]],
                 by_rev: Dict[str, Revision], reordered: Sequence[tuple] = ()) -> Dict[str, Dict[str, List[tuple]]]:
    """``units`` (revision -> :func:`analyzer.history.revisions.unit_facts`) with only the units of
    :func:`asked_ids` in each pair's two revisions, the ``git_unit_reordered`` rows
    ``reordered`` (pair, kind, id, module) among them."""
    out = dict(units)
    for pair, before, after in pairs:
        moved = {(kind, ident) for name, kind, ident, _module in reordered if name == pair}
        asked = asked_ids(units[before]["git_unit"], units[after]["git_unit"], by_rev[after], moved)
        for rev in (before, after):
            facts = dict(units[rev])
            for name in ("git_unit", "git_unit_display"):
                facts[name] = [row for row in facts[name] if (row[1], row[2]) in asked]
            out[rev] = facts
    return out
