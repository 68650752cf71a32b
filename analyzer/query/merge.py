"""The merge review of ``check --conflicts --merge-base REF`` (spec §9.5), read-only.

Python gathers: the commits (HEAD, the ref, their merge base) and the memory dir of each
through analyzer/history/git.py and analyzer/history/revisions.py, the paths each side changed, and each
side's integrity problems (rules/merge/revision.dl, evaluated once per side on that
revision's facts alone). Every finding and the status are derived by rules/merge/merge.dl;
this module only moves data between Git, the engine and :class:`MergeResult`.

Any Git failure leaves the review unavailable, which blocks (exit 1) and is never CLEAR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from analyzer.core.lifetime import gc_paused
from analyzer.contract.results import Failure, Finding
from analyzer.core.span import Span
from analyzer.project import vocab
from analyzer.history.git import GitError, Repo
from analyzer.engine.phases import input_counts, phase_one_given
from analyzer.query.program import merge_program, revision_program

UNAVAILABLE_NOTE = "Conflict-free status was not established."
REVIEW_NOTE = "Concurrent hard-memory changes require semantic reconciliation."
CLEAR_NOTE = ("No deterministic conflict or configured reconciliation risk was detected; "
              "this is not a semantic-consistency proof.")
SIDES = (("base", "merge base"), ("left", "HEAD"), ("right", None))


def merge_line(finding: Finding) -> str:
    """A merge finding as the reference prints it (without the leading "- ")."""
    text = f"{finding.code} {finding.message}"
    return f"{text}: {REVIEW_NOTE}" if finding.status == "REVIEW" else text


@dataclass
class MergeResult:
    """The outcome of a merge review: a status and findings, or why it was unavailable."""

    ref: str
    status: Optional[str] = None  # CLEAR, REVIEW or CONFLICT; None when unavailable
    # why the review is unavailable (its message is the reason §9.5 prints; exit 1, never CLEAR)
    failure: Optional[Failure] = None
    base: str = ""
    head: str = ""
    target: str = ""
    #: family "merge"; each location's revision in ``revisions``: (label "merge base", "HEAD" or the ref, commit)
    findings: List[Finding] = field(default_factory=list)
    exit_code: int = 1

    @property
    def available(self) -> bool:
        """Whether the review ran (an unavailable review blocks and establishes nothing)."""
        return self.status is not None

    def text_lines(self) -> List[str]:
        """The merge review block of the text output (spec §9.5)."""
        if not self.available:
            return [f"Merge review unavailable: {self.failure.message}", UNAVAILABLE_NOTE]
        lines = [f"Merge review status: {self.status}", f"Merge base: {self.base}"]
        lines += [f"- {merge_line(finding)}" for finding in self.findings]
        if self.status == "CLEAR":
            lines.append(f"- {CLEAR_NOTE}")
        return lines


def run_merge_review(project_root, memory_dir: str, ref: str, use_cache: bool = True,
                     worktree=None, worktree_problems=None) -> MergeResult:
    """Review the merge of ``ref`` into HEAD for the memory dir of ``project_root``.

    ``worktree``: the work tree's loaded Project, reused for HEAD when HEAD's managed files
    are the work tree's; ``worktree_problems``: the ``revision_problem`` rows rules/merge/
    problems.dl derived for that work tree (so HEAD's integrity is not evaluated twice)."""

    result = MergeResult(ref)
    try:
        repo = Repo(str(project_root))
        result.head = repo.commit("HEAD")
        result.target = repo.commit(ref)
        from analyzer.history.shallow import merge_base

        result.base = merge_base(repo, result.head, result.target, "HEAD and the target")
        with gc_paused():
            facts, given = _gather(repo, result, memory_dir, use_cache, worktree, worktree_problems)
    except GitError as exc:
        # the whole reason as Git or the file named it (a FileError's place included)
        result.failure = Failure(getattr(exc, "code", "MA-GIT"), str(exc), exit_code=1)
        return result
    db = merge_program(use_cache).evaluate(facts, given=given)
    _select(db, result, memory_dir)
    return result


def _gather(repo: Repo, result: MergeResult, memory_dir: str, use_cache: bool,
            worktree=None, worktree_problems=None):
    """Every base fact of rules/merge/merge.dl the rules need, in two phases: the rules first
    decide from the units of the three revisions which units each side changed (and which
    the sides deleted or hold twice); only those units' fields and displayed IDs are then
    copied in (no merge rule looks at another unit's).

    Returns the facts and the relations the first phase derived, for the final evaluation
    to take as given (the facts they depend on are unchanged since; :func:`_phase_one`)."""
    from analyzer.history.revisions import attribute_facts, display_facts, read_revisions, unit_facts

    commits = {"base": result.base, "left": result.head, "right": result.target}
    specs = [(rev, commits[rev], label or result.ref) for rev, label in SIDES]
    # the merge base contributes its units only: with their digests stored per file
    # (analyzer/history/unit_digests.py) it is parsed only if a finding names one of its units
    revisions = read_revisions(repo, specs, memory_dir, use_cache, worktree, lazy=["base"])
    # the units of files all three revisions hold unchanged are listed once, not three times
    common, common_rows = _common_units(revisions, use_cache)
    facts: Dict[str, List[tuple]] = {"memory_dir": [(memory_dir,)], "git_changed_path": [], "git_problem": [],
                                     "git_common_unit": common_rows}
    for revision in revisions:
        for name, rows in unit_facts(revision, use_cache, display=False, common=common).items():
            facts.setdefault(name, []).extend(rows)
    program = merge_program(use_cache)
    first = program.evaluate(facts, only=PHASE_ONE)
    inputs = input_counts(program, PHASE_ONE, facts)
    changed = first.relation("changed")
    # IDs are shown as written only where a finding can name them: changed, deleted and
    # duplicated units, and the HEAD Subjects changed entries name (MC-MERGE-REVIEW-002)
    named = set(first.relation("named_unit"))
    problems: Dict[tuple, list] = {}
    for revision in revisions:
        reused = revision.loaded and revision.project is worktree  # never parses the merge base
        if worktree is not None and worktree_problems is not None and reused:
            problems[revision.blob_ids] = list(worktree_problems)
    for revision in revisions[1:]:  # the sides; the merge base contributes its units only
        wanted: Dict[str, set] = {}
        for rev, kind, ident in changed:
            if rev == revision.rev:
                wanted.setdefault(kind, set()).add(ident)
        for name, rows in attribute_facts(revision, wanted).items():
            facts.setdefault(name, []).extend(rows)
            if name == "git_entry_subject":
                named |= {("left", "subject", subject) for _, _, subject in rows}
        facts["git_changed_path"] += [(revision.rev, p) for p in repo.changed_paths(result.base, revision.sha)]
        if revision.blob_ids not in problems:  # the same files have the same problems
            problems[revision.blob_ids] = _revision_problems(revision, use_cache)
        facts["git_problem"] += [(revision.rev, *row) for row in problems[revision.blob_ids]]
    shown: Dict[str, Dict[str, set]] = {}
    for rev, kind, ident in named:
        shown.setdefault(rev, {}).setdefault(kind, set()).add(ident)
    facts["git_unit_display"] = [row for revision in revisions if revision.rev in shown
                                 for row in display_facts(revision, shown[revision.rev])]
    return facts, _phase_one(program, first, facts, inputs)


# named_unit_at: the final evaluation reads the units findings name from it, never the
# 60,000 unit facts of a 10k project's three revisions (then not even loaded)
def _revision_problems(revision, use_cache: bool) -> List[tuple]:
    """``revision_problem`` of one revision (rules/merge/revision.dl), over the facts it
    reads only: half of a 10k fact base (bodies, Evidence, spans of text) is never read by
    it, and would only be type-checked."""
    program = revision_program(use_cache)
    needed = program.needed(["revision_problem"])
    facts = {rel: rows for rel, rows in revision.project.facts.relation_sets().items() if rel in needed}
    return program.evaluate(facts, only=["revision_problem"]).relation("revision_problem")


def _common_units(revisions, use_cache: bool):
    """The files the three revisions share and their units (:func:`common_units`; a seam
    for tests, which compare the review with and without them)."""
    from analyzer.history.revisions import common_units

    return common_units(revisions, use_cache)


PHASE_ONE = ["changed", "deleted", "duplicate_unit", "named_unit", "named_unit_at"]


def _phase_one(program, first, facts, inputs: Dict[str, int]) -> Dict[str, set]:
    """The relations the first phase derived completely, to be given to the final
    evaluation instead of being derived a second time from the 60,000 unit facts of a 10k
    project's three revisions (about a tenth of a merge review); nothing when the facts they
    depend on changed since (analyzer/engine/phases.py)."""
    return phase_one_given(program, first, facts, inputs, PHASE_ONE)


def _select(db, result: MergeResult, memory_dir: str) -> None:
    """Copy the derived status, exit and findings (with locations) into ``result``."""
    result.status = db.relation("merge_status")[0][0]
    result.exit_code = db.relation("merge_exit")[0][0]
    names = {rev: (label, sha) for rev, sha, label in db.relation("git_revision")}
    where: Dict[str, List[Tuple[Span, Tuple[str, str]]]] = {}
    for key, rev, module, line in db.relation("merge_finding_at"):
        where.setdefault(key, []).append((Span(f"{memory_dir}/{module}", line), names[rev]))
    rank = {status: -n for status, n in vocab.facts("status_rank")}  # worst first
    rows = sorted(db.relation("merge_finding"), key=lambda r: (rank[r[2]], r[0]))
    result.findings = []
    for key, code, status, message in rows:
        # by path, line, then revision label and commit
        at = sorted(where.get(key, []), key=lambda pair: (pair[0].path, pair[0].line, pair[1]))
        result.findings.append(Finding(code, "merge", message, status=status, locations=[s for s, _ in at],
                                       revisions=[r for _, r in at]))
