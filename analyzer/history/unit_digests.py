"""The ``git_unit`` rows of a revision: every unit with the SHA-256 of its text, kept per file.

A merge review digests every unit of three revisions (60,000 SHA-256s for a 10k project),
although a file's units and their digests depend on nothing but what its extraction
depends on: the file's text, its path and kind, the entry grammar its revision's manifest
chooses, and the extractor (exactly the facts cache's key, analyzer/core/cache.py). For a Git
revision the text is named by the blob id and the grammar by the manifest's blob id, so a
file's ``(kind, id, digest, line)`` rows are stored under those ids (area ``units`` of the
verified store, as four columns) and a later run reads them back instead of digesting
again; a revision whose files all hit needs no extraction at all for its units
(analyzer/history/revisions.py then parses it only if a finding names one of its units). The work tree (no blob ids), modules
outside the revision's tree (the local overlay of a reused work tree) and ``--no-cache``
runs are digested as before. Each stored file also keeps its units' last lines and
whether it is plain (no problem that names no unit ID, :data:`ISSUES`, and only ``\n``
line breaks): ``analyze diff`` reads a changed file's units from there and extracts only
the units it asks about (analyzer/history/narrow_files.py). Nothing is decided here.
"""

from __future__ import annotations

import hashlib
import marshal
from typing import Callable, Dict, List, Optional, Tuple

from analyzer.core.cache import Area
from analyzer.project.facts_cache import extractor_version

AREA = Area("units", ".marshal", fanout=True)
VERSION = "2"  # bump when what a row holds or how a unit is digested changes
# unit kinds: (relation placing an ID at an ordinal, its ID-as-written relation, fixed module)
UNIT_SOURCES = {
    "entry": ("entry_unit", "entry_display", None),
    "subject": ("subject_unit", "subject_display", "subjects.md"),
    "record": ("rec_unit", "rec_display", "reconciliations.md"),
}
UNIT_KINDS = ("entries", "subjects", "reconciliations")  # the file kinds that hold units
# relation of a revision's fact base -> (column of the ID, or None; column of the module, or
# the fixed module) for the problems that keep a unit from being read (analyzer/history/unit_parts.py)
ISSUES = {
    "entry_issue": (1, 0),
    "markdown_error": (None, 0),
    "registry_issue": (0, "subjects.md"),
    "rec_issue": (0, "reconciliations.md"),
}

# every relation of a revision's fact base the history code reads (these functions, and
# analyzer/history/revisions.py RELABEL, unit_parts.py, held_units.py, narrow_files.py,
# diff_narrow.py): only these sets are built (:func:`relations`). A snippet revision of a
# readiness window holds the manifest's routes, titles, tokens and Evidence lists too,
# which nothing here reads; merging them for 2,002 revisions cost a first reading 0.1 s.
READ = ("memory_file", "entry_schema", *(name for placed, shown, _fixed in UNIT_SOURCES.values()
                                         for name in (placed, shown)), *ISSUES,
        "entry", "entry_subject", "entry_facet", "entry_relation", "evidence_source", "subject", "subject_alias",
        "subject_canonical_ref", "rec_entry", "subject_merged_into", "rec")


def relations(project) -> Dict[str, set]:
    """The non-empty relations of :data:`READ` of ``project``'s fact base (relation -> set)."""
    return project.facts.relation_sets(READ)


# line breaks other than "\n" that str.splitlines honours (unit ranges count lines with it)
OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")

Row = Tuple[str, str, str, int]  # (kind, id, digest, line)
Stored = Tuple[tuple, bool]  # seven columns and whether the file is plain (:func:`_record`)


def placed_units(rel) -> Dict[str, List[Tuple[str, str, int]]]:
    """module -> the ``(kind, id, ordinal)`` of every unit the fact base places in it."""
    out: Dict[str, List[Tuple[str, str, int]]] = {}
    for kind, (placed, _shown, fixed) in UNIT_SOURCES.items():
        for fact in rel.get(placed, ()):
            ident, module, ordinal = (fact[0], fixed, fact[1]) if fixed else fact
            out.setdefault(module, []).append((kind, ident, ordinal))
    return out


def digest_module(project, module: str, placed: List[Tuple[str, str, int]]) -> List[tuple]:
    """The ``(kind, id, digest, line, last line)`` of the units ``placed`` in ``module`` of
    ``project`` (a unit whose ordinal has no line range is left out)."""
    ranges = project.unit_ranges.get(module, [])
    lines: Optional[List[str]] = None
    rows = []
    for kind, ident, ordinal in placed:
        if not 1 <= ordinal <= len(ranges):
            continue
        if lines is None:
            lines = project.texts[module].splitlines()
        start, end = ranges[ordinal - 1]
        body = "\n".join(lines[start:end + 1]).strip("\n")
        rows.append((kind, ident, hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest(), start + 1,
                     end + 1))
    return rows


def unit_rows(revision, use_cache: bool = False, keep: Optional[Callable[[str], bool]] = None) -> List[tuple]:
    """``git_unit`` rows of ``revision`` (analyzer/history/revisions.py), of the modules ``keep``
    accepts (all by default): from the ``units`` store for the files of its tree when
    ``use_cache``, else (and for what is not stored yet) digested from its parsed files,
    which are then stored."""
    from analyzer.project.loader import file_kind

    rev = revision.rev
    keep = keep or (lambda _module: True)
    blobs = dict(revision.blob_ids) if use_cache else {}
    manifest = blobs.get("manifest.md", "")
    keys = {module: _key(extractor_version(), module, oid, manifest)
            for module, oid in blobs.items() if file_kind(module) in UNIT_KINDS and keep(module)}
    rows: List[tuple] = []
    missing = []
    for module, key in sorted(keys.items()):
        stored = AREA.get_marshal(key, _is_stored)
        if stored is None:
            missing.append(module)
        else:
            kinds, idents, digests, lines = stored[0][:4]
            rows += zip((rev,) * len(kinds), kinds, idents, (module,) * len(kinds), digests, lines)
    # a parsed revision may place units in files outside its tree (a reused work tree's
    # overlay); without the store every placed unit is digested below anyway
    extra = {module for module in _unit_modules(revision.relations()) - set(keys)
             if keep(module)} if use_cache and revision.loaded else set()
    if missing or extra or not use_cache:
        rel = revision.relations()
        placed = revision.placed()
        unclear = idless_modules(rel) if missing else set()
        for module in sorted({module for module in set(placed) - set(keys) if keep(module)} | set(missing)):
            found = digest_module(revision.project, module, placed.get(module, []))
            if module in keys:
                AREA.put(keys[module], marshal.dumps(_record(revision.project.texts[module], found,
                                                             module not in unclear)))
            rows += [(rev, kind, ident, module, digest, line) for kind, ident, digest, line, _end in found]
    return rows


def _record(text: str, found: List[tuple], readable: bool) -> Stored:
    """What the store keeps of a file with the units ``found`` (:func:`digest_module`):
    seven columns in file order (kinds, ids, digests, first and last lines, and the byte
    offsets in the file's UTF-8 text where each unit's first line starts and where its last
    line's line break ends) and whether the file is plain."""
    found = sorted(found, key=lambda row: row[3])
    offsets = [0]
    for line in text.split("\n"):
        offsets.append(offsets[-1] + len(line.encode("utf-8", "surrogatepass")) + 1)
    rows = [(*row, offsets[row[3] - 1], min(offsets[row[4]], offsets[-1] - 1)) for row in found]
    plain = readable and not any(mark in text for mark in OTHER_BREAKS)
    return (tuple(map(tuple, zip(*rows))) if rows else ((),) * 7), plain


def stored_units(listing: Dict[str, str], modules) -> Optional[Dict[str, Stored]]:
    """module -> (its units as seven columns, :func:`_record`; whether the file is plain: no
    problem without a unit ID, :func:`idless_modules`, and no line break but ``\n``) for
    each of ``modules`` of a Git revision (``listing``: module -> blob id, manifest.md
    included), as :func:`unit_rows` stored them; None when one is not stored. A file is
    stored only after it was decoded and extracted, so a stored blob is readable text."""

    manifest = listing.get("manifest.md", "")
    out: Dict[str, Stored] = {}
    for module in modules:
        stored = AREA.get_marshal(_key(extractor_version(), module, listing[module], manifest), _is_stored)
        if stored is None:
            return None
        out[module] = stored
    return out


def idless_modules(rel) -> set:
    """The modules with a problem (:data:`ISSUES`) that names no unit ID: a Markdown or
    heading problem, which may hide units."""
    found = set()
    for relation, (id_col, module_col) in ISSUES.items():
        for fact in rel.get(relation, ()):
            if id_col is None or fact[id_col] == "":
                found.add(fact[module_col] if isinstance(module_col, int) else module_col)
    return found


def _unit_modules(rel) -> set:
    """The modules in which the fact base places units."""
    modules = {fact[1] for fact in rel.get("entry_unit", ())}
    return modules | {fixed for _kind, (placed, _shown, fixed) in UNIT_SOURCES.items() if fixed and rel.get(placed)}


def _key(version: str, module: str, oid: str, manifest: str) -> str:
    text = f"{VERSION}\0{version}\0{module}\0{oid}\0{manifest}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _is_stored(value) -> bool:
    """A stored file: its rows as seven columns (:func:`_record`) of one length, checked
    column by column in C (a check per row cost more than the digests it spares), and a
    flag."""
    if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], bool)):
        return False
    columns = value[0]
    return (isinstance(columns, tuple) and len(columns) == 7 and all(isinstance(col, tuple) for col in columns)
            and len(set(map(len, columns))) == 1 and all(set(map(type, col)) <= {py} for col, py in
                                                         zip(columns, (str, str, str, int, int, int, int))))
