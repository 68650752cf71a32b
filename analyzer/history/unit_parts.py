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
from itertools import compress, islice
from typing import Dict, List, Set, Tuple

from analyzer.core.cache import Area
from analyzer.history.revisions import Revision
from analyzer.history.unit_cuts import plain_lines
from analyzer.history.unit_digests import ISSUES
from analyzer.project.extract.fields import field_line_re, parse_fields, plain_unit
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


def part_values(revision: Revision, wanted: Set[Tuple[str, str]], use_cache: bool = False
                ) -> Dict[Tuple[str, str], List[Tuple[str, str]]]:
    """``(kind, id)`` -> the ``(part, value)`` of every unit of ``wanted`` the revision holds
    (all its placements, in file order). The value is the part's text; with ``use_cache``
    its :func:`digest`, and the parts of every unit of a file are kept per file text (area
    ``parts`` of the verified store, keyed like the facts cache: text, path, entry grammar,
    extractor), so a later comparison of the same file reads no field again. Without the
    cache the caller digests only the parts that differ between two revisions (most of a
    modified unit's parts do not; a first readiness reading digested 160,000)."""
    project = revision.project
    rel = revision.relations()
    schema = max((v for (v,) in rel.get("entry_schema", ())), default=2)
    out: Dict[Tuple[str, str], List[Tuple[str, str]]] = {}
    for module, units in sorted(revision.placed().items()):
        asked = [u for u in units if (u[0], u[1]) in wanted]
        if not asked:
            continue
        found = _module_parts(project, module, units if use_cache else asked, schema, use_cache,
                              digest if use_cache else _text)
        for kind, ident, ordinal in asked:
            out.setdefault((kind, ident), []).extend(found.get(f"{kind}\0{ident}\0{ordinal}", ()))
    return out


def part_facts(revision: Revision, wanted: Set[Tuple[str, str]], use_cache: bool = False) -> List[tuple]:
    """``git_unit_part`` rows (part digests) for the ``(kind, id)`` units of ``wanted`` the
    revision holds (:func:`part_values`)."""
    rows: List[tuple] = []
    for (kind, ident), parts in part_values(revision, wanted, use_cache).items():
        rows += [(revision.rev, kind, ident, name, value if use_cache else digest(value)) for name, value in parts]
    return rows


def differing_parts(before: str, after: str, old: Dict[Tuple[str, str], List[Tuple[str, str]]],
                    new: Dict[Tuple[str, str], List[Tuple[str, str]]], digested: bool) -> List[tuple]:
    """The ``git_unit_part`` rows of the parts of ``old`` (revision ``before``) and ``new``
    (``after``), :func:`part_values` of one comparison's units, that the other revision does
    not hold with the same value: rules/diff/ read parts only to find those that differ
    (``part_changed``), and a unit's unchanged fields are most of its parts. Without
    ``digested`` the values are texts (equal texts, equal digests), digested here."""
    rows: List[tuple] = []
    for unit in sorted(old.keys() | new.keys()):
        sides = old.get(unit, []), new.get(unit, [])
        if sides[0] == sides[1]:
            continue
        kept = set(sides[0]), set(sides[1])
        for rev, parts, other in ((before, sides[0], kept[1]), (after, sides[1], kept[0])):
            rows += [(rev, *unit, name, value if digested else digest(value))
                     for name, value in parts if (name, value) not in other]
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
        parts = unit_parts(lexed, start, end, schema)
        found[f"{kind}\0{ident}\0{ordinal}"] = parts if value is _text else [(n, value(t)) for n, t in parts]
    return found


def unit_parts(lexed, start: int, end: int, schema: int) -> List[Tuple[str, str]]:
    """The ``(part, text)`` of the unit at lines ``start..end`` of ``lexed``: its heading's
    title, each field (every occurrence's value and body lines, outer blank lines removed,
    occurrences joined by ``"\\n\\0"``) in the order of first occurrence, then the Evidence
    items (one a line), when it has any: the fields as
    :func:`analyzer.project.extract.fields.parse_fields` reads them."""
    if lexed.plain or plain_unit(lexed, start + 1, end + 1):
        return _plain_parts(lexed.lines, start, end)
    parsed = parse_fields(lexed, _Span(start, end), schema)
    parts = [("title", lexed.lines[start].split("\u2014", 1)[-1].strip())]
    for name, occurrences in parsed.fields.items():
        parts.append((name, "\n\0".join("\n".join([occ.value, *occ.body]).strip("\n") for occ in occurrences)))
    if parsed.evidence:
        parts.append(("Evidence", "\n".join(i for i, _ in parsed.evidence)))
    return parts


def _plain_parts(lines: List[str], start: int, end: int) -> List[Tuple[str, str]]:
    """:func:`unit_parts` of a unit whose lines are all visible and none indented code, read
    as :func:`analyzer.project.extract.fields._parse_plain` reads its fields (a field's body
    is the lines up to the next field line; an Evidence body's ``- `` lines are its items)
    without building the field objects: a first readiness reading reads 20,000 such units,
    and those objects were half of their cost (tests/history/test_unit_parts.py holds the
    two to the same parts)."""
    stop = end + 1
    matches = list(map(field_line_re().fullmatch, lines[start + 1:stop]))
    at = list(compress(range(start + 1, stop), matches))
    fields: Dict[str, str] = {}
    evidence: List[str] = []
    if at:
        at.append(stop)
        i = at[0]
        for m, nxt in zip(filter(None, matches), islice(at, 1, None)):
            name, value = m.groups()
            value = value.strip() if value else ""
            if nxt != i + 1:  # body lines
                body = lines[i + 1:nxt]
                if name == "Evidence":
                    items = [line[2:].strip() for line in body if line.startswith("- ")]
                    if items:
                        evidence += items
                        body = [line for line in body if not line.startswith("- ")]
                value = "\n".join([value, *body]).strip("\n")
            fields[name] = fields[name] + "\n\0" + value if name in fields else value
            i = nxt
    parts = [("title", lines[start].split("\u2014", 1)[-1].strip()), *fields.items()]
    if evidence:
        parts.append(("Evidence", "\n".join(evidence)))
    return parts


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
