"""The ``git_unit`` rows of a revision: every unit with the SHA-256 of its text, kept per file.

A merge review digests every unit of three revisions (60,000 SHA-256s for a 10k project),
although a file's units and their digests depend on nothing but what its extraction
depends on: the file's text, its path and kind, the entry grammar its revision's manifest
chooses, and the extractor (exactly the facts cache's key, analyzer/cache.py). For a Git
revision the text is named by the blob id and the grammar by the manifest's blob id, so a
file's ``(kind, id, digest, line)`` rows are stored under those ids (area ``units`` of the
verified store) and a later run reads them back instead of digesting again; a revision
whose files all hit needs no extraction at all for its units (analyzer/revisions.py then
parses it only if a finding names one of its units). The work tree (no blob ids), modules
outside the revision's tree (the local overlay of a reused work tree) and ``--no-cache``
runs are digested as before. Nothing is decided here.
"""

from __future__ import annotations

import hashlib
import marshal
from typing import Dict, List, Optional, Tuple

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


def unit_rows(revision, use_cache: bool = False) -> List[tuple]:
    """``git_unit`` rows of ``revision`` (analyzer/revisions.py): from the ``units`` store
    for the files of its tree when ``use_cache``, else (and for what is not stored yet)
    digested from its parsed files, which are then stored."""
    from analyzer.cache import extractor_version
    from analyzer.project import file_kind

    rev = revision.rev
    blobs = dict(revision.blob_ids) if use_cache else {}
    manifest = blobs.get("manifest.md", "")
    keys = {module: _key(extractor_version(), module, oid, manifest)
            for module, oid in blobs.items() if file_kind(module) in UNIT_KINDS}
    rows: List[tuple] = []
    missing = []
    for module, key in sorted(keys.items()):
        stored = AREA.get_marshal(key, _is_rows)
        if stored is None:
            missing.append(module)
        else:
            rows += [(rev, kind, ident, module, digest, line) for kind, ident, digest, line in stored]
    if missing or not keys or revision.loaded:
        placed = placed_units(revision.project.facts.relation_sets())
        for module in sorted(set(placed) - set(keys) | set(missing)):
            found = digest_module(revision.project, module, placed.get(module, []))
            if module in keys:
                AREA.put(keys[module], marshal.dumps(found))
            rows += [(rev, kind, ident, module, digest, line) for kind, ident, digest, line in found]
    return rows


def _key(version: str, module: str, oid: str, manifest: str) -> str:
    text = f"{VERSION}\0{version}\0{module}\0{oid}\0{manifest}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _is_rows(value) -> bool:
    return isinstance(value, list) and all(
        isinstance(row, tuple) and len(row) == 4 and isinstance(row[0], str) and isinstance(row[1], str)
        and isinstance(row[2], str) and isinstance(row[3], int) for row in value)
