"""The ``check`` request: load the project, gather the facts the chosen families need,
evaluate rules/check/check.dl once for all of them, and select each family's relations into
a :class:`~analyzer.contract.check_model.CheckResult`.

Every decision (findings, their severity or status, each family's status word and exit
status) is a relation derived by the rules; this module moves data between the project,
the engine and the result model, and refuses input it could not use (fail closed: a managed
file the rules say the check needs that is unreadable, undecodable, over the size cap, a
symlink or not a regular file is an error, exit 2, never an OK check).
"""

from __future__ import annotations

from functools import lru_cache
from typing import List, Optional

from analyzer.core import lifetime
from analyzer.query.check_families import FAMILIES, Locator
from analyzer.contract.check_model import CheckResult, FamilyResult
from analyzer.contract.results import Failure
from analyzer.query.program import extracted, shipped_program
from analyzer.query.agents import run_agents_check
from analyzer.query.check_legacy import aborted, add_scans
from analyzer.query import check_cache, scans
# the request, opened and looked up in the result cache, and run_check, which runs it through here on a
# miss, are check_request's (all a cache hit imports); their names are this module's too (the fleet and
# packtest run checks through here)
from analyzer.query.check_request import (CheckRequest, agents_only, lookup, open_request, result_cache_key,
                                          run_check)
from analyzer.project.loader import load_project

#: Families that read files outside the memory dir (agent instruction files, the local
#: overlay: analyzer/query/scans.py), which a cached result records and checks again.
SCANNING = ("security", "privacy", "hidden-text")


def check_program(use_cache: bool = True):
    """The engine for rules/check/check.dl (compiled once per process and cached on disk)."""
    return shipped_program("check/check.dl", use_cache)


def run_opened(request: CheckRequest, key: Optional[str]) -> CheckResult:
    """Run a request :func:`~analyzer.query.check_request.lookup` opened and did not answer,
    and keep the result under ``key`` (None: not cached)."""
    if agents_only(request):
        return run_agents_check(request)
    with lifetime.gc_paused(freeze=True):
        project, refused = load_checked(request)
        if refused is not None:
            return refused
        result, probes, git = _evaluate(request, project)
    if key:
        check_cache.store(key, result, probes, git)
    return result


def load_checked(request: CheckRequest):
    """``(project, refused)``: the loaded project, and the error result naming the managed
    files it needs but cannot use (None when there are none)."""
    limit = {} if request.max_file_bytes is None else {"max_file_bytes": request.max_file_bytes}
    project = load_project(request.project_root, memory_dir=request.memory_dir, use_cache=request.use_cache, **limit)
    lifetime.keep(project)  # the console script frees it by exiting (analyzer/core/lifetime.py)
    return project, _refused(project, request.use_cache)
def _refused(project, use_cache: bool):
    """An error result naming every managed file the check needs (``needed_file``,
    rules/needed.dl) but could not use: a symlink, not a regular file, unreadable, not UTF-8,
    over the size cap (spec §9: such input escapes as ``Error: …``, exit 2), or None.
    The lines are read's (analyzer/query/needed.py): ``Error: <path>:<line>:<col>: <CODE> <cause>``."""
    if not project.unusable:
        return None  # nothing is unusable: no file the rules could name
    from analyzer.query.needed import error_line, unusable

    engine = check_program(use_cache)
    inputs = engine.needed(["needed_file"])
    facts = {rel: rows for rel, rows in project.facts.relation_sets().items() if rel in inputs}
    db = engine.evaluate(facts, only=["needed_file"], checked=extracted(engine, facts, project))
    problems = unusable(project, (m for (m,) in db.relation("needed_file")))
    if not problems:
        return None
    first = problems[0]
    return CheckResult([], "INVALID", 2, failure=Failure(first.code, "\n".join(error_line(d) for d in problems),
                                                           first.span, diagnostics=problems))


def _evaluate(request: CheckRequest, project) -> CheckResult:
    engine = check_program(request.use_cache)
    facts, only, needed = gather(request, project, engine)
    spans = project.facts.spans() if request.with_proofs else None
    supplied = {rel: rows for rel, rows in facts.items() if rel in needed}
    db = engine.evaluate(supplied, only=only, provenance=request.with_proofs, spans=spans,
                         checked=extracted(engine, supplied, project))
    lifetime.keep(db, facts)
    return finish(request, project, facts, needed, db)


def gather(request: CheckRequest, project, engine):
    """``(facts, only, needed)``: every fact the families read (the project's and those the
    families gather), the relations to evaluate, and the relations those need. Shared with
    the fleet's SQL evaluation (analyzer/commands/fleet_check.py), which evaluates many at once."""
    families = [FAMILIES[name] for name in request.families]
    facts = dict(project.facts.relation_sets())
    gathered = set()
    for family in families:
        if family.facts is not None and family.facts not in gathered:
            gathered.add(family.facts)
            for rel, rows in family.facts(request, project).items():
                facts[rel] = [*facts.get(rel, ()), *rows]
    merge_ref = request.options.get("merge_base") if "conflicts" in request.families else None
    extra = ["merge_review_runs", "revision_problem"] if merge_ref is not None else []
    only = sorted({rel for family in families for rel in family.relations} | set(extra) | set(_pack_reads(request)))
    # facts of relations the chosen families never read are left out (not even type-checked)
    return facts, only, engine.needed(only)


def finish(request: CheckRequest, project, facts, needed, db):
    """The result, its probes and Git state from an evaluated database (``db`` answers
    ``relation(name)``: the native engine's, or one repository's of the SQL back end)."""
    families = [FAMILIES[name] for name in request.families]
    merge_ref = request.options.get("merge_base") if "conflicts" in request.families else None
    locate = Locator(project)
    results: List[FamilyResult] = [family.select(db, locate) for family in families]
    if list(request.families) == ["legacy"]:
        # plain `check`: a lexical error aborts it (§9.8.1); the scans are its pass 5 (with
        # `--all` they are families of their own)
        stop = aborted(db, project)
        if stop is not None:
            return stop, {}, None
        add_scans(results[0], db, project, bool(request.options.get("security")),
                  bool(request.options.get("privacy")))
    if request.with_proofs:
        from analyzer.query.proofs import attach

        attach(results, db)
    merge = None
    if merge_ref is not None and db.relation("merge_review_runs"):
        merge = _merge_review(request, project, merge_ref, db.relation("revision_problem"))
        results.insert(request.families.index("conflicts") + 1, merge_family(merge))
    if request.packs:
        from analyzer.query.packs import evaluate as evaluate_packs

        results.append(evaluate_packs(request.packs, facts, locate, None if request.with_proofs else db,
                                      proofs=request.with_proofs, covered=needed))
    combined = combine(results)
    combined.merge = merge
    scans.redact_result(combined)  # before it is cached or rendered: no output prints a secret
    # what the result depends on outside the memory dir (checked again before a cached result is reused)
    probes = dict(facts.get("source_path", ())) if "source_path" in needed else {}
    if set(request.families) & set(SCANNING):
        probes[scans.PROBE] = scans.outside_probe(project)
    git = None
    if facts.get("git_head"):
        git = (True, next(iter(facts["git_head"]))[0])
    elif facts.get("git_unavailable"):
        git = (False, next(iter(facts["git_unavailable"]))[0])
    return combined, probes, git


def _pack_reads(request: CheckRequest) -> List[str]:
    if not request.packs:
        return []
    from analyzer.query.packs import check_relations

    return check_relations(request.packs)


def _merge_review(request: CheckRequest, project, ref: str, problems):
    """The merge review of ``--merge-base`` (analyzer/query/merge.py), reusing the loaded
    work tree and its integrity problems for HEAD when HEAD's files are the work tree's."""
    from analyzer.query.merge import run_merge_review

    return run_merge_review(request.project_root, project.memory_dir, ref, request.use_cache,
                            worktree=project, worktree_problems=problems)


def merge_family(merge) -> FamilyResult:
    """The merge review as a family of the check result: its status (UNAVAILABLE when Git
    could not answer), exit status and the lines of its text block."""
    return FamilyResult("merge", "merge", merge.status or "UNAVAILABLE", merge.exit_code, [], merge.text_lines())


def combine(results: List[FamilyResult]) -> CheckResult:
    """The overall result of the families run together (at least one that is a check): the
    worst status word and the worst exit status, as rules/check/run.dl derives them from the
    families (run_status: the first family of the worst rank on §9's one scale, CLEAR <
    REVIEW < CONFLICT < INVALID with OK as CLEAR and FAILED or UNAVAILABLE as CONFLICT, a
    word of neither as INVALID; run_exit: the greatest exit status; the report's family,
    not a check, takes no part)."""
    status, exit_code = _judged(tuple((r.block, r.status, r.exit_code) for r in results))
    return CheckResult(results, status, exit_code)


@lru_cache(maxsize=256)
def _judged(families: tuple) -> tuple:
    """rules/check/run.dl's ``(run_status, run_exit)`` for ``(block, status, exit)`` rows in
    run order: evaluated once per distinct run shape (a fleet's repositories mostly share
    one; an evaluation is about 1 ms)."""
    db = shipped_program("check/run.dl").evaluate({"run_family": [(n, *row) for n, row in enumerate(families)]})
    status, exit_code = db.relation("run_status"), db.relation("run_exit")
    if not status:  # no family that is a check: nothing to judge the run by (a caller's error)
        raise ValueError("a run's status needs at least one family that is a check (the report alone is not)")
    ((status,),), ((exit_code,),) = status, exit_code
    return status, exit_code
