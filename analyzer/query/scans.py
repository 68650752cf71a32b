"""The security, privacy and hidden-text scans of ``analyze check``: gathering their facts
from a loaded project, selecting their findings for ``check --all`` (families ``security``,
``privacy``, ``hidden-text``), and the lines of plain ``check`` (spec §9.8.6).

Mechanics only. analyzer/project/extract/secrets.py and analyzer/project/extract/hidden.py say which lines
match what; rules/check/scan.dl and rules/check/hidden.dl decide what counts, how severe it
is and which summary lines exist. No fact, finding or line made here holds matched text: a
line's text appears only as its redacted preview.

No check output prints a secret (issue 31, :func:`redact_result`): every text a check result
carries — finding messages of every family (the reference's own lines quote memory lines with
``repr()``), family lines, proof trees, the merge review's findings, notes and the error — has
the matches of the secret patterns (analyzer/project/extract/secrets.py ``SECRET_KINDS``) replaced by
``[redacted]`` once, before the result is cached or rendered. The scans' own findings carry
redacted previews already; this covers every other line that happens to hold a secret.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import os
from typing import Dict, Iterator, List, Optional, Tuple

from analyzer.contract.check_model import FamilyResult
from analyzer.contract.results import Finding, Location
from analyzer.project import facts_cache
from analyzer.project.extract import hidden, secrets

#: The relations plain ``check`` reads for its scan lines (evaluate them with the others).
SCAN_RELATIONS = ("scan_finding", "scan_summary", "scan_detail_list")
SECURITY_RELATIONS = ("scan_finding", "security_status")
PRIVACY_RELATIONS = ("scan_finding", "privacy_status")
HIDDEN_RELATIONS = ("hidden_finding", "hidden_status")
#: The base relations gathered here (for `analyze query`, `facts` and the check families).
GATHERED = ("scan_file", "secret_match", "scan_unread", "hidden_file", "hidden_text")

#: The command the summary lines' hints name (§9.8.6 names `memory-custodian`; the issue lets
#: us name ours).
HINT_COMMAND = "analyze"

#: Agent instruction files of the project root the hidden-text scan reads (besides every
#: managed memory file): single files, then folders whose files with these endings are read
#: at any depth (docs/decisions.md, "Agent instruction files").
AGENT_FILES = ("AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", ".cursorrules", ".windsurfrules",
               ".clinerules", ".github/copilot-instructions.md")
AGENT_FOLDERS = ((".cursor/rules", (".mdc", ".md")), (".github/instructions", (".instructions.md",)),
                 (".clinerules", (".md",)), (".windsurf/rules", (".md",)))


def gather(project) -> Dict[str, List[tuple]]:
    """The scan facts of a loaded project (analyzer/project/loader.py): every managed file in
    inventory order, then the overlay's declared modules, then the agent instruction files."""
    facts: Dict[str, List[tuple]] = {rel: [] for rel in GATHERED}
    sets = project.facts.relation_sets()
    memory = sorted(m for (m,) in sets.get("memory_file", ()))
    # the local manifest's modules (analyzer/project/extract/overlay.py declares them sorted)
    overlay = [f"local/{m}" for (m,) in sorted(sets.get("overlay_module", ()))]
    files = [(m, "memory") for m in memory] + [(m, "overlay") for m in overlay]
    stored = _Stored(project)
    for ord_, (name, origin) in enumerate(files, 1):
        facts["scan_file"].append((name, ord_, origin))
        facts["hidden_file"].append((name, origin))
        text, problem = _memory_text(project, name)
        if text is None:
            facts["scan_unread"].append((name, problem))
            continue
        matches, runs = stored.scanned(text)
        facts["secret_match"].extend((name, *found) for found in matches)
        facts["hidden_text"].extend((name, *found) for found in runs)
    for name, text, problem in agent_texts(project.root):
        facts["hidden_file"].append((name, "agent"))
        if text is None:
            facts["scan_unread"].append((name, problem))
        else:
            facts["hidden_text"].extend((name, *found) for found in hidden.scan_text(text))
    stored.store()
    return facts


class _Stored:
    """The scans of the texts a project's scanning read before, kept in the facts cache: on
    a warm ``check`` the scans were most of the CPU left to spend on unchanged files
    (docs/performance.md, "Warm check"). One entry per project (its root and memory dir)
    holds every scanned text's ``(secret matches, hidden runs)`` under the digest of the
    scanning code and that text, so a text is found by its content, never by its name or
    the entry's key; a cold run writes one file, not one per scanned file (creating ~30
    entry files and their folders was most of what the cache added to a cold check).
    Without the cache (``--no-cache``, an unusable cache directory) every text is scanned."""

    def __init__(self, project) -> None:
        version = facts_cache.extractor_version()  # covers analyzer/project/extract/{secrets,hidden}.py
        self.prefix = f"scans-2\0{version}\0".encode()
        # the real path: one relative root opened from two directories is two projects
        where = f"scan-bundle-2\0{version}\0{os.path.realpath(project.root)}\0{project.memory_dir}"
        self.key = hashlib.sha256(where.encode("utf-8", "surrogatepass")).hexdigest()
        self.found = facts_cache.FACTS.get_marshal(self.key, _valid) or {}
        self.used: Dict[str, tuple] = {}  # text digest -> scans, of this run's texts
        self.changed = False

    def scanned(self, text: str) -> Tuple[list, list]:
        """``(secret matches, hidden runs)`` of one file's text (:func:`secrets.scan_text`,
        :func:`hidden.scan_text`), stored or scanned now."""
        data = text.encode("utf-8", "surrogatepass")  # digested and scanned: encoded once
        h = hashlib.sha256(self.prefix)
        h.update(data)
        digest = h.hexdigest()
        found = self.found.get(digest)
        if found is None:
            found = (list(secrets.scan_text(text, data)), list(hidden.scan_text(text, data)))
            self.changed = True
        self.used[digest] = found
        return found

    def store(self) -> None:
        """Write the entry when a text was scanned now (it then holds this run's texts only)."""
        if self.changed:
            facts_cache.FACTS.put(self.key, marshal.dumps(self.used))


def _valid(value) -> bool:
    return isinstance(value, dict) and all(
        isinstance(digest, str) and isinstance(found, tuple) and len(found) == 2
        and all(isinstance(rows, list) for rows in found) for digest, found in value.items())


def _memory_text(project, module: str) -> Tuple[Optional[str], str]:
    """A managed file's text as the project read it; a README (which no extractor reads) is
    read here, safely (no symlink, the size cap, UTF-8)."""
    text = project.texts.get(module)
    if text is not None:
        return text, ""
    unusable = project.unusable.get(module)
    if unusable is not None:
        return None, unusable.message
    if module.startswith("local/"):
        # a module the overlay did not load (a REVIEW overlay: not private, say) is still
        # scanned, as the reference scans every declared module of a REVIEW overlay
        present = [d for d, state in project.facts.relation_sets().get("overlay_dir", ()) if state == "present"]
        if not present:
            return None, "declared local module is missing or unreadable"
        return _read(os.path.join(present[0], "local", module[len("local/"):]), module)
    return _read(os.path.join(project.root, project.memory_dir, module), module)


def _read(path: str, name: str) -> Tuple[Optional[str], str]:
    from analyzer.project import files

    data, error = files.read_bytes(path)
    if data is None:
        return None, error or "cannot read"
    text, problems = files.decode(name, data)
    if text is None:
        return None, problems[-1].message
    return text, ""


def agent_paths(root: str) -> List[str]:
    """The agent instruction files present under the project root, project-relative, sorted.
    Folders are walked without following symlinks; a symlinked file is listed (and read
    only if it stays inside the project)."""
    found = set()
    for name in AGENT_FILES:
        path = os.path.join(root, name)
        if os.path.lexists(path) and not os.path.isdir(path):
            found.add(name)
    for folder, endings in AGENT_FOLDERS:
        base = os.path.join(root, folder)
        if os.path.islink(base) or not os.path.isdir(base):
            continue
        for current, dirs, names in os.walk(base):  # os.walk does not follow symlinked dirs
            dirs.sort()
            for name in names:
                if name.endswith(endings):
                    found.add(os.path.relpath(os.path.join(current, name), root).replace(os.sep, "/"))
    return sorted(found)


def agent_texts(root: str) -> Iterator[Tuple[str, Optional[str], str]]:
    """``(path, text, problem)`` of each agent instruction file (text None when it could not
    be read: a symlink out of the project, not a regular file, unreadable, not UTF-8)."""
    real_root = os.path.realpath(root)
    for name in agent_paths(root):
        path = os.path.join(root, name)
        if os.path.islink(path):
            real = os.path.realpath(path)
            if real != real_root and not real.startswith(real_root + os.sep):
                yield name, None, "symlink points outside the project; not followed"
                continue
            path = real
        yield (name, *_read(path, name))


# ---- plain check (§9.8.6) ---------------------------------------------------------------


def _database(world):
    """The evaluated database of ``world``: a database itself (anything with ``relation``),
    or a loaded project, whose scan relations are then evaluated here."""
    if hasattr(world, "relation"):
        return world
    from analyzer.query.check import check_program
    from analyzer.query.program import extracted

    engine = check_program(True)
    facts = dict(world.facts.relation_sets())
    facts.update(gather(world))
    only = list(SCAN_RELATIONS)
    needed = engine.needed(only)
    supplied = {rel: rows for rel, rows in facts.items() if rel in needed}
    return engine.evaluate(supplied, only=only, checked=extracted(engine, supplied, world))


def scan_order(db) -> List[tuple]:
    """The rows of ``scan_finding`` in scan order: file order, line, the kind's table order."""
    return sorted(db.relation("scan_finding"), key=lambda f: (f[1], f[2], f[4]))


def legacy_scan_lines(world, *, security: bool, privacy: bool) -> Tuple[List[str], List[str], List[str]]:
    """``(issues, warnings, tail)`` of plain ``check``'s scans, exactly as §9.8.6 prints them
    (without the ``- `` of the issue and warning lists): the summary lines, or with
    ``security``/``privacy`` each finding's ``<loc>:<line>: <kind>: <preview>`` line and the
    ``Security findings: <n>`` / ``Privacy findings: <n>`` tail lines.

    ``world``: the check's evaluated database holding :data:`SCAN_RELATIONS` (with the facts
    of :func:`gather` supplied), or a loaded project (then evaluated here)."""
    db = _database(world)
    issues: List[str] = []
    warnings: List[str] = []
    tail: List[str] = []
    hint = f"run `{HINT_COMMAND} check --{{}}` for redacted locations"
    for list_, _, what, n in sorted(db.relation("scan_summary"), key=lambda s: s[1]):
        if what.startswith("security") and security or not what.startswith("security") and privacy:
            continue
        line = {
            "security-error": f"security scan: {n} error finding(s); " + hint.format("security"),
            "security-warning": f"security scan: {n} warning finding(s); " + hint.format("security"),
            "preferences-path": "preferences.md: contains a machine-specific absolute path; " + hint.format("privacy"),
            "privacy": f"privacy scan: {n} finding(s); " + hint.format("privacy"),
        }[what]
        (issues if list_ == "issue" else warnings).append(line)
    lists = dict(db.relation("scan_detail_list"))
    findings = scan_order(db)
    for category, wanted, label in (("security", security, "Security"), ("privacy", privacy, "Privacy")):
        if not wanted:
            continue
        mine = [f for f in findings if f[5] == category]
        for file, _, line, kind, _, _, severity, _, preview in mine:
            (issues if lists[severity] == "issue" else warnings).append(f"{file}:{line}: {kind}: {preview}")
        tail.append(f"{label} findings: {len(mine)}")
    return issues, warnings, tail


# ---- check --all families -----------------------------------------------------------------


def _location(project, file: str, line: int, col: int = 1) -> Location:
    """Where a scanned file's line is: project-relative for a managed file, ``local/<module>``
    (outside the project) for an overlay module, as written for an agent file."""
    if file.startswith("local/"):
        return Location(file, line, col)
    return Location(f"{project.memory_dir}/{file}", line, col)


def scan_family(category: str):
    """The ``select`` of the ``security`` or ``privacy`` family: one finding per scan finding
    of that category, in scan order, its message ``<kind>: <preview>``."""

    def select(db, locate) -> FamilyResult:
        findings = [Finding(code, category, f"{kind}: {preview}", severity=severity,
                                 locations=[_location(locate.project, file, line)])
                    for file, _, line, kind, _, cat, severity, code, preview in scan_order(db) if cat == category]
        (status, exit_code), = db.relation(f"{category}_status")
        return FamilyResult(category, "scan", status, exit_code, findings, [category])

    return select


def select_hidden(db, locate) -> FamilyResult:
    """The ``hidden-text`` family: one finding per run of hidden characters, by file, line, column."""
    rows = sorted(db.relation("hidden_finding"), key=lambda f: (f[0], f[2], f[3], f[4]))
    findings = []
    for file, origin, line, col, code, severity, message in rows:
        where = Location(file, line, col) if origin == "agent" else _location(locate.project, file, line, col)
        findings.append(Finding(code, "hidden-text", message, severity=severity, locations=[where]))
    (status, exit_code), = db.relation("hidden_status")
    return FamilyResult("hidden-text", "scan", status, exit_code, findings, ["hidden-text"])


def family_facts(request, project) -> Dict[str, List[tuple]]:
    """The facts a scan family needs gathered (``Family.facts``)."""
    return gather(project)


def scan_lines(family: FamilyResult) -> List[str]:
    """The text block of a scan family: ``MemoryCustodian <name> check: <status>`` then
    ``- <CODE> <SEVERITY>: <path>:<line>[:<col>]: <message>`` per finding."""
    lines = [f"MemoryCustodian {family.name} check: {family.shown_status or family.status}"]
    for f in family.findings:
        where = f.locations[0] if f.locations else None
        place = ""
        if where is not None:
            place = f"{where.path}:{where.line}:{where.col}: " if family.name == "hidden-text" else f"{where.path}:{where.line}: "
        lines.append(f"- {f.code} {f.severity}: {place}{f.message}")
    return lines if family.findings else lines + ["- no findings"]


def finding_rows(family: str, finding: Finding, db) -> List[Tuple[str, tuple]]:
    """The derived tuples a scan family's finding was selected from (for its proofs)."""
    where = finding.locations[0] if finding.locations else None
    if where is None:
        return []

    def at(file: str) -> bool:
        return where.path == file or where.path.endswith("/" + file)

    if family == "hidden-text":
        rows = [r for r in db.relation("hidden_finding")
                if r[4] == finding.code and (r[2], r[3]) == (where.line, where.col) and at(r[0])]
        return [("hidden_finding", r) for r in sorted(rows)]
    rows = [r for r in db.relation("scan_finding") if r[7] == finding.code and r[2] == where.line and at(r[0])]
    return [("scan_finding", r) for r in sorted(rows)]


# ---- read's pack ----------------------------------------------------------------------------


def protect_pack(result, project) -> List[str]:
    """Make ``read``'s pack safe to hand to an agent (docs/decisions.md, "Secrets and hidden
    text in read's pack"): in every section, the matches of the secret patterns become
    ``[redacted]`` and hidden characters are shown escaped (``\\u202e``). Returns one warning
    per line concerned, ``<path>:<line>[:<col>]: ...``, for stderr; the pack's other text is
    left as it is."""
    warnings: List[str] = []
    for section in list(result.sections) + list(result.local_sections):
        shown = secrets.hide_secrets(section.text)
        shown = hidden.escape(shown)
        if shown == section.text:
            continue
        name = section.title
        path = name if name.startswith("local/") else f"{project.memory_dir}/{name}"
        kept = set(section.text.splitlines())
        full = project.text(name) or section.text
        lines = full.splitlines()
        for number, kind, _ in secrets.scan_text(full):
            if kind in secrets.SECRET_KINDS and lines[number - 1] in kept:
                warnings.append(f"{path}:{number}: {kind}: a secret in loaded memory, shown as [redacted] in the "
                                f"pack; run `{HINT_COMMAND} check --all` for every finding")
        for number, col, kind, count, codes in hidden.scan_text(full):
            if lines[number - 1] in kept:
                warnings.append(f"{path}:{number}:{col}: {count} {kind} character(s) ({codes}) a reviewer cannot "
                                f"see, shown escaped in the pack")
        section.text = shown
    return warnings


def with_scans(facts: dict, project) -> dict:
    """``facts`` plus the scan relations (:data:`GATHERED`), gathered only when a goal reads
    one of them (``analyze query``'s world): previews only, as everywhere."""
    from functools import lru_cache

    from analyzer.query.world import LazyRows

    @lru_cache(maxsize=1)
    def gathered():
        return gather(project)

    out = dict(facts)
    for rel in GATHERED:
        out[rel] = LazyRows(lambda rel=rel: gathered()[rel])
    return out


# ---- the result cache (analyzer/query/check_cache.py) -----------------------------------------

#: The key of check_cache's probes under which a scan family's outside inputs are kept.
PROBE = "\0scans"


def outside_probe(project) -> str:
    """What the scans read outside the memory dir, as ``<overlay dir>\\0<digest>``: the agent
    instruction files (names, kinds, bytes) and the overlay directory (every path under it,
    its kind, mode and bytes). A cached result is reused only while this is unchanged."""
    present = [d for d, _ in project.facts.relation_sets().get("overlay_dir", ())]
    return probe_value(project.root, present[0] if present else "")


def probe_value(root: str, overlay: str) -> str:
    """:func:`outside_probe` from the project root and the overlay dir ("" when disabled)."""
    import hashlib
    import stat

    from analyzer.project import files

    h = hashlib.sha256()

    def add(path: str, name: str) -> None:
        try:
            info = os.lstat(path)
        except OSError:
            h.update(f"{name}\0missing\0".encode("utf-8", "surrogateescape"))
            return
        h.update(f"{name}\0{info.st_mode}\0".encode("utf-8", "surrogateescape"))
        if stat.S_ISLNK(info.st_mode):
            h.update(os.path.realpath(path).encode("utf-8", "surrogateescape"))
            path = os.path.realpath(path)
        data, error = files.read_bytes(path) if os.path.isfile(path) else (None, "")
        h.update(hashlib.sha256(data).digest() if data is not None else (error or "").encode())

    for name in agent_paths(root):
        add(os.path.join(root, name), name)
    if overlay:
        add(overlay, ".")
        for current, dirs, names in os.walk(overlay):
            dirs.sort()
            for name in sorted(dirs + names):
                add(os.path.join(current, name), os.path.relpath(os.path.join(current, name), overlay))
    return f"{overlay}\0{h.hexdigest()}"


def probe_still_valid(root: str, value: str) -> bool:
    """Whether the outside inputs :func:`outside_probe` recorded are unchanged."""
    overlay = value.split("\0", 1)[0]
    if overlay:
        from analyzer.project.extract.overlay import state_root

        if not overlay.startswith(os.path.join(state_root(), "")):
            return False  # another state home: another overlay
    return probe_value(root, overlay) == value


def _walk(value: Any) -> Any:
    """``value`` (JSON-like data, or dataclasses of it) with every string hidden."""
    if isinstance(value, str):
        return secrets.hide_secrets(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: _walk(getattr(value, f.name))
                                           for f in dataclasses.fields(value) if f.init})
    if isinstance(value, list):
        return [_walk(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_walk(v) for v in value)
    if isinstance(value, dict):
        return {k: _walk(v) for k, v in value.items()}
    return value


def redact_result(result) -> None:
    """Hide the secrets of a :class:`~analyzer.contract.check_model.CheckResult` in place."""
    for family in result.families:
        for finding in family.findings:
            finding.message = secrets.hide_secrets(finding.message)
            if finding.proofs:
                finding.proofs = _walk(finding.proofs)
        family.lines = [secrets.hide_secrets(line) for line in family.lines]
    merge = getattr(result, "merge", None)
    if getattr(merge, "findings", None):
        merge.findings = [dataclasses.replace(f, message=secrets.hide_secrets(f.message)) for f in merge.findings]
    result.notes = [secrets.hide_secrets(note) for note in result.notes]
    if result.failure is not None:
        result.failure = dataclasses.replace(result.failure, message=secrets.hide_secrets(result.failure.message))


def redacted(value: Any) -> Any:
    """A copy of ``value`` (a result dataclass such as read's ReadResult) with the secrets of
    every string it holds hidden."""
    return _walk(value)
