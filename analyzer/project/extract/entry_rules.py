"""Per-entry facts and the per-entry rejection rules of spec §5.12 (items 2-11).

Each rule looks at one entry only (its fields, its ID and the file holding it). Messages
start with the Entry ID as written, in the reference's words where the spec quotes them.
"""

from __future__ import annotations

from functools import lru_cache
from sys import intern
from typing import List, Optional

from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.paths import split_source
from analyzer.project.extract.fields import ParsedEntry

SCALARS = ("Status", "Scope", "Subject", "Facet", "Supersedes", "Superseded-By", "Promoted-From", "Promoted-To",
           "Exception-To", "Candidate-Type", "Provisional-Subject", "Provisional-Facet")
TYPED = ("Decision", "Constraint", "Rejected", "Preference", "Rule", "Profile", "Statement")
BODIES = TYPED + ("Reason", "Promotion-Requirement")
KNOWN = set(SCALARS) | set(BODIES) | {"Evidence"}
_SCALAR_SET = frozenset(SCALARS)
_TYPED_SET = frozenset(TYPED)
RELATIONS = ("Supersedes", "Superseded-By", "Promoted-From", "Promoted-To", "Exception-To")
EXTRA = ("Candidate-Type", "Provisional-Subject", "Provisional-Facet")
_RELATIONS_SET = frozenset(RELATIONS)
_EXTRA_SET = frozenset(EXTRA)
_SCOPES_OK: set = set()  # Scope values the grammar's SCOPE pattern accepted (a pure function)
STATUSES = ("active", "candidate", "superseded", "promoted")
FACETS = ("adoption-policy", "version-policy", "architecture", "behavior", "compatibility", "security",
          "performance", "data-model", "interface", "workflow", "lifecycle")
CANDIDATE_ONLY = ("agent-observed", "conversation-unconfirmed")
BODY_OF = {"DEC": "Decision", "CON": "Constraint", "DNU": "Rejected", "TOMB": "Rejected", "PREF": "Preference",
           "INBOX": "Statement"}
PROJECT_FILES = {"decisions.md": ("DEC",), "constraints.md": ("CON",), "do-not-use.md": ("DNU", "TOMB"),
                 "preferences.md": ("PREF",)}


def expected_bodies(code: str, module: str) -> tuple:
    """The typed body an entry must carry, by its ID code and storage (§5.3)."""
    if code != "AREA":
        return (BODY_OF[code],)
    top = module.split("/", 1)[0]
    if top == "rules":
        return ("Rule",)
    if top == "profiles":
        return ("Profile",)
    return ("Decision",)  # areas/, archive/ and anywhere else (§9.8.4)


@lru_cache(maxsize=4096)
def classify_evidence(item: str):
    """(kind, path, rev) of an Evidence item (§5.8); kind "invalid" when it matches no form.

    A pure function of the text, memoized: the same few items (``user-confirmed``, a
    commonly cited file) recur on thousands of entries and subjects."""
    plain = terminal("entries", "EVIDENCE_PLAIN").fullmatch(item)
    if plain:
        return plain.group("plain"), "", ""
    if terminal("entries", "EVIDENCE_TRACKER").fullmatch(item):
        return item.split(":", 1)[0], "", ""
    source = terminal("entries", "EVIDENCE_SOURCE").fullmatch(item)
    if source:
        parsed = split_source(source.group("value"))
        if parsed:
            return source.group("kind"), parsed[0], parsed[1]
    return "invalid", "", ""


def _singles(fields) -> dict:
    """Each field's single value (fields that occur more than once are left out, as
    :meth:`ParsedEntry.one` reads them as "")."""
    return {name: occs[0].value for name, occs in fields.items() if len(occs) == 1}


def schema_issues(e: str, entry: ParsedEntry, one: Optional[dict] = None) -> List[str]:
    """Field-level issues (§5.12 items 4-6), worded and ordered as the reference's plain
    `check` prints them (§9.8.4): unknown fields, empty or continued scalars, the
    Status/Scope/Evidence counts, Evidence items, invalid Status/Scope, duplicate fields."""
    out: List[str] = []
    fields = entry.fields
    names = sorted(fields)
    out += [f"{e} has unknown field {name}" for name in names if name not in KNOWN]
    for name in names:
        if name in _SCALAR_SET:
            occs = fields[name]
            if not all([o.value for o in occs]):
                out.append(f"{e} {name} must not be empty")
            if True in [o.visible_body for o in occs]:
                out.append(f"{e} scalar field {name} has an unexpected visible continuation line")
    for name in ("Status", "Scope", "Evidence"):
        n = len(fields.get(name, ()))
        if n != 1:
            out.append(f"{e} must declare exactly one {name} field (found {n})")
    if len(fields.get("Evidence", ())) == 1:
        if not entry.evidence:
            out.append(f"{e} Evidence must contain at least one non-empty item")
        elif not all([item for item, _ in entry.evidence]):
            out.append(f"{e} Evidence must not contain empty items")
    status = _last(fields, "Status")
    if status and status not in STATUSES:
        out.append(f"{e} has invalid Status {status!r}")
    scope = _last(fields, "Scope")
    if scope and not scope_ok(scope):
        out.append(f"{e} has invalid Scope {scope!r}")
    out += [f"{e} has duplicate {name} fields" for name in names if len(fields[name]) > 1 and name in KNOWN]
    return out


def _last(fields, name: str) -> str:
    """The value a field's last occurrence gives (§5.4: the last one wins in the value map)."""
    occs = fields.get(name)
    return occs[-1].value if occs else ""


def scope_ok(scope: str) -> bool:
    """Whether ``scope`` follows the Scope grammar (§5.7)."""
    if scope in _SCOPES_OK:
        return True
    if terminal("entries", "SCOPE").fullmatch(scope):
        _SCOPES_OK.add(scope)
        return True
    return False


def body_issues(e: str, code: str, module: str, entry: ParsedEntry) -> List[str]:
    """Typed-body issues (§5.12 item 7, worded as §9.8.4): the expected body once and
    non-empty, no other typed body (sorted)."""
    out: List[str] = []
    wanted = expected_bodies(code, module)
    fields = entry.fields
    mine = [name for name in fields if name in wanted]
    found = sum(len(fields[name]) for name in mine)
    if found != 1:
        out.append(f"{e} must declare exactly one {wanted[0]} typed body (found {found})")
    elif not entry.body_text(mine[0]).strip():
        out.append(f"{e} has an empty {mine[0]} typed body")
    others = sorted(name for name in fields if name in _TYPED_SET and name not in wanted)
    out += [f"{e} uses {name} body but its Entry ID/storage requires {wanted[0]}" for name in others]
    return out


def lifecycle_issues(e: str, entry: ParsedEntry, one: Optional[dict] = None) -> List[str]:
    """Lifecycle contradictions and candidate field rules (§5.6, §5.12 item 8), in the
    order and words of §9.8.4."""
    out: List[str] = []
    fields = entry.fields
    status = _last(fields, "Status")
    terminal_by, promoted_to = "Superseded-By" in fields, "Promoted-To" in fields
    if terminal_by and promoted_to:
        out.append(f"{e} cannot declare both Superseded-By and Promoted-To")
    if status == "active" and (terminal_by or promoted_to):
        out.append(f"{e} active lifecycle conflicts with terminal relation fields")
    if status == "candidate" and any(name in fields for name in RELATIONS[:4]):
        out.append(f"{e} candidate lifecycle cannot declare transition relations")
    if status == "superseded" and promoted_to:
        out.append(f"{e} superseded lifecycle cannot declare Promoted-To")
    if status == "promoted" and terminal_by:
        out.append(f"{e} promoted lifecycle cannot declare Superseded-By")
    if status == "superseded" and not terminal_by:
        out.append(f"{e} superseded entry has no Superseded-By")
    if status == "promoted" and not promoted_to:
        out.append(f"{e} promoted entry has no Promoted-To")
    if status in ("candidate", "promoted"):
        if ("Provisional-Subject" in fields) != ("Provisional-Facet" in fields):
            out.append(f"{e} must declare Provisional-Subject and Provisional-Facet together")
        n = len(fields.get("Candidate-Type", ()))
        if n != 1:
            out.append(f"{e} must declare exactly one Candidate-Type field (found {n})")
        n = len(fields.get("Promotion-Requirement", ()))
        if n != 1:
            out.append(f"{e} must declare exactly one Promotion-Requirement field (found {n})")
        elif not entry.body_text("Promotion-Requirement").strip():
            out.append(f"{e} has an empty Promotion-Requirement body")
    elif "Candidate-Type" in fields:
        out.append(f"{e} non-candidate lifecycle cannot declare Candidate-Type")
    return out


def _values(entry: ParsedEntry) -> dict:
    """Each field's value as the reference's value map holds it (the last occurrence wins)."""
    return {name: occs[-1].value for name, occs in entry.fields.items() if occs}


@lru_cache(maxsize=1024)
def _storage(module: str) -> tuple:
    """Where ``module`` stores entries (§5.9): ("archive",), ("inbox",), ("outside",),
    ("area-path",) for a nested areas/ path, or (kind, allowed ID codes, the Scope it
    requires, the message's location word). Computed once per file."""
    parts = module.split("/")
    if parts[0] == "archive":
        return ("archive",)
    if module == "inbox.md":
        return ("inbox",)
    if module in PROJECT_FILES:
        return ("project", PROJECT_FILES[module], "project", "")
    if parts[0] == "areas" and len(parts) > 1:
        if len(parts) > 2:
            return ("area-path",)
        return ("area", ("AREA", "CON", "PREF", "DNU"), f"area:{parts[1][:-3]}", "area ")
    if parts[0] in ("rules", "profiles") and len(parts) > 1:
        return (parts[0][:-1], ("AREA",), "project", parts[0][:-1] + " ")
    return ("outside",)


def storage_issues(e: str, code: str, module: str, entry: Optional[ParsedEntry], one: Optional[dict] = None
                   ) -> List[str]:
    """ID/file/Scope storage rules (§5.9, worded as §9.8.4); not applied to archive/.
    ``one``: the field values (the last occurrence of each), read from ``entry`` when None."""
    where = _storage(module)
    if where[0] == "archive":
        return []
    one = _values(entry) if one is None else one
    status, scope = one.get("Status", ""), one.get("Scope", "")
    lifecycle_candidate = status in ("candidate", "promoted")
    if where[0] == "inbox":
        out = [] if code == "INBOX" else [f"{e} type does not match its storage location"]
        if not lifecycle_candidate:
            out.append(f"{e} has Status {status!r}; inbox entries must be candidate or promoted")
        return out
    if code == "INBOX":
        return [f"{e} must be stored in inbox.md"]
    if lifecycle_candidate:
        return [f"{e} {status} Entry must be stored in inbox.md"]
    if where[0] == "outside":
        return [f"{e} formal entry is outside a canonical storage file"]
    if where[0] == "area-path":
        return [f"{e} has a non-canonical area storage path"]
    kind, allowed, want_scope, word = where
    out = []
    if code not in allowed:
        out.append(f"{e} type does not match its {word}storage location")
    if scope != want_scope:
        if kind == "area":
            out.append(f"{e} must use Scope: {want_scope} for {module}")
        else:
            out.append(f"{e} {kind} storage requires Scope: project")
    return out


def evidence_issues(e: str, entry: Optional[ParsedEntry], kinds: List[str], one: Optional[dict] = None
                    ) -> List[str]:
    """Evidence admissibility (§5.8, §5.12 item 10): candidate/promoted entries may cite
    candidate-only items but not `legacy-unverified`, other statuses the reverse (one
    candidate-only item fails). The payload is never echoed."""
    status = (_values(entry) if one is None else one).get("Status", "")
    candidate = status in ("candidate", "promoted")
    bad = "invalid" in kinds
    if candidate and "legacy-unverified" in kinds:
        bad = True
    if not candidate and any(k in CANDIDATE_ONLY for k in kinds):
        bad = True
    return [f"{e} has invalid Evidence schema or unsafe source path"] if bad else []


def emit_entry(sink, module: str, ordinal: int, heading, entry: ParsedEntry, line: int, prefix: str = "") -> None:
    """Emit the facts and issues of one formal entry (prefix "overlay_" for local modules)."""
    e, code, title = heading.group("id", "code", "title")
    eid = e.casefold()
    code = code.upper()
    one = _singles(entry.fields)
    status, scope = one.get("Status", ""), one.get("Scope", "")
    values = _values(entry)
    add = sink.row  # positional: no keyword or *values packing per fact
    add(prefix + "entry", (eid, module, intern(code), intern(status), intern(scope)), line, 1)
    for fence in entry.fences:
        add(prefix + "body_fence", (module, fence + 1), fence + 1, 1)
    kinds = [classify_evidence(item)[0] for item, _ in entry.evidence]
    issues = schema_issues(e, entry, one) + body_issues(e, code, module, entry) + lifecycle_issues(e, entry, one)
    if not prefix:
        add("entry_unit", (eid, module, ordinal), line, 1)
        add("entry_title", (eid, title), line, 1)
        add("entry_display", (eid, e), line, 1)
        _emit_fields(add, eid, entry)
        issues += storage_issues(e, code, module, entry, values)
    else:
        issues += local_issues(e, code, module, entry)
    issues += evidence_issues(e, entry, kinds, values)
    if issues:
        for message in dict.fromkeys(issues):
            if prefix:
                sink.fact("overlay_issue", f"{module}: {message}", line=line)
            else:
                add_issue(sink, module, eid, message, line)
            sink.diag("MC-CONFLICT-007", message, line=line)
    if not prefix:
        _identity(sink, module, e, code, one, line)


def add_issue(sink, module: str, eid: str, message: str, line: int) -> None:
    """An ``entry_issue`` fact and its ``entry_issue_rank``: the position among the file's
    issues in the order they were found (plain `check` prints them in that order, §9.8.4)."""
    rank = len(sink.rel("entry_issue")[0])
    sink.fact("entry_issue", module, eid, message, line=line)
    sink.fact("entry_issue_rank", module, message, rank, line=line)


def _emit_fields(add, eid: str, entry: ParsedEntry) -> None:
    fields = entry.fields
    if _RELATIONS_SET.intersection(fields):
        for name in RELATIONS:
            for occ in fields.get(name, ()):
                if occ.value:
                    add("entry_relation", (eid, name, occ.value.casefold()), occ.line + 1, 1)
    if _EXTRA_SET.intersection(fields):
        for name in EXTRA:
            for occ in fields.get(name, ()):
                add("entry_field", (eid, name, occ.value), occ.line + 1, 1)
    for occ in fields.get("Subject", ()):
        if occ.value:
            add("entry_subject", (eid, intern(occ.value.casefold())), occ.line + 1, 1)
            add("entry_field", (eid, "Subject", occ.value), occ.line + 1, 1)
    for occ in fields.get("Facet", ()):
        if occ.value:
            add("entry_facet", (eid, intern(occ.value)), occ.line + 1, 1)
    present = [name for name in fields if name in _TYPED_SET]
    if len(present) > 1:
        present.sort(key=TYPED.index)
    for name in present:
        if entry.body_text(name).strip():
            add("entry_body", (eid, intern(name)), fields[name][0].line + 1, 1)
    for k, (item, line) in enumerate(entry.evidence, 1):
        add("entry_evidence", (eid, item, k), line + 1, 3)
        kind, path, rev = classify_evidence(item)
        add("evidence_source", (eid, k, kind, path, rev), line + 1, 3)


def needs_identity(code: str, module: str) -> bool:
    """Whether an active entry of this ID code in this module must declare Subject and Facet
    (§5.6: structural entries, outside rules/ and profiles/)."""
    return code in ("DEC", "CON", "DNU", "AREA") and module.split("/", 1)[0] not in ("rules", "profiles")


def _identity(sink, module: str, e: str, code: str, one: dict, line: int) -> None:
    """Structural identity (§5.6): reported separately, since only some analyses require it."""
    eid = e.casefold()
    facet = one.get("Facet", "")
    if facet and facet not in FACETS:
        sink.fact("entry_identity_issue", module, eid, f"{e} has invalid Facet {facet!r}", line=line)
    if one.get("Status") != "active" or not needs_identity(code, module):
        return
    for name in ("Subject", "Facet"):
        if not one.get(name):
            sink.fact("entry_identity_issue", module, eid,
                      f"active structural Entry {e} must declare a non-empty {name}", line=line)


def local_issues(e: str, code: str, module: str, entry: ParsedEntry) -> List[str]:
    """Local overlay module rules (§11.4): type by file, local Scope, active only, no relations."""
    out: List[str] = []
    wanted = "PREF" if module == "preferences.md" else "AREA"
    if code != wanted:
        out.append(f"{e}: Entry ID type {code} is not allowed in local {module}")
    if entry.one("Scope") not in ("local-user", "local-machine"):
        out.append(f"{e}: local Scope must be local-user or local-machine")
    if entry.one("Status") != "active":
        out.append(f"{e}: local entries must be active")
    out.extend(f"{e}: local entries may not have {name}" for name in RELATIONS if name in entry.fields)
    return out
