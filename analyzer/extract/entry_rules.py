"""Per-entry facts and the per-entry rejection rules of spec §5.12 (items 2-11).

Each rule looks at one entry only (its fields, its ID and the file holding it). Messages
start with the Entry ID as written, in the reference's words where the spec quotes them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import List

from analyzer.extract.grammars import terminal
from analyzer.extract.paths import split_source
from analyzer.extract.fields import ParsedEntry

SCALARS = ("Status", "Scope", "Subject", "Facet", "Supersedes", "Superseded-By", "Promoted-From", "Promoted-To",
           "Exception-To", "Candidate-Type", "Provisional-Subject", "Provisional-Facet")
TYPED = ("Decision", "Constraint", "Rejected", "Preference", "Rule", "Profile", "Statement")
BODIES = TYPED + ("Reason", "Promotion-Requirement")
KNOWN = set(SCALARS) | set(BODIES) | {"Evidence"}
_SCALAR_SET = frozenset(SCALARS)
RELATIONS = ("Supersedes", "Superseded-By", "Promoted-From", "Promoted-To", "Exception-To")
EXTRA = ("Candidate-Type", "Provisional-Subject", "Provisional-Facet")
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
    if top == "archive":
        return ("Decision", "Rule", "Profile")
    return ("Decision",)


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


def schema_issues(e: str, entry: ParsedEntry) -> List[str]:
    """Field-level issues (§5.12 items 4-6)."""
    out: List[str] = []
    for name, occs in entry.fields.items():
        if name not in KNOWN:
            out.append(f"{e} has unknown field {name}")
            continue
        if len(occs) > 1:
            out.append(f"{e} has duplicate {name} fields")
        if name in _SCALAR_SET:
            values = [o.value for o in occs]
            if not all(values):
                out.append(f"{e} has empty {name}")
            if True in [o.visible_body for o in occs]:
                out.append(f"{e} has a continuation line in scalar field {name}")
    for name in ("Status", "Scope", "Evidence"):
        if name not in entry.fields:
            out.append(f"{e} is missing {name}")
    if "Evidence" in entry.fields:
        if not entry.evidence:
            out.append(f"{e} has an empty Evidence list")
        elif any(not item for item, _ in entry.evidence):
            out.append(f"{e} has an empty Evidence item")
    status = entry.one("Status")
    if status and status not in STATUSES:
        out.append(f"{e} has invalid Status {status!r}")
    scope = entry.one("Scope")
    if scope and not terminal("entries", "SCOPE").fullmatch(scope):
        out.append(f"{e} has invalid Scope {scope!r}")
    return out


def body_issues(e: str, code: str, module: str, entry: ParsedEntry) -> List[str]:
    """Typed-body issues (§5.12 item 7)."""
    out: List[str] = []
    wanted = expected_bodies(code, module)
    present = [name for name in TYPED if name in entry.fields]
    for name in present:
        if name not in wanted:
            out.append(f"{e} uses {name} body but its Entry ID/storage requires {wanted[0]}")
    mine = [name for name in present if name in wanted]
    if not mine:
        out.append(f"{e} is missing its {wanted[0]} body")
    elif len(mine) > 1:
        out.append(f"{e} has more than one typed body")
    elif not entry.body_text(mine[0]).strip():
        out.append(f"{e} has an empty {mine[0]} body")
    return out


def lifecycle_issues(e: str, entry: ParsedEntry) -> List[str]:
    """Lifecycle contradictions and candidate field rules (§5.6, §5.12 item 8)."""
    out: List[str] = []
    status = entry.one("Status")
    has = {name: name in entry.fields for name in RELATIONS + EXTRA + ("Promotion-Requirement",)}
    if has["Superseded-By"] and has["Promoted-To"]:
        out.append(f"{e} cannot have both Superseded-By and Promoted-To")
    forbidden = {"active": ("Superseded-By", "Promoted-To"),
                 "candidate": ("Supersedes", "Superseded-By", "Promoted-From", "Promoted-To"),
                 "superseded": ("Promoted-To",), "promoted": ("Superseded-By",)}.get(status, ())
    out.extend(f"{status} entry {e} cannot have {name}" for name in forbidden if has[name])
    if status == "superseded" and not has["Superseded-By"]:
        out.append(f"superseded entry {e} requires Superseded-By")
    if status == "promoted" and not has["Promoted-To"]:
        out.append(f"promoted entry {e} requires Promoted-To")
    if status in ("candidate", "promoted"):
        if len(entry.fields.get("Candidate-Type", [])) != 1:
            out.append(f"{status} entry {e} requires exactly one Candidate-Type")
        if len(entry.fields.get("Promotion-Requirement", [])) != 1 or not entry.body_text("Promotion-Requirement"):
            out.append(f"{status} entry {e} requires exactly one non-empty Promotion-Requirement")
        if has["Provisional-Subject"] != has["Provisional-Facet"]:
            out.append(f"{e} must declare both Provisional-Subject and Provisional-Facet or neither")
    elif has["Candidate-Type"] and status:
        out.append(f"{status} entry {e} cannot have Candidate-Type")
    return out


def storage_issues(e: str, code: str, module: str, entry: ParsedEntry) -> List[str]:
    """ID/file/Scope storage rules (§5.9); not applied to archive/."""
    if module.split("/", 1)[0] == "archive":
        return []
    status, scope = entry.one("Status"), entry.one("Scope")
    lifecycle_candidate = status in ("candidate", "promoted")
    if module == "inbox.md":
        out = [] if code == "INBOX" else [f"{e}: Entry ID type {code} is not allowed in inbox.md"]
        if status and not lifecycle_candidate:
            out.append(f"{e}: inbox.md entries must have Status candidate or promoted")
        return out
    if code == "INBOX" or lifecycle_candidate:
        return [f"{e} must be stored in inbox.md"]
    parts = module.split("/")
    if module in PROJECT_FILES:
        allowed, want_scope = PROJECT_FILES[module], "project"
    elif len(parts) == 2 and parts[0] == "areas":
        allowed, want_scope = ("AREA", "CON", "PREF", "DNU"), f"area:{parts[1][:-3]}"
    elif len(parts) == 2 and parts[0] in ("rules", "profiles"):
        allowed, want_scope = ("AREA",), "project"
    else:
        return [f"{e}: formal entry is outside a canonical storage file"]
    out = []
    if code not in allowed:
        out.append(f"{e}: Entry ID type {code} is not allowed in {module}")
    if scope and scope != want_scope:
        out.append(f"{e}: Scope must be {want_scope} in {module}")
    return out


def evidence_issues(e: str, entry: ParsedEntry, kinds: List[str]) -> List[str]:
    """Evidence admissibility (§5.8, §5.12 item 10); the payload is never echoed."""
    status = entry.one("Status")
    candidate = status in ("candidate", "promoted")
    bad = "invalid" in kinds
    if candidate and "legacy-unverified" in kinds:
        bad = True
    if not candidate and kinds and all(k in CANDIDATE_ONLY for k in kinds):
        bad = True
    return [f"{e} has invalid Evidence schema or unsafe source path"] if bad else []


def emit_entry(sink, module: str, ordinal: int, heading, entry: ParsedEntry, line: int, prefix: str = "") -> None:
    """Emit the facts and issues of one formal entry (prefix "overlay_" for local modules)."""
    e = heading.group("id")
    eid = e.casefold()
    code = heading.group("code").upper()
    status, scope = entry.one("Status"), entry.one("Scope")
    sink.fact(prefix + "entry", eid, module, code, status, scope, line=line)
    for fence in entry.fences:
        sink.fact(prefix + "body_fence", module, fence + 1, line=fence + 1)
    kinds = [classify_evidence(item)[0] for item, _ in entry.evidence]
    issues = schema_issues(e, entry) + body_issues(e, code, module, entry) + lifecycle_issues(e, entry)
    if not prefix:
        sink.fact("entry_unit", eid, module, ordinal, line=line)
        sink.fact("entry_title", eid, heading.group("title"), line=line)
        sink.fact("entry_display", eid, e, line=line)
        _emit_fields(sink, eid, entry)
        issues += storage_issues(e, code, module, entry)
    else:
        issues += local_issues(e, code, module, entry)
    issues += evidence_issues(e, entry, kinds)
    for message in dict.fromkeys(issues):
        if prefix:
            sink.fact("overlay_issue", f"{module}: {message}", line=line)
        else:
            sink.fact("entry_issue", module, eid, message, line=line)
        sink.diag("MC-CONFLICT-007", message, line=line)
    if not prefix:
        _identity(sink, module, e, code, entry, line)


def _emit_fields(sink, eid: str, entry: ParsedEntry) -> None:
    for name in RELATIONS:
        for occ in entry.fields.get(name, []):
            if occ.value:
                sink.fact("entry_relation", eid, name, occ.value.casefold(), line=occ.line + 1)
    for name in EXTRA:
        for occ in entry.fields.get(name, []):
            sink.fact("entry_field", eid, name, occ.value, line=occ.line + 1)
    for occ in entry.fields.get("Subject", []):
        if occ.value:
            sink.fact("entry_subject", eid, occ.value.casefold(), line=occ.line + 1)
    for occ in entry.fields.get("Facet", []):
        if occ.value:
            sink.fact("entry_facet", eid, occ.value, line=occ.line + 1)
    for name in TYPED:
        if name in entry.fields and entry.body_text(name).strip():
            sink.fact("entry_body", eid, name, line=entry.fields[name][0].line + 1)
    for k, (item, line) in enumerate(entry.evidence, 1):
        sink.fact("entry_evidence", eid, item, k, line=line + 1, col=3)
        kind, path, rev = classify_evidence(item)
        sink.fact("evidence_source", eid, k, kind, path, rev, line=line + 1, col=3)


def _identity(sink, module: str, e: str, code: str, entry: ParsedEntry, line: int) -> None:
    """Structural identity (§5.6): reported separately, since only some analyses require it."""
    eid = e.casefold()
    facet = entry.one("Facet")
    if facet and facet not in FACETS:
        sink.fact("entry_identity_issue", module, eid, f"{e} has invalid Facet {facet!r}", line=line)
    if entry.one("Status") != "active" or code not in ("DEC", "CON", "DNU", "AREA"):
        return
    if module.split("/", 1)[0] in ("rules", "profiles"):
        return
    for name in ("Subject", "Facet"):
        if not entry.one(name):
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
