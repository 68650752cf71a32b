"""``analyze readiness --as-of TIME``: the readings R1-R4 (seed autonomy-levels §七).

Python gathers the memory commits of the 30 days before the reading time (analyzer/
history.py: each compared with its first parent) and the request facts (as_of, agent author
patterns); rules/history/ derive every reading. The time is --as-of, else the tip commit's
committer time: never the wall clock. Unreadable history is exit 2, never a reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Dict, List, Optional, Sequence

from analyzer.contract.results import Failure
from analyzer.core import lifetime
from analyzer.history.git import FileError, GitError, Repo
from analyzer.query.failures import git_failure

READINGS = ("R1", "R2", "R3", "R4")


class TimeError(ValueError):
    """An --as-of value that is not a time."""


def parse_time(text: str) -> int:
    """Seconds since the epoch of ``@SECONDS`` or an ISO 8601 time (no offset = UTC)."""
    if re.fullmatch(r"@\d{1,12}", text):
        return int(text[1:])
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise TimeError(f"--as-of is not a time: {text!r} (use ISO 8601 such as 2026-10-01T12:00:00Z, "
                        "or @SECONDS)") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return int(when.timestamp())


@dataclass
class Reading:
    """One reading: its state (pass, fail, null) and the figures behind it."""

    name: str
    state: str
    details: List[str] = field(default_factory=list)


@dataclass
class ReadinessResult:
    """The outcome of ``analyze readiness``."""

    tip: str
    as_of: int = 0
    commit: str = ""
    status: str = ""  # READY or NOT_READY; "" when history could not be read
    exit_code: int = 2
    failure: Optional[Failure] = None  # why it could not run (MA-FILE-* at a file that cannot be used, else MA-GIT)
    readings: List[Reading] = field(default_factory=list)
    commits: int = 0

    def missing(self) -> List[str]:
        """The readings that do not pass."""
        return [r.name for r in self.readings if r.state != "pass"]


def readiness_facts(repo: Repo, memory_dir: str, tip: str, as_of: int, patterns: Sequence[str],
                    use_cache: bool, program):
    """The facts of a reading at ``as_of`` over ``tip``'s history: (facts, window)."""
    from analyzer.history.window import DAY, WINDOW_DAYS, window_facts

    from analyzer.history.shallow import require_window

    require_window(repo, tip, as_of - WINDOW_DAYS * DAY)
    window = window_facts(repo, memory_dir, tip, as_of - WINDOW_DAYS * DAY, as_of, use_cache, program)
    facts = window.facts
    facts["as_of"] = [(as_of,)]
    facts["agent_author_pattern"] = [(p,) for p in patterns]
    return facts, window


def select_readings(db) -> List[Reading]:
    """The readings (in R1..R4 order) with their figures, from an evaluated database."""
    state = dict(db.relation("reading"))
    details: Dict[str, List[str]] = {r: [] for r in READINGS}
    total = next(iter(db.relation("r1_total")), (0,))[0]
    classes = dict(db.relation("r1_class"))
    listed = [c for c, _ in sorted(db.relation("change_class"), key=lambda row: row[1])]  # rules/vocab/autonomy.dl
    details["R1"].append(f"{total} agent changes in 30 days: " + ", ".join(f"{c} {classes.get(c, 0)}" for c in listed))
    details["R1"] += [why for (why,) in db.relation("r1_fails")] if total >= 10 else ["fewer than 10 changes"]
    rejected = dict(db.relation("r2_rejected"))
    uncertain = next(iter(db.relation("r2_uncertain")), (0,))[0]
    details["R2"].append(f"candidates rejected: {rejected.get(3, 0)} in 3 days, {rejected.get(30, 0)} in 30 days; "
                         f"uncertainties recorded in 30 days: {uncertain}")
    details["R3"] += [f"{how}: {sha[:12]}" for sha, how in db.relation("restore")] or ["no restore in 30 days"]
    for window, bad, samples in db.relation("r4_rate"):
        span = {1: "30-20", 2: "20-10", 3: "10-0"}[window]
        details["R4"].append(f"days {span}: {bad}/{samples} reverted or rejected"
                             + (" (fewer than 5 samples)" if samples < 5 else ""))
    return [Reading(r, state.get(r, "null"), details[r]) for r in READINGS]


def _blindspot_error(root, memory_dir: str, commits, spots, use_cache: bool) -> FileError:
    """The error of an unreadable window: its first blind spot, at the file's own line. A
    window commit's revisions hold only the units it changed, so their line numbers are the
    snippets'; the file's line comes from `analyze diff` of that one commit (only on this
    error path)."""
    from analyzer.query.diff import run_diff

    sha, module, line, message = spots[0]
    path, line = f"{memory_dir}/{module}", 1
    parents = next(c.parents for c in commits if c.sha == sha)
    if parents:
        seen = run_diff(root, memory_dir, parents[0], sha, use_cache)
        line = next((s.line for s in seen.blindspots if (s.path, s.message) == (path, message)),
                    next((s.line for s in seen.blindspots if s.path == path), 1))
    more = f" (and {len(spots) - 1} more)" if len(spots) > 1 else ""
    return FileError("MA-HISTORY-BLINDSPOT", path, f"{message}; no reading is taken over history it cannot see{more}",
                     line, 1, f"commit {sha[:12]}")


def run_readiness(root, memory_dir: str, tip: str = "HEAD", as_of: Optional[str] = None,
                  patterns: Sequence[str] = (), use_cache: bool = True) -> ReadinessResult:
    """Take the readings at ``as_of`` (default: ``tip``'s commit time) over ``tip``'s history."""

    # one pause, frozen at its end, as in run_diff: the end of each inner pause let the next
    # collection scan every object made so far (a first run builds a million of them)
    with lifetime.gc_paused(freeze=True):
        return _run_readiness(root, memory_dir, tip, as_of, patterns, use_cache)


def _run_readiness(root, memory_dir: str, tip: str, as_of: Optional[str], patterns: Sequence[str],
                   use_cache: bool) -> ReadinessResult:
    from analyzer.history.window import DAY, WINDOW_DAYS, tip_time
    from analyzer.query.program import readiness_program
    from analyzer.history.window_pairs import READINGS, readings_facts, window_rows

    result = ReadinessResult(tip)
    program = readiness_program(use_cache)
    try:
        repo = Repo(str(root))
        result.commit = repo.commit(tip)
        from analyzer.history.window import require_memory_dir

        require_memory_dir(repo, memory_dir, result.commit, tip)
        result.as_of = parse_time(as_of) if as_of is not None else tip_time(repo, result.commit)
        from analyzer.history.shallow import require_window

        require_window(repo, result.commit, result.as_of - WINDOW_DAYS * DAY)  # a shallow clone's cut window
        # each commit's comparison evaluated once and kept (analyzer/history/window_pairs.py)
        commits, stored = window_rows(repo, memory_dir, result.commit, result.as_of - WINDOW_DAYS * DAY,
                                      result.as_of, use_cache, program)
    except (GitError, TimeError) as exc:
        result.failure = git_failure(exc)
        return result
    facts, given = readings_facts(commits, stored)
    facts["as_of"] = [(result.as_of,)]
    facts["agent_author_pattern"] = [(p,) for p in patterns]
    db = program.evaluate(facts, only=READINGS, given=given)
    lifetime.keep(db, facts, given, stored)  # the console script frees them by exiting (analyzer/core/lifetime.py)
    result.commits = len(commits)
    [(status, exit_code)] = db.relation("readiness")
    rank = {c.sha: n for n, c in enumerate(commits)}
    spots = sorted(db.relation("history_blindspot"), key=lambda s: (rank[s[0]], s[1:]))
    if spots:  # UNREADABLE: the first blind spot, oldest commit first, as the error
        result.failure = git_failure(_blindspot_error(root, memory_dir, commits, spots, use_cache))
        result.failure.exit_code = result.exit_code = exit_code
        return result
    result.readings = select_readings(db)
    result.status, result.exit_code = status, exit_code
    return result
