"""``analyze diff --base REV [--head REV]``: the memory changes between two revisions.

Python gathers (analyzer/history/git.py, analyzer/history/revisions.py, analyzer/history/compare.py): the two
revisions' units, the fields of the units that differ, parse problems, and the commits of
the range with the units each touched. rules/diff/ classify every changed unit (A-E) and
find blind spots; this module copies their answer into :class:`DiffResult`. Read-only: Git
is only queried, the work tree only read. Any Git failure is an error (exit 2), never an
empty diff.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from analyzer.core.lifetime import gc_paused
from analyzer.contract.results import Failure, Finding
from analyzer.core import lifetime
from analyzer.core.span import Span
from analyzer.history.git import FileError, GitError, History, Repo
from analyzer.history.unit_touch import freeform_touches, moved_touches
from analyzer.project import vocab
from analyzer.query.failures import git_failure

PAIR = "diff"


@dataclass(frozen=True)
class Place:
    """Where a unit is in one revision: path relative to the project root, heading line."""

    path: str
    line: int


@dataclass
class Change:
    """One changed unit: its class and sub-kind, both places, and the commits that touched it."""

    kind: str  # entry, subject or record
    ident: str  # as written
    cls: str
    subkind: str
    before: Optional[Place]
    after: Optional[Place]
    commits: List[str] = field(default_factory=list)
    # where CI annotations put a unit the head no longer holds (analyzer/history/head_places.py)
    anchor: Optional[Place] = None

    @property
    def annotated(self) -> Optional[Place]:
        """The place an annotation points at: in the head revision (the unit's, else its
        anchor), the base's place only when no anchor was set."""
        return self.after or self.anchor or self.before


@dataclass(frozen=True)
class Blindspot:
    """A place the comparison could not read."""

    revision: str  # label: the ref as given, or "worktree"
    commit: str  # "" for the work tree
    path: str
    line: int
    ident: str  # "" when no ID could be read
    message: str


@dataclass
class DiffResult:
    """The outcome of ``analyze diff``."""

    base_ref: str
    head_ref: str  # "" for the work tree
    base: str = ""
    head: str = ""
    status: str = ""  # CHANGES, UNCHANGED, BLINDSPOT; "" when the diff could not run
    exit_code: int = 2
    failure: Optional[Failure] = None  # why it could not run (MA-FILE-* at a file that cannot be used, else MA-GIT)
    changes: List[Change] = field(default_factory=list)
    blindspots: List[Blindspot] = field(default_factory=list)
    # what the CI formats show (rules/diff/findings.dl): one MA-DIFF-<class> note per change,
    # then one MA-DIFF-BLINDSPOT finding per blind spot, in the order of the two lists above
    findings: List[Finding] = field(default_factory=list)

    def counts(self) -> Dict[str, int]:
        """Changes per class, every class listed."""
        return {cls: sum(1 for c in self.changes if c.cls == cls) for cls in vocab.change_classes()}


def load_revisions(repo: Repo, root, memory_dir: str, specs, with_worktree: Optional[str], use_cache: bool):
    """The revisions ``specs`` ``[(rev, sha, label)]`` plus, when ``with_worktree`` names a
    revision, the work tree as that revision (fail closed: an unusable file is an error)."""
    from analyzer.project.loader import load_project
    from analyzer.history.revisions import read_revisions, worktree_revision

    with gc_paused():
        revisions = read_revisions(repo, specs, memory_dir, use_cache)
        if with_worktree:
            project = load_project(root, memory_dir, use_cache=use_cache)
            if project.facts.relation("memory_dir_missing"):
                raise GitError(f"worktree: memory dir is missing or unusable: {memory_dir}")
            for module, diag in sorted(project.unusable.items()):
                # reported as read and check report it: where, which MA-FILE-* code
                raise FileError(diag.code, diag.span.path, diag.message, diag.span.line, diag.span.col, "worktree")
            revisions.append(worktree_revision(with_worktree, project))
    return revisions


#: what :func:`select` reads; with the findings, rules/diff/findings.dl's relations too
SELECTED = ("diff_status", "change_at", "change_shown", "change_commit", "change", "blindspot", "memory_dir")
FINDINGS = ("change_finding", "change_finding_commit", "change_finding_at", "blindspot_finding")


def run_diff(root, memory_dir: str, base: str, head: Optional[str] = None, use_cache: bool = True,
             findings: bool = True) -> DiffResult:
    """Compare ``base`` with ``head`` (a revision, or the work tree when None); without
    ``findings`` (text and JSON show the changes themselves) the findings' relations are not
    evaluated and ``findings`` stays empty."""
    from analyzer.query.program import diff_program

    program = diff_program(use_cache)
    result = DiffResult(base, head or "")
    # one pause for the whole comparison, frozen at its end: each inner pause's end let the
    # collector's next pass scan every tuple made so far (0.5-0.9 s on the bench history);
    # nothing here builds cycles, and reference counting still frees what is dropped
    with gc_paused(freeze=True):
        try:
            facts, order, _revisions = diff_facts(root, memory_dir, result, program, use_cache, narrow=True)
        except GitError as exc:
            result.failure = git_failure(exc)
            return result
        db = facts.evaluate(program, only=SELECTED + (FINDINGS if findings else ()))
        lifetime.keep(db, facts, _revisions)  # the console script frees them by exiting (analyzer/core/lifetime.py)
        select(db, result, memory_dir, order)
    from analyzer.history.head_places import anchor_deleted

    try:
        anchor_deleted(root, result)
    except GitError as exc:
        result.failure, result.exit_code = git_failure(exc), 2
        return result
    if findings:
        result.findings = change_findings(db, result) + blindspot_findings(db, "diff")
    return result


def diff_facts(root, memory_dir: str, result: DiffResult, program, use_cache: bool, narrow: bool = False):
    """The facts comparing ``result.base_ref`` (the commit ``result.base`` when already set)
    with ``result.head_ref`` (the work tree when ""), as the pair "diff"; fills the commit
    ids of ``result``. Returns (facts, commit
    order, revisions); :class:`GitError` when Git cannot answer. With ``narrow`` only what
    differs is extracted and compared (analyzer/history/diff_narrow.py): the revisions then hold
    only part of the memory dir, so callers that read other units of them (the autonomy
    check's records and plan, restore's units) do not ask for it."""
    import os

    from analyzer.history.diff_narrow import changed_revisions
    from analyzer.history.compare import commit_facts, comparison_facts, range_commits

    repo = Repo(str(root))
    base, head = result.base_ref, result.head_ref
    result.base = result.base or repo.commit(base)  # the autonomy check sets the merge base
    result.head = repo.commit(head) if head else ""
    from analyzer.history.window import require_memory_dir

    require_memory_dir(repo, memory_dir, result.head, head)  # the work tree's is checked when it is read
    specs = [("base", result.base, base)] + ([("head", result.head, head)] if head else [])
    worktree = None
    if narrow and not head:  # the work tree's files named by blob id, when it is plain
        from analyzer.history.worktree_blobs import object_format, worktree_files

        worktree = worktree_files(os.path.abspath(str(root)), memory_dir, object_format(result.base))
    if narrow and (head or worktree is not None):
        with gc_paused():
            revisions = changed_revisions(repo, specs + ([] if head else [("head", "", "worktree")]), memory_dir,
                                          use_cache, worktree)
    else:
        revisions = load_revisions(repo, root, memory_dir, specs, None if head else "head", use_cache)
    current = None  # the work tree's files as read for the comparison, when it is plain
    if worktree is not None:
        current = {module: worktree[1][oid] for module, oid in worktree[0].items()}
    elif not head and not revisions[-1].project.unusable:
        current = {m: t.encode("utf-8", "surrogateescape") for m, t in revisions[-1].project.texts.items()}
    commits, touched = range_commits(History(repo, memory_dir), result.base, result.head, use_cache, current)
    facts = comparison_facts(program, revisions, [(PAIR, "base", "head")], memory_dir, narrow, use_cache)
    moved = {ident for _pair, _kind, ident, _module in facts["git_unit_reordered"]}
    if moved:  # a move leaves the text as it was: Git's hunks name the commits that moved it
        for sha, ids in moved_touches(History(repo, memory_dir), [c.sha for c in commits if len(c.parents) < 2],
                                      not head, moved).items():
            touched.setdefault(sha, set()).update(ids)
    for name, rows in commit_facts(commits, touched).items():
        facts.setdefault(name, []).extend(rows)
    free = {row[3] for row in facts.get("git_unit", ()) if row[1] == "legacy"}
    if free:  # which of the range's commits changed which free-form texts (analyzer/history/unit_touch.py)
        facts["git_commit_touch_free"] = freeform_touches(History(repo, memory_dir), touched, free,
                                                          None if head else revisions[-1].whole_text)
        if any(row[0] == "worktree" for row in facts["git_commit_touch_free"]):
            touched.setdefault("worktree", set())  # its free-form changes are its own
    order = {c.sha: n for n, c in enumerate(commits)}
    order["worktree"] = len(commits)
    facts["git_pair_commit"] = [(PAIR, sha, n + 1) for sha, n in order.items() if sha in touched or sha != "worktree"]
    return facts, order, revisions


def select(db, result: DiffResult, memory_dir: str, order: Dict[str, int]) -> None:
    """Copy the comparison's status, changes (with places and commits) and blind spots."""
    labels = {"base": (result.base_ref, result.base), "head": (result.head_ref or "worktree", result.head)}
    [(status, exit_code)] = [(s, e) for p, s, e in db.relation("diff_status") if p == PAIR]
    result.status, result.exit_code = status, exit_code
    places: Dict[tuple, Dict[str, Place]] = {}
    for pair, kind, ident, side, module, line in db.relation("change_at"):
        if pair != PAIR:  # other comparisons of the same evaluation (readiness's commits)
            continue
        places.setdefault((kind, ident), {})[side] = Place(f"{memory_dir}/{module}", line)
    shown = {(k, i): s for p, k, i, s in db.relation("change_shown") if p == PAIR}
    commits: Dict[tuple, List[str]] = {}
    for pair, kind, ident, sha in db.relation("change_commit"):
        if pair != PAIR:
            continue
        commits.setdefault((kind, ident), []).append(sha)
    rank = {cls: n for n, cls in enumerate(vocab.change_classes())}
    rows = sorted((r for r in db.relation("change") if r[0] == PAIR), key=lambda r: (rank[r[3]], r[1], r[2]))
    result.changes = [Change(kind, shown.get((kind, ident), ident.upper()), cls, sub,
                             places.get((kind, ident), {}).get("before"), places.get((kind, ident), {}).get("after"),
                             sorted(commits.get((kind, ident), []), key=order.get))
                      for _, kind, ident, cls, sub in rows]
    result.blindspots = [Blindspot(labels[rev][0], labels[rev][1], f"{memory_dir}/{module}", line, ident, message)
                         for _, rev, module, line, ident, message in sorted(
                             (r for r in db.relation("blindspot") if r[0] == PAIR), key=lambda r: (r[2], r[3], r[1], r[4], r[5]))]


def change_findings(db, result: DiffResult) -> List[Finding]:
    """The finding of each change of ``result`` (``change_finding``), in the changes' order:
    its code, level (a severity: a change is a note), message followed by its commits
    (``change_finding_commit``), the unit's ID, and where the CI formats show it
    (``change_finding_at``: a unit the head no longer holds at its anchor in the head,
    analyzer/history/head_places.py)."""
    memory_dir = next(iter(db.relation("memory_dir")))[0]
    rows = {(k, shown): (key, code, level, message) for p, k, key, code, level, message, shown
            in db.relation("change_finding") if p == PAIR}
    commits: Dict[tuple, List[tuple]] = {}
    for pair, kind, key, short, n in db.relation("change_finding_commit"):
        if pair == PAIR:
            commits.setdefault((kind, key), []).append((n, short))
    at = {(k, key): (side, module, line) for p, k, key, side, module, line in db.relation("change_finding_at")
          if p == PAIR}
    findings = []
    for change in result.changes:
        key, code, level, message = rows[(change.kind, change.ident)]
        listed = ", ".join(short for _, short in sorted(commits.get((change.kind, key), []))) or "-"
        side, module, line = at[(change.kind, key)]
        place = change.anchor if side == "before" and change.anchor else Place(f"{memory_dir}/{module}", line)
        findings.append(Finding(code, PAIR, f"{message} (commits: {listed})", severity=level, entries=[change.ident],
                                locations=[Span(place.path, place.line)]))
    return findings


def blindspot_findings(db, family: str) -> List[Finding]:
    """The finding of each blind spot (``blindspot_finding``; its level is a status, as a
    conflict's), in the order of :attr:`DiffResult.blindspots`, as ``family``'s."""
    rows = sorted((r for r in db.relation("blindspot_finding") if r[0] == PAIR),
                  key=lambda r: (r[2], r[3], r[1], r[4], r[5]))
    return [Finding(code, family, message, status=level, locations=[Span(path, line)])
            for _, _rev, _module, line, _ident, message, code, level, path in rows]
