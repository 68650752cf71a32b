"""Judge formal entries with rules/entries/entries.dl (spec §5.12), and hold the judgement
program the manifest's contract is judged with too (rules/manifest/, :func:`evaluate`,
analyzer/project/extract/manifest.py): one program to load for a cold extraction.

The extractors note what each formal entry holds (:func:`note`: its heading, and per field
its count, last value, emptiness, continuation and body text; its Evidence items' forms);
this module turns those notes into the neutral ``ent_*`` facts of facts/entry_fields.dl,
evaluates the per-entry rules over them and writes the verdicts as the file's
``entry_issue``/``entry_issue_rank``/``entry_identity_issue`` facts (``overlay_issue`` for a
local module) and its MC-CONFLICT-007 diagnostics. The notes are then dropped: the fact base
and the facts cache hold the verdicts, and a cached file is never judged again (the rules
are part of the cache key, analyzer/core/cache.py).

Two things keep this cheap on a large cold read (docs/performance.md):

- *Shapes.* The rules see an entry only through its facts, and quote its Entry ID only in
  messages: entries of one file with the same facts (but for their line and ID) get the same
  verdicts. Each distinct *shape* is judged once, under a placeholder ID that is replaced by
  the entry's own in the messages. A field's value is part of a shape only when the rules
  read it (``ent_valued`` of rules/entries/fields.dl says which fields: Status, Scope, Facet);
  the others are facts by their count and emptiness alone.
- *One evaluation for many files.* Within :func:`batched` (the loader's extraction of a
  project's files), the shared files' judgements wait and are evaluated together at the end:
  an evaluation has a fixed cost of about 1.5 ms, which per file was most of the work.
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache
from typing import Dict, Iterator, List, Optional, Tuple

from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.sink import Sink
from analyzer.engine.cache import load_engine
from analyzer.core.resources import data_file

#: the neutral relations the rules read (facts/entry_fields.dl)
INPUTS = ("ent_heading", "ent_count", "ent_value", "ent_empty", "ent_continued", "ent_body_filled", "ent_evidence",
          "ent_blank_item", "ent_quoted", "ent_scope_shape", "ent_local_module")

#: the verdicts the entries' judgement reads back (rules/entries/issues.dl)
OUTPUTS = ("ent_issue", "ent_identity_issue")

#: stands for the Entry ID as written while a shape is judged (no heading holds a NUL)
PLACEHOLDER = "\x00"

_BATCH: Optional[List[Sink]] = None  # the shared files waiting for one evaluation (inside batched())


@lru_cache(maxsize=None)
def entries_program():
    """The engine of rules/entries/entries.dl (compiled once per process, cached on disk)."""
    return load_engine(data_file("rules", "entries/entries.dl"))


@lru_cache(maxsize=None)
def entry_vocabulary(relation: str) -> Tuple[str, ...]:
    """The words (first column) of a vocabulary of rules/entries/fields.dl, in its order: by
    the second column when that is a number (``typed_body``), else as written. Read from the
    facts of the program the judging loads anyway (never evaluated), so that an extraction
    loads no other program to learn its field names (rules/vocab/vocab.dl holds the same
    facts for :mod:`analyzer.project.vocab`; loading it would cost a second program)."""
    rows = [values for values, _ in entries_program().facts.get(relation, ())]
    if rows and len(rows[0]) > 1 and isinstance(rows[0][1], int):
        rows.sort(key=lambda row: row[1])
    return tuple(row[0] for row in rows)


#: the relations the manifest's judgement reads back (rules/manifest/*.dl)
MANIFEST_OUTPUTS = ("man_issue", "man_protocol_version", "man_entry_schema", "man_exact_valid", "man_route", "man_module_decl",
                    "man_module_legacy", "man_module_description", "man_module_task", "man_module_glob")


def evaluate(facts: dict):
    """Evaluate the manifest's rules (rules/manifest/manifest.dl, in the judgement program)
    over its neutral facts (relation -> set of tuples, facts/manifest_fields.dl, built there
    as declared: not type-checked again, tests/extract/test_fact_types.py); only the strata
    the manifest's verdicts need are run."""
    return entries_program().evaluate(facts, only=MANIFEST_OUTPUTS, checked=list(facts))


@lru_cache(maxsize=None)
def valued_fields() -> frozenset:
    """The fields whose values the rules read (``ent_valued`` facts of rules/entries/fields.dl)."""
    return frozenset(entry_vocabulary("ent_valued"))


def note(sink: Sink, key: int, shown: str, code: str, fields: tuple, evidence: tuple) -> None:
    """Note one formal entry of ``sink``'s file for the rules: its heading line ``key``, its
    Entry ID as written and type ``code``; ``fields``: per field as written, ``(name, count,
    last value, has an empty occurrence, has a visible continuation, body text not blank)``;
    ``evidence``: per Evidence item, ``(form, blank)``. The last value is None for a field
    the rules do not read the value of (:func:`valued_fields`). Entries are noted by shape:
    the judgement then walks shapes, not entries (most of a file's entries share a few)."""
    found = sink.judging.get((code, fields, evidence))
    if found is None:
        sink.judging[(code, fields, evidence)] = [(key, shown)]
    else:
        found.append((key, shown))


def verdicts(facts: dict):
    """The issues rules/entries/entries.dl derives from ``facts`` (relation -> tuples): per
    entry key, its messages in the reference's order (repeats dropped), and its identity
    issues in order."""
    db = _evaluate(facts)
    issues: dict = {}
    for key, group, tie, sub, message in sorted(db.tuples("ent_issue")):
        issues.setdefault(key, {})[message] = None
    identity: dict = {}
    for key, _, message in sorted(db.tuples("ent_identity_issue")):
        identity.setdefault(key, []).append(message)
    return {key: list(found) for key, found in issues.items()}, identity


def _evaluate(facts: dict):
    # the facts are built here from the extractors' notes, as facts/entry_fields.dl declares
    # them (tests/extract/test_entry_judgement.py): not type-checked again
    # only the entries' strata: the program's manifest rules (rules/manifest/) have no facts here
    return entries_program().evaluate(facts, checked=[rel for rel in INPUTS if rel in facts], only=OUTPUTS)


def judge(sink: Sink, module: str, prefix: str, first_unit_rank: int) -> None:
    """Judge the entries noted in ``sink`` (now, or with the batch of :func:`batched`).

    ``prefix`` "overlay_" marks a local module (always judged at once: its module name may
    be a shared file's too); ``first_unit_rank``: how many of the file's ``entry_issue`` rows
    precede its units (its Markdown errors), which keep their ranks."""
    if not sink.judging:
        return
    sink.pending = (module, prefix, first_unit_rank)
    if _BATCH is not None and not prefix:
        _BATCH.append(sink)
    else:
        judge_all([sink])


@contextmanager
def batched() -> Iterator[None]:
    """Within this block shared files' judgements wait; they are evaluated together when it
    ends without an error (their sinks are complete only then)."""
    global _BATCH
    outer, _BATCH = _BATCH, []
    try:
        yield
        waiting = _BATCH
    finally:
        _BATCH = outer
    judge_all(waiting)


#: (module, local prefix, shape) -> its verdicts ``(issue rows, identity rows)``, of the
#: shapes judged so far in this process (for the judgement program in ``_VERDICTS_OF``): a
#: process that extracts many projects (a fleet's worker, a history reading) meets the same
#: shapes in file after file, and an evaluation costs ~2 ms even for a few shapes. The
#: verdicts of a shape depend on its module, prefix and shape alone: that is what lets one
#: evaluation judge a shape once for every file of a batch (the rules join an entry's facts
#: with its module's, never with another entry's). Bounded: emptied when full.
_VERDICTS: Dict[tuple, tuple] = {}
_VERDICTS_OF: list = [None]
_VERDICTS_MAX = 20_000


def judge_all(sinks: List[Sink]) -> None:
    """Judge the noted entries of ``sinks`` (in one evaluation, of the shapes not judged
    before in this process) and write each file's verdicts."""
    if not sinks:
        return
    program = entries_program()
    if _VERDICTS_OF[0] is not program or len(_VERDICTS) > _VERDICTS_MAX:
        _VERDICTS.clear()
        _VERDICTS_OF[0] = program
    facts: Dict[str, set] = {rel: set() for rel in INPUTS}
    ids: dict = {}  # (module, local, shape) -> its key in the evaluation
    fresh = []  # (module, local, shape) and its key, of the shapes to evaluate
    issues: dict = {}  # key -> its issue rows (group, tie, sub, message)
    identity: dict = {}  # key -> its identity rows (sub, message)
    of_sink = []
    for sink in sinks:
        module, prefix, _ = sink.pending
        shapes = []  # (its key in the evaluation, the entries of that shape)
        for shape, noted in sink.judging.items():
            judged = (module, prefix, shape)
            sid = ids.get(judged)
            if sid is None:
                sid = ids[judged] = len(ids) + 1
                known = _VERDICTS.get(judged)
                if known is None:
                    if prefix:
                        facts["ent_local_module"].add((module,))
                    _shape_facts(facts, sid, module, shape)
                    fresh.append((judged, sid))
                else:
                    if known[0]:
                        issues[sid] = known[0]
                    if known[1]:
                        identity[sid] = known[1]
            shapes.append((sid, noted))
        of_sink.append(shapes)
    if fresh:
        db = _evaluate(facts)
        for sid, group, tie, sub, message in db.tuples("ent_issue"):
            issues.setdefault(sid, []).append((group, tie, sub, message))
        for sid, sub, message in db.tuples("ent_identity_issue"):
            identity.setdefault(sid, []).append((sub, message))
        for judged, sid in fresh:
            _VERDICTS[judged] = (issues.get(sid, ()), identity.get(sid, ()))
    for sink, shapes in zip(sinks, of_sink):
        _write(sink, shapes, issues, identity)


def _shape_facts(facts: Dict[str, set], sid: int, module: str, shape: tuple) -> None:
    """The ``ent_*`` facts of one shape, keyed ``sid``, its Entry ID the placeholder."""
    code, fields, evidence = shape
    facts["ent_heading"].add((sid, module, PLACEHOLDER, code))
    for name, count, value, empty, continued, filled in fields:
        facts["ent_count"].add((sid, name, count))
        if value is not None:
            facts["ent_value"].add((sid, name, value))
            facts["ent_quoted"].add((value, repr(value)))  # the reference quotes with Python's repr
            if name == "Scope" and scope_shape(value):
                facts["ent_scope_shape"].add((value,))
        if empty:
            facts["ent_empty"].add((sid, name))
        if continued:
            facts["ent_continued"].add((sid, name))
        if filled:
            facts["ent_body_filled"].add((sid, name))
    for k, (kind, blank) in enumerate(evidence, 1):
        facts["ent_evidence"].add((sid, k, kind))
        if blank:
            facts["ent_blank_item"].add((sid, k))


def _messages(found: list, shown: str) -> list:
    """A shape's messages for the entry ``shown``, in the reference's order (the message's
    text breaks ties, as it did with the entry's own ID), repeats dropped."""
    if len(found) > 1:
        found = sorted((*row[:-1], row[-1].replace(PLACEHOLDER, shown)) for row in found)
        return list(dict.fromkeys(row[-1] for row in found))
    return [found[0][-1].replace(PLACEHOLDER, shown)]


def _write(sink: Sink, shapes: list, issues: dict, identity: dict) -> None:
    """Write one file's verdicts into its sink (``shapes``: per shape its key in the
    evaluation and its noted entries) and drop its notes."""
    module, prefix, first = sink.pending
    sink.judging, sink.pending = {}, None
    # the entries of the shapes with a verdict (most shapes have none)
    keys = [(key, shown, sid) for sid, noted in shapes if sid in issues or sid in identity for key, shown in noted]
    found = {key: _messages(issues[sid], shown) for key, shown, sid in keys if sid in issues}
    shown_of = {key: shown for key, shown, _ in keys}
    for key in sorted(found):
        for message in found[key]:
            if prefix:
                sink.fact("overlay_issue", f"{module}: {message}", line=key)
            sink.diag("MC-CONFLICT-007", message, line=key)
    if not prefix:
        _rank(sink, module, found, shown_of, first)
        for key, shown, sid in sorted(keys):
            for _, message in sorted((sub, message.replace(PLACEHOLDER, shown)) for sub, message in identity.get(sid, ())):
                sink.fact("entry_identity_issue", module, shown.casefold(), message, line=key)


def _rank(sink: Sink, module: str, issues: dict, shown: dict, first: int) -> None:
    """Write the entry issues among the file's unit issues in the order the reference finds
    them (its Markdown errors first, then unit by unit), ranked by that order (§9.8.4)."""
    if not issues:
        return
    values, lines, cols = sink.rel("entry_issue")
    rows: List[tuple] = list(zip(values, lines, cols))
    later = rows[first:] + [((module, shown[key].casefold(), message), key, 1)
                            for key in sorted(issues) for message in issues[key]]
    later.sort(key=lambda row: row[1])  # stable: one unit's issues keep their order
    rows = rows[:first] + later
    sink.columns["entry_issue"] = ([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    sink.columns["entry_issue_rank"] = ([(module, r[0][2], rank) for rank, r in enumerate(rows)],
                                        [r[1] for r in rows], [r[2] for r in rows])


_SCOPES_OK: set = set()  # Scope values the grammar's SCOPE pattern accepted (a pure function)


def scope_shape(scope: str) -> bool:
    """Whether ``scope`` has the shape of the Scope grammar (§5.7): a neutral fact for the rules."""
    if scope in _SCOPES_OK:
        return True
    if terminal("entries", "SCOPE").fullmatch(scope):
        _SCOPES_OK.add(scope)
        return True
    return False
