"""The ``git_unit`` rows of a revision: every unit with the SHA-256 of its text, kept per file.

A merge review digests every unit of three revisions (60,000 SHA-256s for a 10k project),
although a file's units and their digests depend on nothing but what its extraction
depends on: the file's text, its path and kind, the entry grammar its revision's manifest
chooses, and the extractor (exactly the facts cache's key, analyzer/cache.py). For a Git
revision the text is named by the blob id and the grammar by the manifest's blob id, so a
file's ``(kind, id, digest, line)`` rows are stored under those ids (area ``units`` of the
verified store, as four columns) and a later run reads them back instead of digesting
again; a revision whose files all hit needs no extraction at all for its units
(analyzer/revisions.py then parses it only if a finding names one of its units). The work tree (no blob ids), modules
outside the revision's tree (the local overlay of a reused work tree) and ``--no-cache``
runs are digested as before. Nothing is decided here.
"""

from __future__ import annotations

import hashlib
import marshal
from typing import Callable, Dict, List, Optional, Tuple

from analyzer.cache import Area

AREA = Area("units", ".marshal", fanout=True)
VERSION = "1"  # bump when what a row holds or how a unit is digested changes
# unit kinds: (relation placing an ID at an ordinal, its ID-as-written relation, fixed module)
UNIT_SOURCES = {
    "entry": ("entry_unit", "entry_display", None),
    "subject": ("subject_unit", "subject_display", "subjects.md"),
    "record": ("rec_unit", "rec_display", "reconciliations.md"),
}
UNIT_KINDS = ("entries", "subjects", "reconciliations")  # the file kinds that hold units

Row = Tuple[str, str, str, int]  # (kind, id, digest, line)


def placed_units(rel) -> Dict[str, List[Tuple[str, str, int]]]:
    """module -> the ``(kind, id, ordinal)`` of every unit the fact base places in it."""
    out: Dict[str, List[Tuple[str, str, int]]] = {}
    for kind, (placed, _shown, fixed) in UNIT_SOURCES.items():
        for fact in rel.get(placed, ()):
            ident, module, ordinal = (fact[0], fixed, fact[1]) if fixed else fact
            out.setdefault(module, []).append((kind, ident, ordinal))
    return out


def digest_module(project, module: str, placed: List[Tuple[str, str, int]]) -> List[Row]:
    """The ``(kind, id, digest, line)`` of the units ``placed`` in ``module`` of ``project``
    (a unit whose ordinal has no line range is left out)."""
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
        rows.append((kind, ident, hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest(), start + 1))
    return rows


def unit_rows(revision, use_cache: bool = False, keep: Optional[Callable[[str], bool]] = None) -> List[tuple]:
    """``git_unit`` rows of ``revision`` (analyzer/revisions.py), of the modules ``keep``
    accepts (all by default): from the ``units`` store for the files of its tree when
    ``use_cache``, else (and for what is not stored yet) digested from its parsed files,
    which are then stored."""
    from analyzer.cache import extractor_version
    from analyzer.project import file_kind

    rev = revision.rev
    keep = keep or (lambda _module: True)
    blobs = dict(revision.blob_ids) if use_cache else {}
    manifest = blobs.get("manifest.md", "")
    keys = {module: _key(extractor_version(), module, oid, manifest)
            for module, oid in blobs.items() if file_kind(module) in UNIT_KINDS and keep(module)}
    rows: List[tuple] = []
    missing = []
    for module, key in sorted(keys.items()):
        stored = AREA.get_marshal(key, _is_columns)
        if stored is None:
            missing.append(module)
        else:
            kinds, idents, digests, lines = stored
            rows += zip((rev,) * len(kinds), kinds, idents, (module,) * len(kinds), digests, lines)
    # a parsed revision may place units in files outside its tree (a reused work tree's overlay)
    extra = {module for module in _unit_modules(revision.project.facts.relation_sets()) - set(keys)
             if keep(module)} if revision.loaded else set()
    if missing or extra or not use_cache:
        placed = placed_units(revision.project.facts.relation_sets())
        for module in sorted({module for module in set(placed) - set(keys) if keep(module)} | set(missing)):
            found = digest_module(revision.project, module, placed.get(module, []))
            if module in keys:
                AREA.put(keys[module], marshal.dumps(tuple(map(tuple, zip(*found))) if found else ((),) * 4))
            rows += [(rev, kind, ident, module, digest, line) for kind, ident, digest, line in found]
    return rows


def _unit_modules(rel) -> set:
    """The modules in which the fact base places units."""
    modules = {fact[1] for fact in rel.get("entry_unit", ())}
    return modules | {fixed for _kind, (placed, _shown, fixed) in UNIT_SOURCES.items() if fixed and rel.get(placed)}


def _key(version: str, module: str, oid: str, manifest: str) -> str:
    text = f"{VERSION}\0{version}\0{module}\0{oid}\0{manifest}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _is_columns(value) -> bool:
    """A stored file: its rows as four columns (kinds, ids, digests, lines) of one length,
    checked column by column in C (a check per row cost more than the digests it spares)."""
    return (isinstance(value, tuple) and len(value) == 4 and all(isinstance(col, tuple) for col in value)
            and len(set(map(len, value))) == 1 and all(set(map(type, col)) <= {py} for col, py in
                                                       zip(value, (str, str, str, int))))
