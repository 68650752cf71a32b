"""subjects.md -> Subject facts and per-unit registry issues (spec §6).

Collisions between Subjects (shared aliases, shared Canonical-Refs, duplicate IDs,
non-reciprocal merges) involve several units and are decided by rules from the facts.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from sys import intern
from typing import List, Optional, Tuple

from analyzer.project.extract.blocks import Block, BlockReader, common_problems, read_blocks, report
from analyzer.project.extract.entry_rules import classify_evidence
from analyzer.project.extract.judge import entry_vocabulary
from analyzer.project.extract.paths import safe_project_path
from analyzer.project.extract.sink import Sink

SCALARS = ("Status", "Kind", "Canonical-Ref", "Merged-Into")
BLOCKS = ("Aliases", "Evidence", "Merged-From")
KINDS = ("dependency", "repo-path", "area", "api", "service", "feature", "concept")
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


def normalize_alias(text: str) -> str:
    """NFKC, casefold, whitespace runs collapsed, trimmed (§6.2)."""
    # str.split() splits at the characters \s matches (Py_UNICODE_ISSPACE): the same as
    # collapsing \s+ runs to one space and trimming. NFKC leaves ASCII as it is, and ASCII
    # case folds to lower case: most aliases are ASCII, and normalizing cost half the call
    if text.isascii():
        return " ".join(text.lower().split())
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


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


@lru_cache(maxsize=None)
def reader() -> BlockReader:
    """How subjects.md's h2 units are read (built once)."""
    return BlockReader("subjects", "SUBJECT_HEADING", SCALARS, BLOCKS, "registry_issue", "Subject")


def extract_subjects(text: str, module: str, sink: Sink, fast: bool = True) -> None:
    """Extract every Subject of ``subjects.md`` into ``sink`` (``fast``: as in
    :func:`analyzer.project.extract.entries.extract_entries`)."""
    from analyzer.project.extract import fast_subjects

    if fast and fast_subjects.subjects(text, module, sink):
        return
    for block in read_blocks(text, module, sink, reader()):
        emit_block(sink, block)


def emit_block(sink: Sink, block: Block) -> None:
    """Emit one Subject read by the general reader, with every problem its fields have."""
    emit_subject(sink, block, common_problems(block, ("Status", "Kind"), ("Evidence", "Aliases")))


@lru_cache(maxsize=None)
def bad_evidence() -> frozenset:
    """The Evidence kinds a Subject may not cite (§6.1): an invalid item, legacy-unverified,
    and the candidate-only kinds (rules/entries/fields.dl)."""
    return frozenset(("invalid", "legacy-unverified") + entry_vocabulary("candidate_only_evidence"))


def emit_subject(sink: Sink, block: Block, problems: List[Tuple[str, int]]) -> None:
    """Emit the facts and issues of one Subject; ``problems`` are those of
    :func:`~analyzer.project.extract.blocks.common_problems` (the checks below add theirs)."""
    shown, title = block.heading.group("id", "title")
    sid = intern(shown.casefold())
    # each scalar's single value (Block.one: "" when absent or repeated)
    one = {name: values[0] for name, values in block.scalars.items() if len(values) == 1}
    status, kind = one.get("Status", ""), one.get("Kind", "").strip().casefold()
    line = block.line
    add = sink.row  # positional: no keyword or *values packing per fact
    add("subject", (sid, intern(status), intern(kind), title), line, 1)
    add("subject_unit", (sid, block.ordinal), line, 1)
    add("subject_display", (sid, shown), line, 1)
    merged_into = one.get("Merged-Into", "")
    if status != "active":
        if status and status != "merged":
            problems.append((f"has invalid Status {status!r}", line))
        if status == "merged" and not merged_into:
            problems.append(("merged Subject requires Merged-Into", line))
    elif "Merged-Into" in block.scalars:
        problems.append(("active Subject may not have Merged-Into", line))
    if status == "merged" and block.block_counts.get("Merged-From"):
        problems.append(("merged Subject may not have Merged-From", line))
    if kind and kind not in KINDS:
        problems.append((f"has invalid Kind {kind!r}", line))
    items = block.items
    add("subject_alias", (sid, normalize_alias(title)), line, 1)
    for alias, _ in items.get("Aliases", ()):
        if alias:
            add("subject_alias", (sid, normalize_alias(alias)), line, 1)
    ref = one.get("Canonical-Ref", "")
    if ref:
        add("subject_ref_written", (sid, ref), line, 1)
        normalized = normalize_ref(ref)
        if normalized is None:
            problems.append((f"has unsupported or invalid Canonical-Ref {ref!r}", line))
        else:
            add("subject_canonical_ref", (sid, normalized), line, 1)
    if merged_into:
        add("subject_merged_into", (sid, merged_into.casefold()), line, 1)
    if "Merged-From" in items:
        sources = [v.casefold() for v, _ in items["Merged-From"] if v]
        if len(set(sources)) != len(sources):
            problems.append(("has duplicate Merged-From values", line))
        for source in sources:
            add("subject_merged_from", (sid, source), line, 1)
    bad = False
    k = 0
    for item, ln in items.get("Evidence", ()):
        if item:
            k += 1
            add("subject_evidence", (sid, item, k), ln, 3)
            kind, path, rev = classify_evidence(item)
            add("subject_evidence_source", (sid, k, kind, path, rev), ln, 3)
            bad = bad or kind in bad_evidence()
    if bad:
        problems.append(("has invalid Evidence schema or unsafe source path", line))
    if problems:
        report(sink, "registry_issue", sid, shown, problems)
