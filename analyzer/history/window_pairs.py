"""What the rules derived about each commit of a readiness window, kept between runs.

Readiness compares every commit of its window with its first parent (analyzer/history/window.py).
Each comparison is a pair of rules/diff/, and the rules never join two pairs: what they
derive for one commit depends on that commit alone (its tree, its first parent's, the
extractors, the rules and the code that gathers the facts). So the pairs' own results are
evaluated once, by the same program, and kept per commit id in the history cache
(analyzer/history/commit_cache.py): the relations of rules/diff/ that rules/history/ reads
(:data:`HANDED`: the classes and the units of each change) and every per-commit base fact
the readings read besides. The readings are then evaluated over those rows, given as the
first evaluation derived them (the engine's ``given``), and the facts taken fresh from
``git log`` (commits, trailers, reverts) and the request (as_of, agent patterns). A warm
reading extracts nothing and evaluates no comparison; a new commit costs its own pair.
Nothing is decided here: every class and reading is a rule's.

The key holds everything a pair's rows depend on besides the commit: the folder, the
extractor version (analyzer/core/cache.py), the engine's source and the shipped rules (the
rule-set fingerprint) and the source of the modules that gather the facts (:data:`CODE`).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Tuple

from analyzer.engine.database import sorted_tuples
from analyzer.engine.phases import phase_one_inputs

# derived per pair by rules/diff/ and read by rules/history/
HANDED = ("change", "unit_before", "unit_after", "blindspot")
# what `analyze readiness` reads from the readings' evaluation
READINGS = ("reading", "readiness", "r1_total", "r1_class", "r1_fails", "r2_rejected", "r2_uncertain", "restore",
            "r4_rate", "history_blindspot")
# base facts given fresh on every run (git log and the request), never kept per commit
FRESH = ("git_commit", "git_commit_trailer", "git_commit_reverts", "git_commit_touch", "git_commit_touch_file", "git_commit_touch_free",
         "git_pair", "git_pair_commit",
         "as_of", "agent_author_pattern", "memory_dir")
# the modules whose code decides which facts a pair gets (analyzer/ relative)
CODE = ("history/window_pairs.py", "history/window.py", "history/held_units.py", "history/held_twice.py",
        "history/revisions.py", "history/unit_parts.py", "history/unit_digests.py", "history/unit_hunks.py",
        "history/unit_cuts.py", "history/freeform.py", "history/unit_touch.py", "history/window_order.py", "project/loader.py",
        "history/git.py", "project/factbase.py", "history/compare.py", "engine/phases.py")  # under analyzer/
VERSION = "1"  # bump when the shape of a kept entry changes

Rows = Dict[str, List[tuple]]


def kept_relations(program) -> Tuple[str, ...]:
    """:data:`HANDED` and every base relation the readings read that is not given fresh (per
    pair: its first column is the pair's commit or one of its revisions)."""
    from analyzer.engine.stratify import needed_relations

    wanted = needed_relations(program.program, program.builtins, READINGS, stop=HANDED, maps=program.maps())
    derived = {rel for s in program.strata if s.rules for rel in s.relations}
    return HANDED + tuple(sorted(rel for rel in wanted if rel not in derived and rel not in FRESH))


@lru_cache(maxsize=None)
def _variant() -> str:
    from analyzer.project.facts_cache import extractor_version
    from analyzer.engine.keys import engine_digest
    from analyzer.core.fingerprint import ruleset_fingerprint

    h = hashlib.sha256(f"{VERSION}\0{extractor_version()}\0{ruleset_fingerprint()}\0".encode())
    h.update(engine_digest())
    here = Path(__file__).resolve().parents[1]  # analyzer/
    for name in CODE:
        h.update(name.encode() + b"\0" + (here / name).read_bytes() + b"\0")
    return h.hexdigest()


def window_rows(repo, memory_dir: str, tip: str, since: int, until: int, use_cache: bool, program):
    """The window's commits and each commit's kept rows: ``(commits, {sha: {relation:
    rows}})``; pairs no earlier run kept are compared and evaluated now (and kept)."""
    from analyzer.history.commit_cache import per_commit
    from analyzer.history.git import History
    from analyzer.history.window import compare_commits, window_commits

    history = History(repo, memory_dir)
    commits = window_commits(history, tip, since, until)
    kept = kept_relations(program)

    def compute(missing: List[str]) -> Dict[str, Rows]:
        wanted = set(missing)
        # only what the pairs' rules and the kept rows read is gathered
        reads = set(phase_one_inputs(program, HANDED)) | set(kept)
        window = compare_commits(repo, history, memory_dir, tip, commits, [c for c in commits if c.sha in wanted],
                                 use_cache, program, reads)
        db = window.facts.evaluate(program, only=HANDED)
        out: Dict[str, Rows] = {sha: {rel: [] for rel in kept} for sha in missing}
        for rel in kept:
            # grouped by commit first, then each commit's rows sorted: one sort of all
            # 100,000 rows of a first reading cost more than a thousand small ones
            for row in (db.tuples(rel) if rel in HANDED else window.facts.get(rel, ())):
                out[row[0][1:] if row[0][:1] == "~" else row[0]][rel].append(row)
        for rows in out.values():
            for rel, found in rows.items():
                rows[rel] = sorted_tuples(found)
        return out

    stored = per_commit("window-pairs", history.folder, [c.sha for c in commits], compute, _valid, {},
                        _variant(), use_cache)
    return commits, stored


def readings_facts(commits, stored: Dict[str, Rows]) -> Tuple[Dict[str, List[tuple]], Dict[str, set]]:
    """The facts (fresh commit facts, kept base rows) and the given relations (kept
    :data:`HANDED` rows) of the readings' evaluation."""
    from analyzer.history.compare import commit_facts

    facts = commit_facts(commits, {})
    facts["git_pair"] = [(c.sha, "~" + c.sha, c.sha) for c in commits]
    given: Dict[str, set] = {rel: set() for rel in HANDED}
    for commit in commits:
        for rel, rows in stored.get(commit.sha, {}).items():
            if rel in given:
                given[rel].update(rows)
            else:
                facts.setdefault(rel, []).extend(rows)
    return facts, given


def _valid(value) -> bool:
    return isinstance(value, dict) and all(
        isinstance(rel, str) and isinstance(rows, list) and all(isinstance(row, tuple) for row in rows)
        for rel, rows in value.items())
