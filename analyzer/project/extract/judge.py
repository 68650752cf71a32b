"""Judge one file's formal entries with rules/entries/entries.dl (spec §5.12).

The extractors write neutral facts about each formal entry (the ``ent_*`` relations of
facts/entry_fields.dl: its heading, field occurrences, Evidence items and their forms); this
module evaluates the per-entry rules over them once per file and writes the verdicts as the
file's ``entry_issue``/``entry_issue_rank``/``entry_identity_issue`` facts (``overlay_issue``
for a local module) and its MC-CONFLICT-007 diagnostics. The neutral facts are then dropped:
the fact base and the facts cache hold the verdicts, as before, and a cached file is never
judged again (the rules are part of the cache key, analyzer/core/cache.py).
"""

from __future__ import annotations

from functools import lru_cache
from typing import List

from analyzer.project.extract.sink import Sink
from analyzer.engine.cache import load_engine
from analyzer.core.resources import data_file

#: the neutral relations the extractors write for the rules (facts/entry_fields.dl)
INPUTS = ("ent_heading", "ent_count", "ent_value", "ent_empty", "ent_continued", "ent_body_filled", "ent_evidence",
          "ent_quoted", "ent_scope_shape")


@lru_cache(maxsize=None)
def entries_program():
    """The engine of rules/entries/entries.dl (compiled once per process, cached on disk)."""

    return load_engine(data_file("rules", "entries/entries.dl"))


def verdicts(facts: dict):
    """The issues rules/entries/entries.dl derives from ``facts`` (relation -> tuples): per
    entry key, its messages in the reference's order (repeats dropped), and its identity
    issues in order."""
    # the facts are the extractors' own, written as facts/entry_fields.dl declares them
    # (tests/extract/test_entry_judgement.py): not type-checked again
    db = entries_program().evaluate(facts, checked=[rel for rel in INPUTS if rel in facts])
    issues: dict = {}
    for key, group, tie, sub, message in sorted(db.tuples("ent_issue")):
        issues.setdefault(key, {})[message] = None
    identity: dict = {}
    for key, _, message in sorted(db.tuples("ent_identity_issue")):
        identity.setdefault(key, []).append(message)
    return {key: list(found) for key, found in issues.items()}, identity


def judge(sink: Sink, module: str, prefix: str, first_unit_rank: int) -> None:
    """Replace the neutral facts of ``sink`` by the verdicts of the per-entry rules.

    ``prefix`` "overlay_" marks a local module; ``first_unit_rank``: how many of the file's
    ``entry_issue`` rows precede its units (its Markdown errors), which keep their ranks."""
    columns = {rel: sink.columns.pop(rel) for rel in INPUTS if rel in sink.columns}
    if "ent_heading" not in columns:
        return
    facts = {rel: set(values) for rel, (values, _, _) in columns.items()}
    facts["ent_quoted"] = facts.get("ent_quoted", set())
    if prefix:
        facts["ent_local_module"] = {(module,)}
    issues, identity = verdicts(facts)
    shown = {key: e for key, _, e, _ in facts["ent_heading"]}
    for key in sorted(issues):
        for message in issues[key]:
            if prefix:
                sink.fact("overlay_issue", f"{module}: {message}", line=key)
            sink.diag("MC-CONFLICT-007", message, line=key)
    if not prefix:
        _rank(sink, module, issues, shown, first_unit_rank)
        for key in sorted(identity):
            for message in identity[key]:
                sink.fact("entry_identity_issue", module, shown[key].casefold(), message, line=key)


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
