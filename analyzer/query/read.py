"""The ``read`` request: record the request as facts, evaluate rules/read/read.dl, and select
the derived relations into a :class:`~analyzer.contract.read_model.ReadResult`.

Every decision (task, paths, dispositions, budgets, completeness, conflicts, overlay, exit
status) is a relation derived by the rules; this module only moves data between the
project, the engine and the result model, and puts module texts into the pack.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from analyzer.query.needed import require_usable, unusable
from analyzer.query.finding_entries import finding_entries
from analyzer.query.paths import probe_path
from analyzer.query.program import extracted, read_program, stored_program
from analyzer.contract.results import Failure, Finding
from analyzer.contract.read_model import (
    DISPOSITION_ORDER,
    ModuleView,
    Omission,
    PackSection,
    ReadResult,
)
from analyzer.core.lifetime import gc_paused
from analyzer.core.resources import data_file

FOLDER_LABEL = {"rules": "rule", "profiles": "profile", "areas": "area"}


@dataclass
class ReadRequest:
    """The arguments of one read request, exactly as supplied."""

    task: str = "default"
    paths: Sequence[str] = ()
    rules: Sequence[str] = ()
    profiles: Sequence[str] = ()
    areas: Sequence[str] = ()
    strict: bool = False
    no_local: bool = False
    project_root: Path = field(default_factory=Path.cwd)
    memory_dir: str = "docs/memory"
    use_cache: bool = True
    max_file_bytes: Optional[int] = None  # None: the loader's default cap (analyzer.project.files.SIZE_CAP)

    def facts(self) -> Dict[str, List[tuple]]:
        """The request as facts of facts/request.dl (verbatim; rules interpret them)."""
        facts: Dict[str, List[tuple]] = {
            "req_task": [(self.task,)],
            "req_path": [(p,) for p in self.paths],
            "req_explicit": [("rules", v) for v in self.rules]
            + [("profiles", v) for v in self.profiles]
            + [("areas", v) for v in self.areas],
            "req_flag": [],
        }
        if self.strict:
            facts["req_flag"].append(("strict-routing",))
        if self.no_local:
            facts["req_flag"].append(("no-local",))
        return facts


class UnknownTask(ValueError):
    """The supplied task is not a spelling the rules know (a usage error).

    ``str(exc)`` is the task as supplied; ``aliases`` are the accepted spellings with their
    canonical tasks, as rules/read/tasks.dl declares them (``task_alias``).
    """

    def __init__(self, task: str, aliases: Sequence[Tuple[str, str]] = ()) -> None:
        super().__init__(task)
        self.aliases = sorted(aliases)

    def message(self) -> str:
        """``argument --task: invalid choice: 'x' (did you mean 'y'?)`` and the accepted tasks."""
        import difflib

        task = str(self)
        text = f"argument --task: invalid choice: {task!r}"
        spellings = [a for a, _ in self.aliases]
        close = difflib.get_close_matches(task.strip().lower(), spellings, n=1, cutoff=0.6)
        if close:
            text += f" (did you mean {close[0]!r}?)"
        if self.aliases:
            groups: Dict[str, List[str]] = {}
            for alias, canonical in self.aliases:
                if alias != canonical:
                    groups.setdefault(canonical, []).append(alias)
                else:
                    groups.setdefault(canonical, [])
            listed = [f"{c} ({', '.join(a)})" if a else c for c, a in sorted(groups.items())]
            text += "; accepted tasks (aliases in parentheses): " + "; ".join(listed)
        return text


def run_read(request: ReadRequest, project=None, *, provenance: bool = False):
    """Evaluate a read request; returns ``(ReadResult, database, project)``."""
    # Evaluation, like loading, allocates many small acyclic objects next to the large fact
    # base; each full collection would rescan it (about 1 s of a 10,000-entry read). A read
    # leaves no cyclic garbage (checked with gc.collect() after repeated reads), so what it
    # built is frozen out of later collections too. The pause covers importing the loader:
    # it brings the extractors and the engine, whose imports made a cold read's only
    # collections of the older generation
    with gc_paused(freeze=True):
        from analyzer.project.loader import load_project

        if project is None:
            limit = {} if request.max_file_bytes is None else {"max_file_bytes": request.max_file_bytes}
            project = load_project(request.project_root, memory_dir=request.memory_dir,
                                   use_cache=request.use_cache, side_task=_program_warmer(request), **limit)
        return _evaluate(request, project, provenance)


def _program_warmer(request: ReadRequest):
    """On a cold program cache, compiling the rules into it (a side task a prefetch helper
    may run next to a large cold extraction; the read itself then loads the cached program)."""
    if not request.use_cache:
        return None
    if stored_program("read/read.dl") is not None:  # compiled for the current files: loaded, kept
        return None
    return lambda: read_program(True)


def _evaluate(request: ReadRequest, project, provenance: bool):
    engine = read_program(request.use_cache)
    facts = request_facts(engine, request, project, needed_only=True)
    if provenance:  # spans only feed proofs: a plain read never looks at them
        db = engine.evaluate(facts, spans=project.facts.spans(), provenance=True)
    else:
        from analyzer.engine.materialize import evaluate_reusing

        # what does not depend on the request is evaluated once per fact base and reused
        db = evaluate_reusing(engine, facts, request_relations(engine), project.facts.digest(),
                              use_cache=request.use_cache, checked=extracted(engine, facts, project))
    return build_result(db, request, project), db, project


def request_facts(engine, request: Optional[ReadRequest], project, needed_only: bool = False) -> Dict[str, object]:
    """The project's facts plus the request's (``path_probe`` included), ready for ``engine``
    (the read program or any program that includes it); raises :class:`UnknownTask`.

    With ``request`` None only the project's facts are returned: no request relation holds.
    With ``needed_only``, only the project relations some rule of ``engine`` reads (for an
    evaluation of ``engine`` alone: the fact base then builds no set for the others; an
    ``analyze query`` session, which evaluates other programs over the facts too, gets all).
    """
    # the engine keeps sets and needs no order: no sorting, no copies here
    wanted = engine.needed(rel for s in engine.strata if s.rules for rel in s.relations) if needed_only else None
    facts = project.facts.relation_sets(wanted)
    if request is None:
        return facts
    for name, rows in request.facts().items():
        facts[name] = [*facts.get(name, ()), *rows]
    # Phase 1 normalizes touched paths (rules), phase 2 adds what the filesystem says about
    # each normalized path; the filesystem is never consulted for anything rules reject.
    # Phase 1 also says which files the read needs: one that could not be used stops the
    # read here (UnusableInput), before anything is routed or packed (fail closed).
    phase1 = ["path_norm", "unknown_task", "needed_file", "task_alias"]
    inputs = engine.needed(phase1)
    first = engine.evaluate({rel: rows for rel, rows in facts.items() if rel in inputs}, only=phase1,
                            checked=extracted(engine, facts, project))
    unknown = first.relation("unknown_task")
    if unknown:
        raise UnknownTask(unknown[0][0], first.relation("task_alias"))
    require_usable(project, (m for (m,) in first.relation("needed_file")))
    norm = sorted({p for _, p in first.relation("path_norm")})
    facts["path_probe"] = [(p, probe_path(Path(request.project_root), p)) for p in norm]
    return facts


def unusable_needed(engine, project) -> list:
    """Why each file the rules say a read of ``project`` needs (``needed_file``, rules/needed.dl)
    could not be used, as diagnostics; empty when all could. For a goal asked without a read
    request, which answers over the facts that could be read and names the rest."""
    only = ["needed_file"]
    facts = project.facts.relation_sets(engine.needed(only))
    first = engine.evaluate(facts, only=only, checked=extracted(engine, facts, project))
    return unusable(project, (m for (m,) in first.relation("needed_file")))


def request_relations(engine) -> List[str]:
    """The relations a read request supplies: those declared in facts/request.dl."""
    declared_in = str(data_file("facts", "request.dl"))
    return sorted(name for name, decl in engine.program.decls.items()
                  if decl.span is not None and decl.span.path == declared_in)


def _one(db, name: str, default=None):
    rows = db.relation(name)
    return rows[0][0] if rows else default


def build_result(db, request: ReadRequest, project) -> ReadResult:
    """Select the derived relations of a read evaluation into the result model."""
    completeness = _one(db, "completeness", "INVALID")
    modules = _modules(db)
    rank = {m: (g, o) for m, g, o in db.relation("module_position")}
    omissions = [
        Omission(m, ref)
        for _, n, m, ref in sorted((rank.get(m, (9, 0)), n, m, ref) for m, n, ref in db.relation("budget_omission"))
    ]
    paths = [(p, missing == "yes") for p, missing in db.relation("result_path")]
    explicit = [
        f"{FOLDER_LABEL[f]}:{s}"
        for f, s in sorted({(f, s) for f, _, s in db.relation("explicit_norm")}, key=lambda x: (list(FOLDER_LABEL).index(x[0]), x[1]))
    ]
    packed = {m for (m,) in db.relation("pack_module")}
    over = {m for (m,) in db.relation("packed")}
    kept: Dict[str, List[int]] = {}
    for m, n in db.relation("kept_unit"):
        kept.setdefault(m, []).append(n)
    sections = []
    for mod in modules:
        if mod.path in packed:
            text = _pack_text(project, mod.path, kept.get(mod.path, []) if mod.path in over else None)
            if text:
                sections.append(PackSection(mod.path, text))
    local_loaded = [name for _, name in db.relation("local_loaded")]
    local_sections = []
    if db.relation("local_contents_shown"):
        local_sections = [PackSection(f"local/{n}", (project.text(f"local/{n}") or "").strip("\n"))
                          for _, n in db.relation("local_loaded_module")]
    return ReadResult(
        task=request.task,
        canonical_task=_one(db, "canonical_task"),  # echoed in INVALID results too (§8.8)
        paths=paths,
        explicit=explicit,
        completeness=completeness,
        shared_completeness=_one(db, "shared_completeness", completeness),
        incomplete_dimensions=[d for _, d in db.relation("incomplete_dimension")],
        modules=modules,
        omissions=omissions,
        oversized=[(m, b) for _, m, b in sorted((rank.get(m, (9, 0)), m, b) for m, b in db.relation("oversized"))],
        conflict_status=_one(db, "conflict_status", "INVALID"),
        conflict_findings=_findings(db),
        local_status=_one(db, "local_status", "DISABLED"),
        local_warnings=[w for _, w in db.relation("local_warning")],
        local_loaded=[f"local/{n}" for n in local_loaded],
        local_scope_warnings=[w for _, w in db.relation("local_scope_warning")],
        warnings=[w for _, w in db.relation("routing_warning")] + [m for (m,) in db.relation("migration_required")],
        strict=request.strict,
        approved=bool(db.relation("approved")),
        exit_code=_one(db, "exit_code", 2),
        notice=_one(db, "pack_notice"),
        failure=_failure(db, project),
        sections=sections,
        local_sections=local_sections,
        local_dir=_overlay_dir(db),
    )


def _overlay_dir(db):
    """The overlay directory the read consulted, with its state (None: --no-local)."""
    if ("no-local",) in set(db.relation("req_flag")):
        return None
    rows = sorted(db.relation("overlay_dir"))
    return rows[0] if rows else None


def _failure(db, project) -> Optional[Failure]:
    """Why the pack is INVALID (rules/read/result.dl ``read_failure``: its code and first
    error) with the read's exit status and where the input at fault is; None when it is not."""
    rows = db.relation("read_failure")
    if not rows:
        return None
    code, message = rows[0]
    return Failure(code, message, _failure_span(db, project), _one(db, "exit_code", 2))


def _failure_span(db, project):
    """The file position of the fact behind an INVALID result's error (rules/read/completeness.dl
    ``invalid_source``), or None when the error is in the request itself."""
    for relation, ord_ in db.relation("invalid_source"):
        for row in db.relation(relation):
            if relation != "manifest_error" or row[0] == ord_:
                return project.facts.span_of(relation, row)
    return None


def _modules(db) -> List[ModuleView]:
    reasons: Dict[str, List[Tuple[int, str]]] = {}
    for m, r, o in db.relation("result_reason"):
        reasons.setdefault(m, []).append((o, r))
    details: Dict[str, List[Tuple[str, int, str]]] = {}
    for m, p, o, d in db.relation("result_detail"):
        details.setdefault(m, []).append((p, o, d))
    disposition = dict(db.relation("result_disposition"))
    primary = dict(db.relation("result_primary_reason"))
    matching = dict(db.relation("matching_input"))
    required = {m for (m,) in db.relation("module_required")}
    views = []
    # text order: by disposition group (as the text shows them, §8.8), then module order
    rank = {d: i for i, d in enumerate(DISPOSITION_ORDER)}
    for _, _, _, m in sorted((rank[disposition[m]], g, o, m) for m, g, o in db.relation("result_module")):
        ordered = []
        for _, r in sorted(reasons.get(m, [])):
            if r not in ordered:
                ordered.append(r)
        views.append(ModuleView(
            path=m,
            disposition=disposition[m],
            reasons=ordered,
            details=[d for _, _, d in sorted(details.get(m, []))],
            required=m in required,
            primary_reason=primary.get(m, ordered[0] if ordered else ""),
            matching_input=matching.get(m),
        ))
    return views


def _findings(db) -> List[Finding]:
    # a finding may list every entry of a file, once per issue of the file: grouped unsorted
    # and sorted per finding below (linear in the output, no sort of the whole relation)
    entries = finding_entries(db)
    scopes: Dict[str, List[str]] = {}
    for fid, _, s in db.relation("conflict_finding_scope"):
        scopes.setdefault(fid, []).append(s)
    # each distinct entry is ranked once (casefolded, ties in plain order); a finding's list
    # is then sorted by rank, without a casefold per entry and finding
    rank = {e: i for i, e in enumerate(sorted({e for listed in entries.values() for e in listed},
                                              key=_casefold_order))}
    out = []
    for fid, code, status, message, subject, facet in db.relation("conflict_finding"):
        out.append(Finding(code, "conflict", message, status=status,
                           entries=sorted(entries.get(fid, []), key=rank.__getitem__), subject=subject, facet=facet,
                           scopes=scopes.get(fid, [])))
    out.sort(key=lambda f: (f.code, f.subject, f.facet, f.scopes, f.entries))
    return out


def _casefold_order(entry: str) -> tuple:
    # casefolded first; ties in the plain order (what the sorted relation used to give)
    return entry.casefold(), entry


def _pack_text(project, module: str, kept: Optional[List[int]]) -> Optional[str]:
    """The packed text of a loaded module: whole (``kept`` None), or title plus kept units."""
    if kept is None:
        return project.text(module)
    parts = [project.title(module)] if project.title(module) else []
    parts += [project.unit_text(module, n) for n in sorted(kept)]
    return "\n\n".join(parts)
