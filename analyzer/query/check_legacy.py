"""Plain ``check`` (no family flag): the reference's full legacy check (spec §9.8).

rules/check/legacy.dl decides every line (``legacy_line``: issue or warning, pass, order
keys, our MA-LEGACY code, text). This module gathers the few facts outside the fact base
(optional folders that exist, agent entry files at the project root, the brief's scaffold
markers), puts the derived lines in the reference's order, renders the values the reference
shows with ``repr()``, and adds the security and privacy scans (pass 5, §9.8.6).

README files as plain `check` reads them (spec §9.8.4, §9.8.1): every other command leaves
README files alone (§2.1: documentation, never routed or parsed). The reference's legacy
check is the exception: its snapshot entry-parses every managed file but subjects.md and
reconciliations.md, READMEs included, so a README's malformed heading, a formal entry's
schema and storage lines, its legacy units and its budget are reported like any file's, and
an archive README's lexical error is the issue `<file>: Markdown entry parsing failed:
<error>` (other READMEs' lexical errors abort). :func:`readme_facts` extracts them with the
entry extractor, for the legacy family only; rules/check/legacy.dl decides what
they yield (``readme_entries`` marks them).
"""

from __future__ import annotations

import os
from typing import Dict, List, Tuple

from analyzer.contract.check_model import FamilyResult
from analyzer.contract.results import Failure, Finding, Location
from analyzer.core.diagnostics import Diagnostic
from analyzer.core.span import Span
from analyzer.contract.check_model import CheckResult
from analyzer.project.markdown import estimate_tokens, lex, split_units
from analyzer.query.scans import gather, legacy_scan_lines
from analyzer.project import files
from analyzer.project.extract.entries import extract_entries
from analyzer.project.extract.sink import Sink
from analyzer.query.check_request import AGENT_FILES, FOLDERS, read_text

RELATIONS = ("legacy_line", "legacy_line_entry", "legacy_line_module", "legacy_duplicate_id", "legacy_status",
             "legacy_abort", "scan_finding", "scan_summary", "scan_detail_list")
# the check families that gather the scan facts themselves
SCAN_FAMILIES = ("security", "privacy", "hidden-text")

# the `init` markers of a generated brief.md (§9.8.3)
BRIEF_MARKERS = (
    "TODO: Describe what this project does and who it serves.",
    "TODO: Describe the current product or engineering priorities.",
    "TODO: Name the runtime, architecture, and external boundaries that matter across tasks.",
    "This project uses MemoryCustodian to maintain local, plain-text project memory.",
)
# what an agent entry file must not hold (§9.8.5), matched as substrings
AGENT_MARKERS = ("# Decisions", "# Constraints", "# Do Not Use", "# Memory Inbox",
                 "@./docs/memory/", "@/docs/memory/", "@docs/memory/")
SCAN_CODES = ("MA-LEGACY-SECURITY", "MA-LEGACY-PRIVACY")


def legacy_facts(request, project) -> Dict[str, list]:
    """The facts plain `check` reads outside the extracted fact base: ``memory_folder``,
    ``agent_file``, ``text_marker`` (substrings found, never a decision) and the README
    files' entry facts (:func:`readme_facts`)."""
    root = str(request.project_root)
    memory = os.path.join(root, project.memory_dir)
    out: Dict[str, list] = {"memory_folder": [], "agent_file": [], "text_marker": [],
                            "route_resolves": _route_paths(project, memory), "inbox_h2": _inbox_h2(project)}
    for folder in FOLDERS:
        path = os.path.join(memory, folder)
        if os.path.isdir(path) and not os.path.islink(path):
            out["memory_folder"].append((folder,))
    brief = read_text(os.path.join(memory, "brief.md"))
    if brief and brief.strip():
        out["text_marker"] += [("brief.md", m) for m in BRIEF_MARKERS if m in brief]
    for name in AGENT_FILES:
        text = read_text(os.path.join(root, name))
        if text is None:
            continue
        out["agent_file"].append((name, estimate_tokens(text)))
        out["text_marker"] += [(name, m) for m in AGENT_MARKERS if m in text]
    out.update(readme_facts(request, project))  # READMEs are entry files here only (§9.8.4)
    if not set(request.families) & set(SCAN_FAMILIES):
        # pass 5's facts, evaluated with the rest (RELATIONS holds the scan relations): the
        # scan families gather the same facts when they run
        out.update(gather(project))
    return out


def _inbox_h2(project) -> List[tuple]:
    """``inbox_h2(ordinal, names_inbox_id, candidate_line)`` for each h2 unit of inbox.md:
    whether its heading names an MC-INBOX ID (any case, canonical heading or not) and whether
    it has a visible, non-indented line `Status: candidate` (any case); 1 or 0 each. The
    reference's inbox count reads the units so (§9.8.5); the rule decides what counts."""
    import re

    text = project.texts.get("inbox.md")
    if text is None:
        return []
    lexed = lex(text)
    out = []
    for ordinal, unit in enumerate(split_units(lexed).units, 1):
        if unit.kind != "h2":
            continue
        names = re.search(r"\bMC-INBOX-\d{8}-[0-9a-f]{8}\b", lexed.lines[unit.start], re.I) is not None
        candidate = any(lexed.visible[i] and not lexed.indented[i]
                        and re.fullmatch(r"Status:\s*candidate\s*", lexed.lines[i], re.I)
                        for i in range(unit.start + 1, min(unit.end + 1, len(lexed.lines))))
        out.append((ordinal, int(names), int(candidate)))
    return out


def _route_paths(project, memory: str) -> List[tuple]:
    """``route_resolves(name, state)`` for every route name of the manifest: "escapes" when
    the path, symlinks resolved (stat only, nothing is read), lies outside the memory dir,
    else "inside" (the reference resolves each route name so, §9.8.3)."""
    real = os.path.realpath(memory)
    names = {row[1] for row in project.facts.relation_sets(["route"]).get("route", ())}
    out = []
    for name in sorted(names):
        target = os.path.realpath(os.path.join(memory, name))
        inside = target == real or target.startswith(real.rstrip(os.sep) + os.sep)
        out.append((name, "inside" if inside else "escapes"))
    return out


def _text(text: str, quoted: str) -> str:
    """A line's text with ``{q}`` replaced by ``repr(quoted)`` (the reference's ``!r``)."""
    return text.replace("{q}", repr(quoted)) if "{q}" in text else text


def source_tuples(finding, db) -> List[Tuple[str, tuple]]:
    """The derived tuples a plain-check finding was selected from (for its proofs): its
    ``legacy_line`` rows, or the ``legacy_duplicate_id`` rows of a duplicate Entry ID line;
    none for a scan line (the scans are not rules yet)."""
    if finding.code == "MA-LEGACY-DUPLICATE-ID":
        ident = finding.message.split(" ")[3].casefold()
        return [("legacy_duplicate_id", row) for row in sorted(db.relation("legacy_duplicate_id")) if row[0] == ident]
    rows = [row for row in db.relation("legacy_line") if row[6] == finding.code and _text(row[7], row[8]) == finding.message]
    return [("legacy_line", row) for row in sorted(rows, key=_order)]


def _order(row) -> tuple:
    _kind, pas, module, o1, o2, key, _code, text, _quoted = row
    return (pas, module, o1, o2, text, key)


def select_legacy(db, locate) -> FamilyResult:
    """The plain check's lines in the reference's order: issues, then warnings (each list in
    pass order, §9.8.2), each a finding with its MA-LEGACY code and locations."""
    entries: Dict[str, List[str]] = {}
    for key, entry in db.relation("legacy_line_entry"):
        entries.setdefault(key, []).append(entry)
    modules: Dict[str, List[str]] = {}
    for key, module in db.relation("legacy_line_module"):
        modules.setdefault(key, []).append(module)
    rows = sorted(db.relation("legacy_line"), key=_order)
    rows += _duplicate_id_rows(db)
    findings: Dict[str, List[Finding]] = {"issue": [], "warning": []}
    for kind, _pas, _module, _o1, _o2, key, code, text, quoted in rows:
        message = _text(text, quoted)
        shown = sorted(set(entries.get(key, [])), key=str.casefold)
        where: List[Location] = []
        for entry in shown:
            where += locate.entry(entry)
        if not where:  # a line about entries points at them, not also at line 1 of their file
            for module in sorted(set(modules.get(key, []))):
                where += locate.module(module)
        findings[kind].append(Finding(code, "legacy", message, severity="ERROR" if kind == "issue" else "WARNING",
                                           entries=shown, locations=sorted(set(where)) or locate.module("manifest.md")))
    (status, exit_code), = db.relation("legacy_status")
    return FamilyResult("legacy", "legacy", status, exit_code, findings["issue"] + findings["warning"])


def _duplicate_id_rows(db) -> List[tuple]:
    """``duplicate Entry ID <ID> in: <file>, …`` per ID carried by several headings (README
    files aside), one path per occurrence, IDs in first-seen order (§9.8.5): always the last
    project-wide rule, so these rows follow every other pass-4 row."""
    spots: Dict[str, List[Tuple[str, int]]] = {}
    for ident, module, ordinal in db.relation("legacy_duplicate_id"):
        spots.setdefault(ident, []).append((module, ordinal))
    out = []
    for ident, where in sorted(spots.items(), key=lambda kv: min(kv[1])):
        where.sort()
        text = f"duplicate Entry ID {ident.upper()} in: {', '.join(m for m, _ in where)}"
        out.append(("issue", 4, "", 99, 0, text, "MA-LEGACY-DUPLICATE-ID", text, ""))
    return out


def aborted(db, project):
    """The error result of a plain check the reference aborts (§9.8.1: a Markdown lexical error
    in a managed file is `Error: …` on stderr, exit 2, nothing on stdout), or None. Each line
    names the file, line and column (``Error: <path>:<line>:<col>: <CODE> <message>``)."""
    modules = {m for (m,) in db.relation("legacy_abort")}
    if not modules:
        return None
    from analyzer.query.needed import error_line

    paths = {f"{project.memory_dir}/{m}" for m in modules}
    found = [d for d in project.diagnostics if d.span.path in paths and d.code in ("MA-MARKDOWN", "MC-ROUTING-007")]
    first: Dict[str, object] = {}
    for d in found:
        first.setdefault(d.span.path, d)
    lines = [first[p] for p in sorted(first)]
    if not lines:  # never without a diagnostic; still an error, never a clean check
        return CheckResult([], "INVALID", 2, failure=Failure(
            "MA-MARKDOWN", "Error: " + ", ".join(sorted(paths)) + ": Markdown lexical error", Span(sorted(paths)[0])))
    d = lines[0]
    return CheckResult([], "INVALID", 2, failure=Failure("MA-MARKDOWN", "\n".join(error_line(x) for x in lines), d.span,
                                                           diagnostics=lines))


def add_scans(family: FamilyResult, db, project, security: bool, privacy: bool) -> FamilyResult:
    """Pass 5 (§9.8.6): the security and privacy scans' issues, warnings and tail lines,
    always after every other line, read from ``db``, the check's one evaluation (the scan
    relations are among :data:`RELATIONS`). The scans belong to analyzer/query/scans.py."""
    issues, warnings, tail = legacy_scan_lines(db, security=security, privacy=privacy)
    where = [Location(f"{project.memory_dir}/manifest.md")]
    mine = [f for f in family.findings if f.severity == "ERROR"]
    theirs = [f for f in family.findings if f.severity != "ERROR"]
    mine += [Finding(SCAN_CODES[0], "legacy", m, severity="ERROR", locations=_scan_location(m, project, where))
             for m in issues]
    theirs += [Finding(_scan_code(m), "legacy", m, severity="WARNING",
                            locations=_scan_location(m, project, where)) for m in warnings]
    family.findings = mine + theirs
    family.lines = list(tail)
    if mine:
        family.status, family.exit_code = "FAILED", 1
    return family


def _scan_code(message: str) -> str:
    return SCAN_CODES[1] if ("privacy" in message or "machine-specific" in message
                             or any(k in message for k in (": machine-path:", ": personal-email:", ": phone-number:"))) \
        else SCAN_CODES[0]


def _scan_location(message: str, project, default: List[Location]) -> List[Location]:
    """``<loc>:<line>: <kind>: …`` locates itself; a summary line points at the manifest."""
    head = message.split(": ", 1)[0]
    path, _, line = head.rpartition(":")
    if path and line.isdigit() and not path.startswith("local/"):
        return [Location(f"{project.memory_dir}/{path}", int(line), 1)]
    return default


def readme_modules(project) -> List[str]:
    """The managed README files (any folder, any case), in path order."""
    rows = project.facts.relation_sets(["file_kind"]).get("file_kind", ())
    return sorted(m for m, kind in rows if kind == "readme")


def readme_facts(request, project) -> Dict[str, list]:
    """The entry facts of every readable README (the legacy family's extra facts), plus
    ``readme_entries(module)`` for each. A README that is a symlink, not a regular file, too
    large or not UTF-8 is left out, as for every other command."""
    out: Dict[str, list] = {"readme_entries": []}
    modules = readme_modules(project)
    if not modules:
        return out  # most projects: the extractor is not even imported (a warm run needs none)

    schema = _entry_schema(project)
    for module in modules:
        path = os.path.join(str(request.project_root), project.memory_dir, module)
        data, _error = files.read_bytes(path, files.SIZE_CAP)
        if data is None:
            continue
        text, problems = files.decode(module, data)
        if text is None or problems:
            continue
        sink = Sink(f"{project.memory_dir}/{module}")
        extract_entries(text, module, schema, sink, fast=False)
        out["readme_entries"].append((module,))
        for rel, (rows, _lines, _cols) in sink.columns.items():
            out.setdefault(rel, []).extend(rows)
        _keep_lexical_errors(project, sink, text)
    return out


def _keep_lexical_errors(project, sink, text: str) -> None:
    """A README's lexical errors join the project's diagnostics: the abort a non-archive
    README's error causes names its file, line and column (check_legacy.aborted)."""

    lines = text.splitlines()
    for code, message, line, col, _severity in sink.diagnostics:
        if code == "MA-MARKDOWN":
            source = lines[line - 1] if 0 < line <= len(lines) else None
            project.diagnostics.append(Diagnostic(Span(sink.path, line, col), code, message, source_line=source))


def _entry_schema(project) -> int:
    """The entry schema the manifest selects (§4.2.1), as the other files were decoded."""
    rows = project.facts.relation_sets(["entry_schema"]).get("entry_schema", ())
    return max((v for (v,) in rows), default=1)
