"""Per-entry facts (spec §5): what a formal entry holds, as facts.

The per-entry rejection rules of §5.12 (items 2-11) are rules/entries/*.dl: this module
writes the neutral facts they read (facts/entry_fields.dl) and analyzer/project/extract/judge.py
runs them over each file.
"""

from __future__ import annotations

from functools import lru_cache
from sys import intern
from typing import List, Tuple

from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.paths import split_source
from analyzer.project.extract.fields import ParsedEntry, body_fields
from analyzer.project.extract.judge import entry_vocabulary, note, valued_fields


def typed_bodies() -> Tuple[str, ...]:
    """The typed body fields in the schema's order (§5.3; rules/entries/fields.dl ``typed_body``)."""
    return entry_vocabulary("typed_body")


@lru_cache(maxsize=None)
def _written() -> tuple:
    """The field names the facts of :func:`_emit_fields` are written for, from
    rules/entries/fields.dl: ``(typed bodies, their set, relation fields, their set,
    candidate scalars, their set)``, each list in the schema's order."""
    typed, relations, candidate = typed_bodies(), entry_vocabulary("relation_field"), entry_vocabulary("candidate_scalar")
    return typed, frozenset(typed), relations, frozenset(relations), candidate, frozenset(candidate)


@lru_cache(maxsize=4096)
def classify_evidence(item: str):
    """(kind, path, rev) of an Evidence item (§5.8); kind "invalid" when it matches no form.

    A pure function of the text, memoized: the same few items (``user-confirmed``, a
    commonly cited file) recur on thousands of entries and subjects."""
    plain = terminal("entries", "EVIDENCE_PLAIN").fullmatch(item)
    if plain:
        return plain.group("plain"), "", ""
    if terminal("entries", "EVIDENCE_TRACKER").fullmatch(item):
        return item.split(":", 1)[0], "", ""
    source = terminal("entries", "EVIDENCE_SOURCE").fullmatch(item)
    if source:
        parsed = split_source(source.group("value"))
        if parsed:
            return source.group("kind"), parsed[0], parsed[1]
    return "invalid", "", ""


def _singles(fields) -> dict:
    """Each field's single value (fields that occur more than once are left out, as
    :meth:`ParsedEntry.one` reads them as "")."""
    return {name: occs[0].value for name, occs in fields.items() if len(occs) == 1}


def _neutral(sink, key: int, shown: str, code: str, entry: ParsedEntry, kinds: List[str]) -> None:
    """Note what the entry holds for the per-entry rules (analyzer/project/extract/judge.py
    makes the neutral facts of facts/entry_fields.dl of it), never whether that is valid."""
    valued = valued_fields()  # a value the rules do not read is left out: more entries share a shape
    bodies = body_fields()
    fields = []
    for name, occs in entry.fields.items():
        if len(occs) == 1:  # nearly every field: no lists to build
            occ = occs[0]
            value = occ.value
            filled = name in bodies and bool(value.strip() or any([line.strip() for line in occ.body]))
            fields.append((name, 1, value if name in valued else None, not value, occ.visible_body, filled))
        else:
            fields.append((name, len(occs), occs[-1].value if name in valued else None,
                           not all([occ.value for occ in occs]), True in [occ.visible_body for occ in occs],
                           name in bodies and bool(entry.body_text(name).strip())))
    evidence = tuple([(kind, not item) for (item, _), kind in zip(entry.evidence, kinds)])
    note(sink, key, shown, code, tuple(fields), evidence)


def emit_entry(sink, module: str, ordinal: int, heading, entry: ParsedEntry, line: int, prefix: str = "") -> None:
    """Emit the facts of one formal entry (prefix "overlay_" for local modules), and the
    neutral facts its issues are judged by (analyzer/project/extract/judge.py)."""
    e, code, title = heading.group("id", "code", "title")
    eid = e.casefold()
    code = code.upper()
    one = _singles(entry.fields)
    status, scope = one.get("Status", ""), one.get("Scope", "")
    add = sink.row  # positional: no keyword or *values packing per fact
    add(prefix + "entry", (eid, module, intern(code), intern(status), intern(scope)), line, 1)
    for fence in entry.fences:
        add(prefix + "body_fence", (module, fence + 1), fence + 1, 1)
    kinds = [classify_evidence(item)[0] for item, _ in entry.evidence]
    if not prefix:
        add("entry_unit", (eid, module, ordinal), line, 1)
        add("entry_title", (eid, title), line, 1)
        add("entry_display", (eid, e), line, 1)
        _emit_fields(add, eid, entry)
    _neutral(sink, line, e, code, entry, kinds)


def add_issue(sink, module: str, eid: str, message: str, line: int) -> None:
    """An ``entry_issue`` fact and its ``entry_issue_rank``: the position among the file's
    issues in the order they were found (plain `check` prints them in that order, §9.8.4)."""
    rank = len(sink.rel("entry_issue")[0])
    sink.fact("entry_issue", module, eid, message, line=line)
    sink.fact("entry_issue_rank", module, message, rank, line=line)


def _emit_fields(add, eid: str, entry: ParsedEntry) -> None:
    fields = entry.fields
    typed, typed_set, relations, relations_set, candidate, candidate_set = _written()
    if relations_set.intersection(fields):
        for name in relations:
            for occ in fields.get(name, ()):
                if occ.value:
                    add("entry_relation", (eid, name, occ.value.casefold()), occ.line + 1, 1)
            last = fields[name][-1] if name in fields else None
            if last is not None and last.value:  # the value map's (last) value, as written
                add("entry_field", (eid, name, last.value), last.line + 1, 1)
    for name in ("Status", "Scope"):  # repeated: `entry` holds "", the value map the last one
        occs = fields.get(name, ())
        if len(occs) > 1:
            add("entry_field", (eid, name, occs[-1].value), occs[-1].line + 1, 1)
    if candidate_set.intersection(fields):
        for name in candidate:
            for occ in fields.get(name, ()):
                add("entry_field", (eid, name, occ.value), occ.line + 1, 1)
    for occ in fields.get("Subject", ()):
        if occ.value:
            add("entry_subject", (eid, intern(occ.value.casefold())), occ.line + 1, 1)
            add("entry_field", (eid, "Subject", occ.value), occ.line + 1, 1)
    for occ in fields.get("Facet", ()):
        if occ.value:
            add("entry_facet", (eid, intern(occ.value)), occ.line + 1, 1)
    present = [name for name in fields if name in typed_set]
    if len(present) > 1:
        present.sort(key=typed.index)
    for name in present:
        if entry.body_text(name).strip():
            add("entry_body", (eid, intern(name)), fields[name][0].line + 1, 1)
    for k, (item, line) in enumerate(entry.evidence, 1):
        add("entry_evidence", (eid, item, k), line + 1, 3)
        kind, path, rev = classify_evidence(item)
        add("evidence_source", (eid, k, kind, path, rev), line + 1, 3)
