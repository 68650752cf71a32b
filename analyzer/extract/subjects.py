"""subjects.md -> Subject facts and per-unit registry issues (spec §6).

Collisions between Subjects (shared aliases, shared Canonical-Refs, duplicate IDs,
non-reciprocal merges) involve several units and are decided by rules from the facts.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Optional

from analyzer.extract.blocks import common_problems, read_blocks, report
from analyzer.extract.entry_rules import classify_evidence
from analyzer.extract.paths import safe_project_path
from analyzer.extract.sink import Sink

SCALARS = ("Status", "Kind", "Canonical-Ref", "Merged-Into")
BLOCKS = ("Aliases", "Evidence", "Merged-From")
KINDS = ("dependency", "repo-path", "area", "api", "service", "feature", "concept")
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_WS = re.compile(r"\s+")


def normalize_alias(text: str) -> str:
    """NFKC, casefold, whitespace runs collapsed, trimmed (§6.2)."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def normalize_ref(ref: str) -> Optional[str]:
    """A normalized Canonical-Ref (§6.2), or None when unsupported or invalid."""
    ref = unicodedata.normalize("NFKC", ref).strip()
    prefix, sep, rest = ref.partition(":")
    if not sep:
        return None
    if prefix == "dependency":
        eco, sep, name = rest.partition(":")
        if eco == "pypi" and sep:
            name = re.sub(r"[-_.]+", "-", name.casefold())
            return f"dependency:pypi:{name}" if _NAME.match(name) else None
        if eco == "npm" and sep:
            name = name.casefold()
            parts = name[1:].split("/", 1) if name.startswith("@") else [name]
            ok = all(_NAME.match(p) for p in parts) and (len(parts) == 2 or not name.startswith("@"))
            return f"dependency:npm:{name}" if ok else None
        return None
    if prefix == "repo-path":
        path = rest.replace("\\", "/")
        return f"repo-path:{path}" if safe_project_path(path) else None
    if prefix in ("area", "api", "service", "feature"):
        name = rest.casefold()
        return f"{prefix}:{name}" if _NAME.match(name) else None
    return None


def extract_subjects(text: str, module: str, sink: Sink) -> None:
    """Extract every Subject of ``subjects.md`` into ``sink``."""
    for block in read_blocks(text, module, sink, "subjects", "SUBJECT_HEADING", SCALARS, BLOCKS,
                             "registry_issue", "Subject"):
        shown = block.heading.group("id")
        sid = shown.casefold()
        title = block.heading.group("title")
        status, kind = block.one("Status"), block.one("Kind").strip().casefold()
        line = block.line
        sink.fact("subject", sid, status, kind, title, line=line)
        sink.fact("subject_unit", sid, block.ordinal, line=line)
        sink.fact("subject_display", sid, shown, line=line)
        problems = common_problems(block, ("Status", "Kind"), ("Evidence", "Aliases"))
        if status and status not in ("active", "merged"):
            problems.append((f"has invalid Status {status!r}", line))
        merged_into = block.one("Merged-Into")
        if status == "merged" and not merged_into:
            problems.append(("merged Subject requires Merged-Into", line))
        if status == "active" and "Merged-Into" in block.scalars:
            problems.append(("active Subject may not have Merged-Into", line))
        if status == "merged" and block.block_counts.get("Merged-From"):
            problems.append(("merged Subject may not have Merged-From", line))
        if kind and kind not in KINDS:
            problems.append((f"has invalid Kind {kind!r}", line))
        for alias in [title] + [v for v, _ in block.items.get("Aliases", []) if v]:
            sink.fact("subject_alias", sid, normalize_alias(alias), line=line)
        ref = block.one("Canonical-Ref")
        if ref:
            sink.fact("subject_ref_written", sid, ref, line=line)
            normalized = normalize_ref(ref)
            if normalized is None:
                problems.append((f"has unsupported or invalid Canonical-Ref {ref!r}", line))
            else:
                sink.fact("subject_canonical_ref", sid, normalized, line=line)
        if merged_into:
            sink.fact("subject_merged_into", sid, merged_into.casefold(), line=line)
        sources = [v.casefold() for v, _ in block.items.get("Merged-From", []) if v]
        if len(set(sources)) != len(sources):
            problems.append(("has duplicate Merged-From values", line))
        for source in sources:
            sink.fact("subject_merged_from", sid, source, line=line)
        evidence = [(v, ln) for v, ln in block.items.get("Evidence", []) if v]
        for k, (item, ln) in enumerate(evidence, 1):
            sink.fact("subject_evidence", sid, item, k, line=ln, col=3)
            kind, path, rev = classify_evidence(item)
            sink.fact("subject_evidence_source", sid, k, kind, path, rev, line=ln, col=3)
        kinds = [classify_evidence(item)[0] for item, _ in evidence]
        if any(k in ("invalid", "legacy-unverified", "agent-observed", "conversation-unconfirmed") for k in kinds):
            problems.append(("has invalid Evidence schema or unsafe source path", line))
        report(sink, "registry_issue", sid, shown, problems)
