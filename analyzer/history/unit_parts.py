"""The parts of a unit at a revision, digested, and what kept units from being read.

``git_unit_part`` splits a unit into its fields (every occurrence of a field together, the
Evidence items, the heading title) with a digest each, so that rules can tell which fields a
change touched (rules/diff/). The fields are read as the extractor's own field reader
(:func:`analyzer.project.extract.fields.parse_fields`) reads them, with the grammar's field line
pattern, on the revision's file, for the units asked for only; a comparison reads only the
fields that can differ (:func:`pair_part_rows`). ``git_parse_issue`` relabels a revision's parse problems (Markdown, malformed
headings, per-unit issues) with their lines; rules decide which of them hide a change.
Nothing is decided here.
"""

from __future__ import annotations

import bisect
import hashlib
import marshal
from itertools import compress, islice
from typing import Dict, List, Optional, Set, Tuple

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


def part_values(revision: Revision, wanted: Set[Tuple[str, str]], use_cache: bool = False
                ) -> Dict[Tuple[str, str], List[Tuple[str, str]]]:
    """``(kind, id)`` -> the ``(part, value)`` of every unit of ``wanted`` the revision holds
    (all its placements, in file order). The value is the part's text; with ``use_cache``
    its :func:`digest`, and the parts of every unit of a file are kept per file text (area
    ``parts`` of the verified store, keyed like the facts cache: text, path, entry grammar,
    extractor), so a later comparison of the same file reads no field again."""
    if not use_cache:
        return {unit: [part for place in places for part in unit_parts(*place)]
                for unit, places in placements(revision, wanted).items()}
    project = revision.project
    schema = _schema(revision)
    out: Dict[Tuple[str, str], List[Tuple[str, str]]] = {}
    for module, units in sorted(revision.placed().items()):
        asked = [u for u in units if (u[0], u[1]) in wanted]
        if not asked:
            continue
        found = _module_parts(project, module, units, schema, use_cache)
        for kind, ident, ordinal in asked:
            out.setdefault((kind, ident), []).extend(found.get(f"{kind}\0{ident}\0{ordinal}", ()))
    return out


Place = Tuple[object, int, int, int]  # (the lexed file, the unit's first and last line, entry schema)


def placements(revision: Revision, wanted: Set[Tuple[str, str]]) -> Dict[Tuple[str, str], List[Place]]:
    """``(kind, id)`` -> where each unit of ``wanted`` is in the revision's files, in file
    order: the arguments of :func:`unit_parts` (each file lexed once)."""
    project = revision.project
    schema = _schema(revision)
    out: Dict[Tuple[str, str], List[Place]] = {}
    for module, units in sorted(revision.placed().items()):
        ranges = project.unit_ranges.get(module, [])
        lexed = None
        for kind, ident, ordinal in units:
            if (kind, ident) not in wanted:
                continue
            places = out.setdefault((kind, ident), [])
            if not 1 <= ordinal <= len(ranges):
                continue
            if lexed is None:
                text = project.texts[module]
                lexed = plain_lines(text) or lex(text)
            places.append((lexed, *ranges[ordinal - 1], schema))
    return out


def _schema(revision: Revision) -> int:
    return max((v for (v,) in revision.relations().get("entry_schema", ())), default=2)


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


def pair_part_rows(before: str, after: str, old: Dict[Tuple[str, str], List[Place]],
                   new: Dict[Tuple[str, str], List[Place]]) -> List[tuple]:
    """:func:`differing_parts` of the units placed at ``old`` (revision ``before``) and ``new``
    (``after``, :func:`placements`). A unit held once on each side whose lines differ only
    in lines that are neither field lines nor Evidence items (a body or a value continued
    on the next line rewritten, the usual edit) keeps every field line where it was, so
    only the fields holding those lines can differ, and they do: their two texts are read
    and nothing else (:func:`_changed_fields`). Any other unit is read whole on both sides.
    tests/history/test_unit_parts.py holds the two readings to the same rows."""
    rows: List[tuple] = []
    whole: Tuple[dict, dict] = ({}, {})
    for unit in sorted(old.keys() | new.keys()):
        sides = old.get(unit, []), new.get(unit, [])
        changed = _changed_fields(sides[0][0], sides[1][0]) if len(sides[0]) == len(sides[1]) == 1 else None
        if changed is None:
            for side, places in zip(whole, sides):
                side[unit] = [part for place in places for part in unit_parts(*place)]
            continue
        for name, old_text, new_text in changed:
            rows += [(before, *unit, name, digest(old_text)), (after, *unit, name, digest(new_text))]
    return rows + differing_parts(before, after, *whole, digested=False)


def _changed_fields(old: Place, new: Place) -> Optional[List[Tuple[str, str, str]]]:
    """``(field, text before, text after)`` of each field whose text differs between two
    placements of a unit, when both are plain and have the same lines but for lines that
    are neither field lines nor Evidence items (``- ``) nor the heading; else None (read
    the unit whole). No such field is ``title`` or ``Evidence`` (parts of those names may
    be two per unit)."""
    (lexed, start, end, _), (other, o_start, o_end, _) = old, new
    if end - start != o_end - o_start or not (_plain(lexed, start, end) and _plain(other, o_start, o_end)):
        return None
    lines, o_lines = lexed.lines[start:end + 1], other.lines[o_start:o_end + 1]
    if lines[0] != o_lines[0]:
        return None
    differ = [j for j in range(1, len(lines)) if lines[j] != o_lines[j]]
    fullmatch = field_line_re().fullmatch
    for j in differ:
        if fullmatch(lines[j]) or fullmatch(o_lines[j]) or lines[j].startswith("- ") or o_lines[j].startswith("- "):
            return None
    if not differ:
        return []
    matches = [None, *map(fullmatch, islice(lines, 1, None))]  # the same field lines on both sides
    at = list(compress(range(len(lines)), matches))
    names = set()
    for j in differ:
        owner = bisect.bisect_left(at, j) - 1  # the field line above: none for a line before the fields
        if owner >= 0:
            names.add(matches[at[owner]].group(1))
    if names & {"title", "Evidence"}:
        return None
    at.append(len(lines))
    texts = [(name, _field_text(lines, matches, at, name), _field_text(o_lines, matches, at, name))
             for name in sorted(names)]
    # a changed line need not change its field's text (a blank line moved inside it): such a
    # field's part is the same on both sides, and only parts that differ are rows
    return [(name, before, after) for name, before, after in texts if before != after]


def _plain(lexed, start: int, end: int) -> bool:
    return lexed.plain or plain_unit(lexed, start + 1, end + 1)


def _field_text(lines: List[str], matches: list, at: List[int], name: str) -> str:
    """The part of field ``name`` (not Evidence) of a plain unit's ``lines``, as
    :func:`_plain_parts` makes it; ``at``: the field lines' indexes, then ``len(lines)``."""
    texts = []
    for i, nxt in zip(at, islice(at, 1, None)):
        found, value = matches[i].groups()
        if found == name:
            value = value.strip() if value else ""
            texts.append(value if nxt == i + 1 else "\n".join([value, *lines[i + 1:nxt]]).strip("\n"))
    return "\n\0".join(texts)


def _module_parts(project, module: str, units: List[Tuple[str, str, int]], schema: int,
                  use_cache: bool) -> Dict[str, List[Tuple[str, str]]]:
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
    found = _parse_parts(project, module, units, schema)
    if use_cache:
        PARTS.put(key, marshal.dumps(found))
    return found


def _parse_parts(project, module: str, units: List[Tuple[str, str, int]], schema: int):
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
        found[f"{kind}\0{ident}\0{ordinal}"] = [(n, digest(t)) for n, t in parts]
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
