"""Facts for comparing revisions (rules/diff/): units, files, parts, parse issues, commits.

Shared by ``analyze diff`` (one comparison) and readiness (one per commit). In two phases,
as the merge review: every revision's units and file digests go in first, and the rules say
which units each comparison touched (``touched``); only those units' fields, parts and
displayed IDs are then read. Nothing is decided here.
"""

from __future__ import annotations

from collections import Counter
from operator import itemgetter
from typing import Collection, Dict, Iterable, List, Optional, Sequence, Tuple

from analyzer.history.git import Commit, History
from analyzer.core.lifetime import gc_paused
from analyzer.engine.phases import input_counts, phase_one_given
from analyzer.project.loader import file_kind
from analyzer.history.revisions import Revision, attribute_facts, file_digests, unit_facts
from analyzer.history.unit_parts import (differing_parts, issue_facts, pair_part_rows, part_facts, part_values,
                                         placements)

Facts = Dict[str, List[tuple]]
# touched units get their fields and displayed IDs; modified ones (in both revisions, with
# another text) also their parts, which only a modified unit's class reads
PHASE_ONE = ["touched", "modified"]


class Comparison(dict):
    """The facts of a comparison (relation -> rows), remembering its first phase: the
    relations that phase derived are given to a final evaluation by the same program
    (:meth:`evaluate`) as long as the facts they depend on were not changed since."""

    def __init__(self, facts: Facts, program, first, inputs: Dict[str, int]) -> None:
        super().__init__(facts)
        self.program, self.first, self.inputs = program, first, inputs

    def evaluate(self, program, only=None):
        """``program.evaluate`` over these facts (plus whatever the caller added), of the
        relations ``only`` needs when given (else of every relation)."""
        given = (phase_one_given(program, self.first, self, self.inputs, PHASE_ONE)
                 if program is self.program else {})
        facts, checked = self, ()
        if given:  # the first phase's inputs, unchanged, were checked by it: its sets serve as they are
            facts = {**self, **{rel: self.first.tuples(rel) for rel in self.inputs}}
            checked = tuple(self.inputs)
        # millions of acyclic tuples: with the collector on, its passes over the growing heap
        # made a 1,000-commit window's evaluation grow faster than its facts
        with gc_paused():
            return program.evaluate(facts, given=given, only=only, checked=checked)


def comparison_facts(program, revisions: Sequence[Revision], pairs: Iterable[Tuple[str, str, str]],
                     memory_dir: str, narrow: bool = False, cache_parts: bool = False,
                     reads: Optional[Collection[str]] = None) -> Comparison:
    """Every base fact rules/diff/ needs to compare the ``(pair, before, after)`` revisions;
    with ``narrow``, of the units only those that differ or hold an ID the rules ask about
    (analyzer/history/diff_narrow.py); with ``cache_parts``, units' parts are kept per file
    (analyzer/history/unit_parts.py). ``reads``: the only relations anyone reads (of the
    program's rules, and of the facts): the git_* relations outside it are not gathered (a
    readiness window's rules never read the IDs as written, the files, the Subjects,
    facets or Evidence of its 2,002 revisions)."""
    with gc_paused():  # many acyclic rows and tuples (see Comparison.evaluate)
        return _comparison_facts(program, revisions, list(pairs), memory_dir, narrow, cache_parts, reads)


def _comparison_facts(program, revisions: Sequence[Revision], pairs: List[Tuple[str, str, str]],
                      memory_dir: str, narrow: bool, cache_parts: bool,
                      reads: Optional[Collection[str]]) -> Comparison:
    from analyzer.history.diff_narrow import narrow_units

    facts: Facts = {"memory_dir": [(memory_dir,)], "git_pair": pairs}
    display: List[tuple] = []
    by_rev = {revision.rev: revision for revision in revisions}
    shown = reads is None or "git_unit_display" in reads
    files = reads is None or "git_file" in reads or "git_revision" in reads
    units = {revision.rev: unit_facts(revision, display=shown, files=files) for revision in revisions}
    digests = {revision.rev: file_digests(revision) for revision in revisions}
    changed = changed_files(pairs, digests)
    facts["git_unit_reordered"] = reordered_rows(pairs, by_rev, units, changed)
    if narrow:
        units = narrow_units(units, pairs, by_rev, facts["git_unit_reordered"])
    display += freeform_rows(pairs, by_rev, units, changed)
    for revision in revisions:
        for name, rows in units[revision.rev].items():
            (display if name == "git_unit_display" else facts.setdefault(name, [])).extend(rows)
        facts.setdefault("git_file_digest", []).extend(digests[revision.rev])
        facts.setdefault("git_parse_issue", []).extend(issue_facts(revision))
    facts["git_unit_repeated"] = repeated_ids(facts.get("git_unit", ()))
    inputs = input_counts(program, PHASE_ONE, facts)
    # the first phase is given only what it reads (not the files' digests, say)
    first = program.evaluate({rel: facts.get(rel, ()) for rel in inputs}, only=PHASE_ONE)
    pair_sides = {pair: (before, after) for pair, before, after in facts["git_pair"]}
    wanted: Dict[str, Dict[str, set]] = {}  # revision -> kind -> the IDs touched in its comparison
    for pair, kind, ident in first.tuples("touched"):
        for rev in pair_sides[pair]:
            per_kind = wanted.get(rev)
            if per_kind is None:
                per_kind = wanted[rev] = {}
            ids = per_kind.get(kind)
            if ids is None:
                ids = per_kind[kind] = set()
            ids.add(ident)
    for rev, per_kind in sorted(wanted.items()):
        for name, rows in attribute_facts(by_rev[rev], per_kind, reads).items():
            facts.setdefault(name, []).extend(rows)
    facts["git_unit_part"] = _part_rows(first.tuples("modified"), pairs, by_rev, cache_parts)
    if shown:
        facts["git_unit_display"] = [row for row in display if row[2] in wanted.get(row[0], {}).get(row[1], ())]
    return Comparison(facts, program, first, inputs)


def repeated_ids(units: Iterable[tuple]) -> List[tuple]:
    """``git_unit_repeated`` rows: the ``(rev, kind, id)`` that more than one of the
    ``git_unit`` rows ``units`` name (a count; rules/diff/blindspot.dl reads what the rows say)."""
    counts = Counter(map(itemgetter(0, 1, 2), units))  # counted in C: a first reading has 40,000 rows
    return sorted(key for key, count in counts.items() if count > 1)


def changed_files(pairs: List[Tuple[str, str, str]], digests: Dict[str, List[tuple]]) -> Dict[str, set]:
    """pair -> the modules whose text differs between its two revisions (or that one of
    them lacks), from their ``git_file_digest`` rows ``digests`` (revision -> rows)."""
    out: Dict[str, set] = {}
    for pair, before, after in pairs:
        changed = {row[1:] for row in digests[before]}.symmetric_difference(row[1:] for row in digests[after])
        out[pair] = {module for module, _digest in changed}
    return out


def reordered_rows(pairs: List[Tuple[str, str, str]], by_rev: Dict[str, Revision],
                   units: Dict[str, Facts], changed: Dict[str, set]) -> List[tuple]:
    """``git_unit_reordered`` rows: per comparison, the units of each file whose text
    differs between its two revisions (``changed``, :func:`changed_files`) that are off the
    common subsequence of the file's unit order (analyzer/history/unit_order.py): as the later
    revision gives them when it holds only some units of a file (``Revision.reordered``,
    analyzer/history/narrow_files.py), else from the ``git_unit`` rows (``units``: revision ->
    :func:`analyzer.history.revisions.unit_facts`); a file with the same text in both holds its
    units in the same order."""
    from analyzer.history.unit_order import orders_of, reordered

    rows: List[tuple] = []
    for pair, before, after in pairs:
        modules = changed[pair]
        if not modules:
            continue
        known = by_rev[after].reordered
        moved = known[before] if known is not None else \
            reordered(*(orders_of(units[rev]["git_unit"], modules) for rev in (before, after)))
        rows += [(pair, kind, ident, module) for kind, ident, module in sorted(moved) if module in modules]
    return rows


def freeform_rows(pairs: List[Tuple[str, str, str]], by_rev: Dict[str, Revision], units: Dict[str, Facts],
                  changed: Dict[str, set]) -> List[tuple]:
    """Add to ``units`` (revision -> facts) the ``git_unit`` rows of the free-form units that
    differ between each pair's revisions, in the entry files whose text differs
    (``changed``, :func:`changed_files`; the files the unit model of §3.1 cuts: not the
    manifest, subjects.md, reconciliations.md or a README); their ``git_unit_display`` rows
    (analyzer/history/freeform.py)."""
    from analyzer.history.freeform import pair_rows

    display: List[tuple] = []
    for pair, before, after in pairs:
        modules = sorted(module for module in changed[pair] if file_kind(module) == "entries")
        if not modules:
            continue
        texts = {m: (by_rev[before].whole_text(m), by_rev[after].whole_text(m)) for m in modules}
        rows, shown = pair_rows(before, after, texts)
        if not rows:  # most snippets hold no free-form unit
            continue
        for rev in (before, after):
            units[rev] = {**units[rev], "git_unit": units[rev]["git_unit"] + [r for r in rows if r[0] == rev]}
        display += shown
    return display


def _part_rows(modified: Iterable[tuple], pairs: List[Tuple[str, str, str]], by_rev: Dict[str, Revision],
               use_cache: bool) -> List[tuple]:
    """The ``git_unit_part`` rows of the ``(pair, kind, id)`` units ``modified`` (in both
    revisions of their comparison, with another text: only their class reads parts). Of a
    comparison whose revisions are in no other, only the parts that differ
    (:func:`analyzer.history.unit_parts.pair_part_rows`); a revision in more than one
    comparison (none today) keeps every part of the units modified in any of them."""
    per_pair: Dict[str, set] = {}
    for pair, kind, ident in modified:
        per_pair.setdefault(pair, set()).add((kind, ident))
    uses: Dict[str, int] = {}
    for _pair, before, after in pairs:
        for rev in (before, after):
            uses[rev] = uses.get(rev, 0) + 1
    rows: List[tuple] = []
    shared: Dict[str, set] = {}  # revision in several comparisons -> the units to give whole
    for pair, before, after in pairs:
        units = per_pair.get(pair)
        if not units:
            continue
        if uses[before] != 1 or uses[after] != 1:
            for rev in (before, after):
                shared.setdefault(rev, set()).update(units)
        elif use_cache:  # the parts come digested, per file, from the cache
            old, new = (part_values(by_rev[rev], units, use_cache) for rev in (before, after))
            rows += differing_parts(before, after, old, new, digested=True)
        else:
            rows += pair_part_rows(before, after, placements(by_rev[before], units), placements(by_rev[after], units))
    for rev, units in sorted(shared.items()):
        rows += part_facts(by_rev[rev], units, use_cache)
    return rows


def commit_facts(commits: Iterable[Commit], touched: Dict[str, set]) -> Facts:
    """git_commit, git_commit_trailer, git_commit_reverts, git_commit_touch and
    git_commit_touch_file rows."""
    import re

    # a full commit id: 40 hex digits (SHA-1) or 64 (SHA-256), never the first 40 of 64
    reverts = re.compile(r"This reverts commit ([0-9a-f]{64}|[0-9a-f]{40})(?![0-9a-f])")
    facts: Facts = {"git_commit": [], "git_commit_trailer": [], "git_commit_reverts": [], "git_commit_touch": []}
    for commit in commits:
        facts["git_commit"].append((commit.sha, commit.time, commit.author, commit.subject))
        facts["git_commit_trailer"] += [(commit.sha, key.casefold(), value) for key, value in commit.trailers]
        facts["git_commit_reverts"] += [(commit.sha, sha) for sha in reverts.findall(commit.body)]
    facts["git_commit_touch_file"] = []
    for sha, ids in touched.items():
        for ident in sorted(ids):  # IDs, and the files whose free-form units changed (analyzer/history/unit_touch.py)
            if ident.startswith("#"):
                facts["git_commit_touch_file"].append((sha, ident[1:]))
            else:
                facts["git_commit_touch"].append((sha, ident))
    return facts


def range_commits(history: History, base: str, head: str, use_cache: bool = True,
                  worktree=None) -> Tuple[List[Commit], Dict[str, set]]:
    """The commits of ``base..head`` below the memory dir and the IDs each changed by their
    text (analyzer/history/unit_touch.py; kept per commit between runs: analyzer/history/commit_cache.py);
    ``head`` "" is the work tree:
    ``base..HEAD`` plus the uncommitted changes (as "worktree"; ``worktree``: module ->
    bytes of the work tree's managed files, :func:`analyzer.history.unit_touch.worktree_touches`)."""
    from analyzer.history.commit_cache import commit_touches
    from analyzer.history.unit_touch import worktree_touches

    tip = head or "HEAD"
    commits = history.log([f"{base}..{tip}"])
    # a merge commit's own diff is not shown (as in `git log -p`): its parents' commits are
    # the ones that changed the units
    touched = commit_touches(history, [c.sha for c in commits if len(c.parents) < 2], use_cache) if commits else {}
    if not head:
        touched.update(worktree_touches(history, worktree))
    return commits, touched
