"""``analyze check --autonomy plan|confirm|full --base REV [--head REV]`` (issue 12).

Python gathers: the diff's facts (analyzer/query/diff.py) from the merge base of the base
and the head (HEAD for the work tree) to the head, as ``git diff BASE...HEAD`` compares, so
that what the base's branch did after the head left it is not judged as the head's; every
reconciliation record of the head revision, the plan (docs/memory/plan.md of the head revision, grammar/plan.lark),
the requested level and reviewer names, and for `full` the readings' history as of the head
commit's time. rules/autonomy/ decide every finding and the status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

from analyzer.core.lifetime import gc_paused
from analyzer.contract.results import Failure, Finding
from analyzer.core.span import Span
from analyzer.history.git import GitError, History, Repo
from analyzer.project.extract.plan import PLAN_MODULE, PlanError, parse_plan
from analyzer.query.diff import DiffResult, blindspot_findings, diff_facts, select
from analyzer.query.failures import git_failure


def unit_of(finding: Finding) -> Tuple[str, str]:
    """``(kind, ID)`` of an autonomy finding's unit (its ``at``): the kind entry, subject,
    record, "reading" (003) or "plan" (004), the ID as the head (or base) spells it."""
    kind, _, ident = finding.at.partition(" ")
    return kind, ident


@dataclass
class AutonomyResult:
    """The outcome of an autonomy check: the diff, the levels, the findings and the status."""

    diff: DiffResult
    requested: str
    effective: str = ""
    status: str = ""  # CLEAR, REVIEW, CONFLICT, INVALID; "" when it could not run
    exit_code: int = 2
    # why it could not run: MA-GIT, MA-PLAN for plan.md, MA-FILE-* for a managed file that cannot be used
    failure: Optional[Failure] = None
    findings: List[Finding] = field(default_factory=list)  # at: "<kind> <ID>" (:func:`unit_of`)
    # the findings as the CI formats show them, then the diff's blind spots (rules/autonomy/findings.dl)
    annotations: List[Finding] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    # the merge base judged from when it is not the base's own commit ("" when the base is
    # an ancestor of the head); then the base's commit and the head's (HEAD's for the work tree)
    merge_base: str = ""
    base_commit: str = ""
    head_commit: str = ""


def run_autonomy(root, memory_dir: str, mode: str, base: str, head: Optional[str], reviewers: Sequence[str],
                 patterns: Sequence[str], use_cache: bool = True, program=None) -> AutonomyResult:
    """Judge the changes ``head`` (the work tree when None) made since it left ``base`` (from
    their merge base, see :func:`judged_from`) by ``mode`` (``program``: another build of
    rules/autonomy/autonomy.dl, for the matrix's mutation test)."""
    from analyzer.query.program import autonomy_program

    program = program or autonomy_program(use_cache)
    result = AutonomyResult(DiffResult(base, head or ""), mode)
    try:
        with gc_paused():
            judged_from(root, result)
            facts, order, revisions = diff_facts(root, memory_dir, result.diff, program, use_cache)
            head_rev = next(r for r in revisions if r.rev == "head")
            _records(facts, head_rev)
            plan_text = head_rev.project.texts.get(PLAN_MODULE)
            if plan_text is not None:
                facts.update(parse_plan(plan_text))
                facts["plan_present"] = [(PLAN_MODULE,)]
                base_rev = next(r for r in revisions if r.rev == "base")
                facts["plan_changed"] = _plan_change(root, memory_dir, result.diff, plan_text,
                                                     base_rev.project.texts.get(PLAN_MODULE))
            if mode == "full":
                _readiness(facts, root, memory_dir, result.diff, patterns, use_cache, program)
    except GitError as exc:
        result.failure = git_failure(exc)
        return result
    except PlanError as exc:
        result.failure = Failure("MA-PLAN", exc.message, Span(f"{memory_dir}/{PLAN_MODULE}", exc.line))
        return result
    facts["requested_mode"] = [(mode,)]
    facts["reviewer"] = [(name,) for name in reviewers]
    db = facts.evaluate(program)
    select(db, result.diff, memory_dir, order)
    from analyzer.history.head_places import anchor_deleted

    try:
        anchor_deleted(root, result.diff)
    except GitError as exc:
        result.failure = git_failure(exc)
        return result
    [(result.effective,)] = db.relation("effective_mode")
    [(result.status, result.exit_code)] = db.relation("autonomy_status")
    result.missing = [name for (name,) in db.relation("reading_missing")] if mode == "full" else []
    result.findings, result.annotations = _findings(db, result, memory_dir)
    return result


def _findings(db, result: AutonomyResult, memory_dir: str) -> Tuple[List[Finding], List[Finding]]:
    """The findings (``autonomy_finding``, each at its unit's place: a changed unit's in the
    head, else the base; a plan step's line of plan.md), and the same findings as the CI
    formats show them (``autonomy_annotation``: the ID leads the message, a unit the head no
    longer holds is at its anchor in the head, analyzer/history/head_places.py), followed by
    the diff's blind spots; both sorted by status, code, kind and ID."""

    changes = {(c.kind, c.ident.casefold()): c for c in result.diff.changes}
    plan_lines = {ident: line for _, ident, line in db.relation("plan_names")}
    shown = {(kind, ident): name for kind, ident, name in db.relation("autonomy_shown")}
    entries = {(kind, ident): name for kind, ident, name in db.relation("autonomy_finding_entry")}
    annotated = {(code, status, kind, ident): message
                 for code, status, kind, ident, message in db.relation("autonomy_annotation")}
    rank = {status: -n for status, n in db.relation("status_rank")}  # worst first (rules/vocab/status.dl)
    findings, annotations = [], []
    for row in sorted(db.relation("autonomy_finding"),
                      key=lambda r: (rank[r[1]], r[0], r[2], shown[(r[2], r[3])].casefold())):
        code, status, kind, ident, message = row
        change = changes.get((kind, ident))
        place = (change.after or change.before) if change else None
        if kind == "plan":
            where = [Span(f"{memory_dir}/{PLAN_MODULE}", plan_lines.get(ident, 1))]
        else:
            where = [Span(place.path, place.line)] if place else []
        findings.append(Finding(code, "autonomy", message, status=status, at=f"{kind} {shown[(kind, ident)]}",
                                locations=where))
        anchor = change.anchor if change else None
        shown_at = ([Span(anchor.path, anchor.line)] if anchor is not None
                    else [Span(where[0].path, where[0].line or 1)] if where else [])
        annotations.append(Finding(code, "autonomy", annotated[(code, status, kind, ident)], status=status,
                                   entries=[entries[(kind, ident)]] if (kind, ident) in entries else [],
                                   locations=shown_at))
    return findings, annotations + blindspot_findings(db, "autonomy")


def judged_from(root, result: AutonomyResult) -> None:
    """Set the diff's base commit to the merge base of the base and the head (HEAD for the
    work tree), as ``git diff BASE...HEAD`` does: a pull request checked against a base
    branch that moved on since the branch was cut would otherwise show the base branch's
    later changes reversed, without commits, as the head's. The one ``git merge-base``
    prints when criss-cross merges leave several (analyzer/history/git.py); when it is not the
    base's commit, ``result.merge_base`` names it. Unrelated histories: :class:`GitError`."""
    repo = Repo(str(root))
    diff = result.diff
    base = repo.commit(diff.base_ref)
    head = repo.commit(diff.head_ref or "HEAD")
    names = f"{diff.base_ref} and {diff.head_ref or 'HEAD'}"
    from analyzer.history.shallow import boundary, merge_base

    try:
        diff.base = merge_base(repo, base, head, names)
    except GitError as exc:
        if boundary(repo):  # the history is cut, not unrelated: the error says what to fetch
            raise
        raise GitError(f"{exc}: unrelated histories; the autonomy check judges what {diff.head_ref or 'HEAD'} "
                       f"changed since it left {diff.base_ref}") from None
    if diff.base != base:
        result.merge_base, result.base_commit, result.head_commit = diff.base, base, head


def _plan_change(root, memory_dir: str, diff: DiffResult, plan_text: str, base_text: Optional[str]):
    """``[(plan.md, sha)]`` when the head's plan differs from the base's: the last commit of
    the range that changed it ("worktree" for uncommitted edits, "" when no commit of the
    range did); ``[]`` when the plan is the base's. A Git fact: the rules decide (outofplan.dl)."""

    if plan_text == base_text:
        return []
    repo = Repo(str(root))
    history = History(repo, memory_dir)
    tip = diff.head or repo.commit("HEAD")
    if not diff.head:  # the work tree's plan against HEAD's
        oid = history.blob_at(tip, PLAN_MODULE)
        at_tip = repo.blobs([oid])[oid].decode("utf-8", "replace") if oid else None
        if at_tip != plan_text:
            return [(PLAN_MODULE, "worktree")]
    out = repo._run(repo.top, ["log", "-1", "--format=%H", f"{diff.base}..{tip}", "--",
                               f"{history.folder}/{PLAN_MODULE}"]).decode("ascii", "replace").strip()
    return [(PLAN_MODULE, out)]


def _records(facts, head_rev) -> None:
    """Every record of the head revision with its entries (a record need not have changed
    to confirm a change)."""
    from analyzer.history.revisions import attribute_facts

    rel = head_rev.project.facts.relation_sets()
    ids = {row[0] for row in rel.get("rec", ())}
    rows = attribute_facts(head_rev, {"record": ids})
    for name in ("git_rec", "git_rec_entry"):
        facts[name] = sorted(set(facts.get(name, [])) | set(rows.get(name, [])))


def _readiness(facts, root, memory_dir, diff: DiffResult, patterns, use_cache, program) -> None:
    """The readings' facts as of the head commit's time (HEAD's for the work tree)."""
    from analyzer.history.window import tip_time
    from analyzer.query.readiness import readiness_facts

    repo = Repo(str(root))
    tip = diff.head or repo.commit("HEAD")
    extra, _window = readiness_facts(repo, memory_dir, tip, tip_time(repo, tip), patterns, use_cache, program)
    for name, rows in extra.items():
        if name in ("memory_dir",):
            continue
        facts[name] = sorted(set(facts.get(name, [])) | set(rows), key=repr)
