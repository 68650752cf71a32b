"""The parts of a unit at a revision, digested, and what kept units from being read.

``git_unit_part`` splits a unit into its fields (every occurrence of a field together, the
Evidence items, the heading title) with a digest each, so that rules can tell which fields a
change touched (rules/diff/). The fields are read by the extractor's own field reader
(:func:`analyzer.project.extract.fields.parse_fields`) on the revision's file, for the units asked
for only. ``git_parse_issue`` relabels a revision's parse problems (Markdown, malformed
headings, per-unit issues) with their lines; rules decide which of them hide a change.
Nothing is decided here.
"""

from __future__ import annotations

import hashlib
import marshal
from typing import Dict, List, Set, Tuple

from analyzer.core.cache import Area
from analyzer.history.revisions import Revision
from analyzer.history.unit_cuts import plain_lines
from analyzer.history.unit_digests import ISSUES
from analyzer.project.extract.fields import parse_fields
from analyzer.project.facts_cache import extractor_version
from analyzer.project.markdown import lex

PARTS = Area("parts", ".marshal", fanout=True)
PARTS_VERSION = "1"  # bump when how a part is cut or digested changes


class _Span:
    """The line range of one unit, as :func:`parse_fields` reads it."""

    __slots__ = ("start", "end")

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


def digest(text: str) -> str:
    """A part's digest: the SHA-256 of its text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _text(text: str) -> str:
    return text


def part_facts(revision: Revision, wanted: Set[Tuple[str, str]], use_cache: bool = False,
               digested: bool = True) -> List[tuple]:
    """``git_unit_part`` rows for the ``(kind, id)`` units of ``wanted`` the revision holds.
    With ``use_cache``, the parts of every unit of a file are kept per file text (area
    ``parts`` of the verified store, keyed like the facts cache: text, path, entry grammar,
    extractor), so a later comparison of the same file reads no field again. Without
    ``digested`` (and without ``use_cache``) a row's last column is the part's text, not its
    :func:`digest`: the caller digests only the parts that differ between two revisions
    (most of a modified unit's parts do not; a first readiness reading digested 160,000)."""
    project = revision.project
    rel = revision.relations()
    schema = max((v for (v,) in rel.get("entry_schema", ())), default=2)
    rows: List[tuple] = []
    for module, units in sorted(revision.placed().items()):
        asked = [u for u in units if (u[0], u[1]) in wanted]
        if not asked:
            continue
        found = _module_parts(project, module, units if use_cache else asked, schema, use_cache,
                              digest if digested or use_cache else _text)
        for kind, ident, ordinal in asked:
            parts = found.get(f"{kind}\0{ident}\0{ordinal}", ())
            rows += [(revision.rev, kind, ident, name, digest) for name, digest in parts]
    return rows


def _module_parts(project, module: str, units: List[Tuple[str, str, int]], schema: int,
                  use_cache: bool, value=digest) -> Dict[str, List[Tuple[str, str]]]:
    """``"kind\\0id\\0ordinal"`` -> the ``(part, digest)`` of each of ``units`` in ``module``
    (from the cache when it holds them)."""

    key = ""
    if use_cache:
        text = project.texts[module]
        material = f"{PARTS_VERSION}\0{extractor_version()}\0{schema}\0{module}\0{text}"
        key = hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()
        stored = PARTS.get_marshal(key, _is_parts)
        if stored is not None:
            return stored
    found = _parse_parts(project, module, units, schema, value)
    if use_cache:
        PARTS.put(key, marshal.dumps(found))
    return found


def _parse_parts(project, module: str, units: List[Tuple[str, str, int]], schema: int, value=digest):
    ranges = project.unit_ranges.get(module, [])
    lexed = None
    found: Dict[str, List[Tuple[str, str]]] = {}
    for kind, ident, ordinal in units:
        if not 1 <= ordinal <= len(ranges):
            continue
        if lexed is None:
            text = project.texts[module]
            lexed = plain_lines(text) or lex(text)
        start, end = ranges[ordinal - 1]
        parsed = parse_fields(lexed, _Span(start, end), schema)
        parts = [("title", lexed.lines[start].split("\u2014", 1)[-1].strip())]
        for name, occurrences in parsed.fields.items():
            if len(occurrences) == 1 and not occurrences[0].body:  # most fields: one inline value
                parts.append((name, occurrences[0].value.strip("\n")))
            else:
                parts.append((name, "\n\0".join("\n".join([occ.value, *occ.body]).strip("\n")
                                                for occ in occurrences)))
        if parsed.evidence:
            parts.append(("Evidence", "\n".join(i for i, _ in parsed.evidence)))
        found[f"{kind}\0{ident}\0{ordinal}"] = parts if value is _text else [(n, value(t)) for n, t in parts]
    return found


def _is_parts(value) -> bool:
    return isinstance(value, dict) and all(
        isinstance(key, str) and isinstance(parts, list)
        and all(isinstance(p, tuple) and len(p) == 2 for p in parts) for key, parts in value.items())


def issue_facts(revision: Revision) -> List[tuple]:
    """``git_parse_issue`` rows: every parse problem of the revision with its line."""
    rel = revision.relations()
    rows = []
    for relation, (id_col, module_col) in ISSUES.items():
        found = rel.get(relation)
        if not found:  # spans_of reads every located fact: a first reading has 2,002 revisions
            continue
        spans = revision.project.facts.spans_of(relation)
        for fact in found:
            module = fact[module_col] if isinstance(module_col, int) else module_col
            ident = fact[id_col] if id_col is not None else ""
            span = spans.get(fact)
            rows.append((revision.rev, module, revision.file_line(module, span.line) if span else 1, ident, fact[-1]))
    return rows
