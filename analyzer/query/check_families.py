"""The check families: which derived relations each one selects, and how they become a
:class:`~analyzer.contract.check_model.FamilyResult` with a location for every line involved.

A family is a row of :data:`FAMILIES`. Rules decide everything (rules/check/*.dl: findings,
status word, exit status); a family only names the relations to evaluate, gathers any facts
the filesystem or Git must supply, and selects the derived tuples into the result model.

To add a family (for example the merge review of ``--merge-base``):

1. write its rules (a rule file per code family under rules/check/, included by
   rules/check/check.dl) deriving its findings and a status relation;
2. add a :class:`Family` here with ``relations`` (what ``Engine.evaluate(only=...)`` must
   compute), ``select`` (database and :class:`Locator` -> ``FamilyResult``), and ``facts``
   when it needs facts a request gathers (Git, path probes): a function of the
   :class:`~analyzer.query.check.CheckRequest` and the project returning ``{relation: rows}``;
3. give its ``FamilyResult.block`` a text renderer in analyzer/render/check_text.py
   (``BLOCKS``), or reuse "quality" / "conflicts";
4. name it in ``ORDER`` (analyzer/query/check_request.py; ``--all`` runs ORDER) and give it a CLI flag in
   analyzer/commands/check.py. Its JSON findings need no new shape: ``check.result`` holds
   every family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from analyzer.query import agents, scans
from analyzer.query import check_legacy
from analyzer.contract.check_model import FamilyResult
from analyzer.contract.results import Finding, Location
from analyzer.query.finding_entries import finding_entries
from analyzer.history.repofiles import list_files
from analyzer.query.check_request import ORDER


class Locator:
    """Maps what a finding is about (entries, Subjects, records, modules, manifest errors)
    to source locations, from the spans the extractors recorded. Only the relations a
    result needs are indexed, once."""

    def __init__(self, project) -> None:
        self.project = project
        self._index: Dict[str, Dict[str, List[Location]]] = {}

    def _by_first(self, relation: str) -> Dict[str, List[Location]]:
        if relation not in self._index:
            index: Dict[str, List[Location]] = {}
            for fact, span in self.project.facts.spans_of(relation).items():
                index.setdefault(str(fact[0]), []).append(Location(span.path, span.line, span.col))
            self._index[relation] = {k: sorted(set(v)) for k, v in index.items()}
        return self._index[relation]

    def entry(self, entry_id: str) -> List[Location]:
        """Every heading of an Entry ID (a duplicated ID has several)."""
        return self._by_first("entry_unit").get(entry_id.casefold(), [])

    def subject(self, subject_id: str) -> List[Location]:
        """Every heading of a Subject ID in subjects.md."""
        return self._by_first("subject_unit").get(subject_id.casefold(), [])

    def record(self, record_id: str) -> List[Location]:
        """Every heading of a reconciliation record ID."""
        return self._by_first("rec_unit").get(record_id.casefold(), [])

    def at(self, kind: str, ident: str) -> List[Location]:
        """The heading of what a finding is at (``*_finding_at``): an entry or a record."""
        return self.record(ident) if kind == "record" else self.entry(ident)

    def module(self, module: str) -> List[Location]:
        """A managed file (line 1); a file that does not exist, where the manifest names it
        (its optional-module declaration and route lines)."""
        if (module,) in self.project.facts.relation_sets().get("memory_file", ()):
            return [Location(f"{self.project.memory_dir}/{module}")]
        named = self._by_first("module_decl").get(module, []) + self._by_module_in_route().get(module, [])
        return sorted(set(named)) or [Location(f"{self.project.memory_dir}/manifest.md")]

    def _by_module_in_route(self) -> Dict[str, List[Location]]:
        if "route" not in self._index:
            index: Dict[str, List[Location]] = {}
            for fact, span in self.project.facts.spans_of("route").items():
                index.setdefault(str(fact[1]), []).append(Location(span.path, span.line, span.col))
            self._index["route"] = index
        return self._index["route"]

    def manifest_error(self, message: str) -> List[Location]:
        """The manifest line a contract error was found on (the manifest itself otherwise)."""
        lines = [Location(span.path, span.line, span.col)
                 for fact, span in self.project.facts.spans_of("manifest_error").items() if fact[1] == message]
        return sorted(set(lines))[:1] or self.module("manifest.md")


@dataclass(frozen=True)
class Family:
    """One check family: its name (the JSON key and the ``--<name>`` flag), the relations
    its selection reads, how to select them, and facts it needs gathered."""

    name: str
    relations: Tuple[str, ...]
    select: Callable[[object, Locator], FamilyResult]
    facts: Optional[Callable[[object, object], Dict[str, list]]] = None


def placed(finding: Finding, at: List[Tuple[str, str]], locate: Locator) -> Finding:
    """``finding`` located first at the heading of the entry or record it is at (the rules'
    ``*_finding_at``, the least in ID order when several), its other locations after it;
    a "file entry" is shown alone by the CI formats (:attr:`Finding.shown`)."""
    if not at:
        return finding
    kind, ident = min(at, key=lambda a: (a[1].casefold(), a[0]))
    first = locate.at(kind, ident)
    if not first:
        return finding
    finding.at = f"{'record' if kind == 'record' else 'entry'} {ident}"
    finding.locations = first + [l for l in finding.locations if l not in first]
    finding.shown = len(first) if kind == "file entry" else 0
    return finding


def _grouped(rows: Iterable[tuple]) -> Dict[Tuple[str, str], List[str]]:
    out: Dict[Tuple[str, str], List[str]] = {}
    for code, message, value in rows:
        out.setdefault((code, message), []).append(value)
    return out


def _quality(name: str, prefix: str, header: str, facts=None, about: Tuple[str, ...] = ("module",)) -> Family:
    """A quality check (§9): findings ``(code, severity, message)`` sorted by plain string
    order of (severity, code, message), the OK/FAILED status. ``about`` names the
    ``<prefix>_finding_<what>(code, message, value)`` relations the family derives (entry,
    subject, module): what each finding is about, to locate it."""
    relations = (f"{prefix}_finding", f"{prefix}_status") + tuple(f"{prefix}_finding_{a}" for a in about)

    def part(db, what: str):
        return _grouped(db.relation(f"{prefix}_finding_{what}")) if what in about else {}

    def select(db, locate: Locator) -> FamilyResult:
        entries, modules, subjects = part(db, "entry"), part(db, "module"), part(db, "subject")
        at: Dict[Tuple[str, str], List[Tuple[str, str]]] = {}
        if "at" in about:
            for code, message, kind, ident in db.relation(f"{prefix}_finding_at"):
                at.setdefault((code, message), []).append((kind, ident))
        findings = []
        for code, severity, message in sorted(db.relation(f"{prefix}_finding"), key=lambda f: (f[1], f[0], f[2])):
            key = (code, message)
            shown = sorted(set(entries.get(key, [])), key=str.casefold)
            where: List[Location] = []
            for entry in shown:
                where += locate.entry(entry)
            for subject in sorted(set(subjects.get(key, []))):
                where += locate.subject(subject)
            for module in sorted(set(modules.get(key, []))):
                where += locate.manifest_error(message) if module == "manifest.md" else locate.module(module)
            findings.append(placed(Finding(code, name, message, severity=severity, entries=shown,
                                                subject=",".join(sorted(set(subjects.get(key, [])))),
                                                locations=sorted(set(where))), at.get(key, []), locate))
        (status, exit_code), = db.relation(f"{prefix}_status")
        return FamilyResult(name, "quality", status, exit_code, findings, [header])

    return Family(name, relations, select, facts)


CONFLICT_RELATIONS = ("check_conflict_status", "check_conflict_finding", "check_contract_finding",
                      "conflict_finding_entry", "conflict_finding_occurrence", "conflict_finding_at",
                      "conflict_finding_scope", "record_issue", "ref_collision", "alias_collision")


def select_conflicts(db, locate: Locator, name: str = "conflicts") -> FamilyResult:
    """The current-worktree conflict block (§9.4): status, findings sorted by (code, subject,
    facet, scopes, entries), the contract finding alone when the manifest contract fails."""
    entries = finding_entries(db)
    scopes: Dict[str, List[Tuple[int, str]]] = {}
    for key, order, scope in db.relation("conflict_finding_scope"):
        scopes.setdefault(key, []).append((order, scope))
    records = {key: rid for key, rid, _ in db.relation("record_issue")}
    at: Dict[str, List[Tuple[str, str]]] = {}
    for key, kind, ident in db.relation("conflict_finding_at"):
        at.setdefault(key, []).append((kind, ident))
    subjects: Dict[str, List[str]] = {}
    for key, _, a, b in list(db.relation("ref_collision")) + list(db.relation("alias_collision")):
        subjects.setdefault(key, []).extend([a, b])
    findings, seen = [], set()
    for key, code, status, message, subject, facet in db.relation("check_conflict_finding"):
        shown = sorted(entries.get(key, []), key=str.casefold)
        scope_list = [s for _, s in sorted(set(scopes.get(key, [])))]
        ident = (code, status, message, tuple(shown), subject, facet, tuple(scope_list))
        if ident in seen:
            continue
        seen.add(ident)
        where: List[Location] = []
        for entry in shown:
            where += locate.entry(entry)
        for sid in sorted(set(subjects.get(key, []) + ([subject] if subject else []))):
            where += locate.subject(sid)
        if key in records:
            where += locate.record(records[key])
        if not where:
            where = locate.module("subjects.md" if code in ("MC-CONFLICT-003", "MC-CONFLICT-004", "MC-CONFLICT-010")
                                  else "reconciliations.md" if message.startswith("reconciliations.md") else "manifest.md")
        findings.append(placed(Finding(code, name, message, status=status, entries=shown, subject=subject,
                                            facet=facet, scopes=scope_list, locations=sorted(set(where))),
                               at.get(key, []), locate))
    findings.sort(key=lambda f: (f.code, f.subject, f.facet, f.scopes, f.entries))
    for code, message in sorted(db.relation("check_contract_finding")):
        findings.append(Finding(code, name, message, severity="ERROR", locations=locate.manifest_error(message)))
    (status, exit_code), = db.relation("check_conflict_status")
    return FamilyResult(name, "conflicts", status, exit_code, findings)


def _git_facts(request, project) -> Dict[str, list]:
    """Git HEAD, gathered only when some Evidence is pinned to a revision (§9.3)."""
    sets = project.facts.relation_sets()
    if not any(fact[4] for rel in ("evidence_source", "subject_evidence_source") for fact in sets.get(rel, ())):
        return {}
    from analyzer.history.git import head_commit

    ok, value = head_commit(str(request.project_root))
    return {"git_head": [(value,)]} if ok else {"git_unavailable": [(value,)]}


REPORT_RELATIONS = ("canonical_task_name", "report_route", "report_module", "report_glob", "report_glob_match",
                    "report_listing", "report_module_match", "report_edge", "report_entry")


def _repo_facts(request, project) -> Dict[str, list]:
    """The repository's files (``git ls-files``, else a safe walk) for the report's globs, as
    run_check listed them for its cache key."""
    if request.repo_files is None:
        request.repo_files = list_files(str(request.project_root))
    paths, source, complete = request.repo_files
    return {"repo_file": [(p,) for p in paths], "repo_listing": [(source, int(complete))]}


def select_report(db, locate: Locator) -> FamilyResult:
    """Not a check: the relations `analyze report` shows, sorted (analyzer/query/report.py);
    the entries by module, then entry, as the report lists them (sorted once, before the
    result is cached, not on every report)."""
    relations = {rel: sorted(db.relation(rel)) for rel in REPORT_RELATIONS if rel != "report_entry"}
    relations["report_entry"] = sorted(db.relation("report_entry"), key=lambda e: (e[1], e[0], e[2]))
    return FamilyResult("report", "report", "OK", 0, relations=relations)


FAMILIES: Dict[str, Family] = {
    "routing": _quality("routing", "routing", "routing"),
    "reachability": _quality("reachability", "reach", "reachability", about=("entry", "module")),
    "freshness": _quality("freshness", "fresh", "freshness", _git_facts, about=("entry", "subject", "module", "at")),
    "conflicts": Family("conflicts", CONFLICT_RELATIONS, select_conflicts),
    # the full legacy check (no family flag, spec §9.8): analyzer/query/check_legacy.py
    "legacy": Family("legacy", check_legacy.RELATIONS, check_legacy.select_legacy, check_legacy.legacy_facts),
    # the report's own relations; `analyze report` runs it with ORDER in one evaluation
    "report": Family("report", REPORT_RELATIONS, select_report, _repo_facts),
    # the scans of §9.8.6 and ours (analyzer/query/scans.py), each finding with its file:line
    "security": Family("security", scans.SECURITY_RELATIONS, scans.scan_family("security"), scans.family_facts),
    "privacy": Family("privacy", scans.PRIVACY_RELATIONS, scans.scan_family("privacy"), scans.family_facts),
    "hidden-text": Family("hidden-text", scans.HIDDEN_RELATIONS, scans.select_hidden, scans.family_facts),
    # agent instruction files (analyzer/query/agents.py, rules/agents/*.dl)
    "agents": Family("agents", agents.CHECK_RELATIONS, agents.select_agents, agents.family_facts),
}

# ORDER, the families `check --all` runs in block order, is analyzer/query/check_request.py's (a
# check answered from the result cache imports that module, not this one); imported above, so
# check_families.ORDER names it still
