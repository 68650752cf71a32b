"""manifest.md -> facts: the protocol block (§4.2), then routes and the optional index.

Contract violations become ``manifest_error(ord, message)`` facts in the order the reference
checks them (lexical layer, protocol block, routes, optional index), each with its line,
plus an ``MC-ROUTING-007`` diagnostic. Whether they make routing INVALID is decided by rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Tuple

from analyzer.project.extract.grammars import line_lexer, parser
from analyzer.project.extract.sink import Sink

if TYPE_CHECKING:  # the extraction's modules load with extract_manifest (a warm run needs ManifestInfo only)
    from analyzer.project.markdown import Lexed
from analyzer.core.numbers import shown as short, version_key

PROTOCOL_TITLE = "memorycustodian protocol"
UUID4_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
META_RE = re.compile(r"^- ([A-Za-z_]+):(.*)$")
SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
MIGRATION_MESSAGE = (
    "Project uses Protocol 0.7 entry schema 1; migration to entry schema 2 is available. "
    "Run `memory-custodian migrate --apply` after reviewing the preview."
)
REQUIRED_07 = (
    ("protocol_version", "0.7"),
    ("entry_schema_version", "2"),
    ("subject_schema_version", "1"),
    ("subject_registry", "subjects.md"),
    ("routing_schema_version", "1"),
    ("conflict_schema_version", "1"),
    ("initialized_with", None),
    ("last_migrated_with", None),
    ("project_id", None),
    ("admission_policy", "evidence-required"),
    ("routing_policy", "explicit-task-and-scope"),
    ("conflict_policy", "canonical-subject-and-review"),
)
CURRENT = version_key("0.7")
# raw substrings plain `check` looks for (§9.8.3 policy mentions, §9.8.5 optional folders,
# the metadata line's wording), compared case-sensitively as the reference does
MENTIONS = ("brief.md", "do-not-use.md", "archive/", "rules/", "profiles/", "areas/", "MemoryCustodian Protocol")


@dataclass
class ManifestInfo:
    """What other extractors need from the manifest."""

    version: str  # lenient protocol_version ("0.5" when absent)
    entry_schema: int  # 1 or 2, fail-closed selection (§4.2.1)
    project_id: str
    exact_07_valid: bool  # an exact, valid 0.7 contract (enables the local overlay, §11.5)


class Errors:
    """Numbered manifest contract errors, in discovery order."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.count = 0
        self.migration = False  # the schema-1 migration notice is among the errors

    def add(self, message: str, index: int = 0, col: int = 1) -> None:
        """Record one contract violation at 0-based line ``index``."""
        self.count += 1
        self.sink.fact("manifest_error", self.count, message, line=index + 1, col=col)
        self.sink.diag("MC-ROUTING-007", message, line=index + 1, col=col)


def line_kinds(lexed: Lexed) -> Dict[int, str]:
    """Classify every structural line with grammar/manifest.lark: 0-based index -> kind."""
    lexer = line_lexer()
    if lexer is not None:
        # the grammar's line tokens, tried in its lexer's order: each non-empty structural
        # line is one token (its rule is `line: A | B...`, lines are separated by newlines)
        match, kinds = lexer[0].match, lexer[1]
        found: Dict[int, str] = {}
        for i, line in enumerate(lexed.lines):
            if line and lexed.structural(i):
                m = match(line)
                if m is None or m.end() != len(line):
                    break  # not one token: the parser decides
                found[i] = kinds[m.lastgroup]
        else:
            return found
    return parsed_line_kinds(lexed)


def parsed_line_kinds(lexed: Lexed) -> Dict[int, str]:
    """:func:`line_kinds` by the Lark parser of grammar/manifest.lark (imports Lark)."""
    text = "\n".join(line if lexed.structural(i) else "" for i, line in enumerate(lexed.lines))
    tree = parser("manifest", ("start", "paths_value")).parse(text, start="start")
    return {node.meta.line - 1: node.data for node in tree.children}


def _traces(lexed: Lexed, include_indented: bool) -> List[int]:
    """Lines that look like a protocol heading in any form (§4.2 'heading traces')."""
    out = []
    lines = lexed.lines
    for i, line in enumerate(lines):
        if not lexed.visible[i] or (lexed.indented[i] and not include_indented):
            continue
        stripped = line.strip()
        if stripped.startswith("#") and stripped.strip("#").strip().casefold() == PROTOCOL_TITLE:
            out.append(i)
        elif (stripped.casefold() == PROTOCOL_TITLE and i + 1 < len(lines) and lexed.visible[i + 1]
              and SETEXT_RE.match(lines[i + 1])):
            out.append(i)
    return out


def protocol_block(lexed: Lexed, sink: Sink, errors: Errors) -> Tuple[Dict[str, str], bool, bool]:
    """Read the protocol block; returns (keys, section present, scalars well formed)."""
    sections = [h for h in lexed.headings if h.level == 2 and h.title == PROTOCOL_TITLE]
    traces = _traces(lexed, include_indented=not sections)
    if not sections and not traces:
        return {}, False, True
    if len(sections) != 1 or len(traces) != 1:
        where = sections[1].index if len(sections) > 1 else (traces[-1] if traces else 0)
        errors.add("manifest.md must contain exactly one MemoryCustodian Protocol heading", where)
        if not sections:
            return {}, False, False
    head = lexed.headings.index(sections[0])
    keys: Dict[str, str] = {}
    well_formed = True
    for i in range(sections[0].index + 1, lexed.section_end(head)):
        line = lexed.lines[i]
        if not lexed.structural(i) or not line.strip():
            continue
        m = META_RE.match(line)
        if not m:
            well_formed = False
            errors.add(f"Malformed protocol metadata line: {line.strip()!r}", i)
            continue
        key, value = m.group(1), m.group(2).strip()
        if key in keys:
            well_formed = False
            errors.add(f"Duplicate protocol metadata field: {key}", i)
            continue
        keys[key] = value
        sink.fact("protocol_key", key, value, line=i + 1)
        if not value:
            well_formed = False
            errors.add(f"Protocol metadata field {key} must not be empty", i)
    return keys, True, well_formed


def protocol_contract(keys: Dict[str, str], section_line: int, errors: Errors) -> bool:
    """Check the 0.7 contract (§4.2 steps 2-4); True when an exact 0.7 contract holds."""
    if "protocol_version" not in keys:
        errors.add("Protocol metadata requires protocol_version", section_line)
        return False
    version = keys["protocol_version"]
    parsed = version_key(version)  # ASCII digits only; never int() of an unbounded string
    if parsed is None:
        errors.add(f"Protocol version {short(version)} is not a numeric version", section_line)
        return False
    if parsed > CURRENT:
        errors.add(f"Protocol version {short(version, quote=False)} is newer than this CLI supports (0.7)",
                   section_line)
        return False
    if parsed < CURRENT:
        return False
    if version != "0.7":
        errors.add(f"Protocol version {short(version)} must use the canonical value 0.7", section_line)
        return False
    ok = True
    for key, wanted in REQUIRED_07:
        have = keys.get(key)
        shown = repr(have) if have is not None else "none"
        if key == "entry_schema_version" and have == "1":
            # readable but not current (§4.2.1): a contract message, yet the project_id is
            # still usable for the local overlay outside --strict-routing (§8.6)
            errors.add(MIGRATION_MESSAGE, section_line)
            errors.migration = True
        elif key == "project_id":
            if not have or not UUID4_RE.match(have):
                errors.add(f"Protocol 0.7 requires project_id: a lowercase canonical UUIDv4; manifest has {shown}",
                           section_line)
                ok = False
        elif wanted is None:
            if not have:
                errors.add(f"Protocol 0.7 requires {key}: a non-empty value; manifest has {shown}", section_line)
                ok = False
        elif have != wanted:
            errors.add(f"Protocol 0.7 requires {key}: {wanted}; manifest has {shown}", section_line)
            ok = False
    return ok


def extract_manifest(text: str, sink: Sink) -> ManifestInfo:
    """Extract every manifest fact from ``text`` into ``sink`` and return the shared info."""
    from analyzer.project.extract import optional_index, routes
    from analyzer.project.markdown import lex

    lexed = lex(text)
    errors = Errors(sink)
    for index, message in lexed.errors:
        errors.add(message, index)
    kinds = line_kinds(lexed)
    keys, present, well_formed = protocol_block(lexed, sink, errors)
    section_line = next((h.index for h in lexed.headings if h.level == 2 and h.title == PROTOCOL_TITLE), 0)
    exact = protocol_contract(keys, section_line, errors) if present else False
    version = keys.get("protocol_version", "0.5") if present or keys else "0.5"
    sink.fact("protocol_version", version, line=section_line + 1)
    schema = 2 if (well_formed and version == "0.7" and keys.get("entry_schema_version") == "2") else 1
    sink.fact("entry_schema", schema, line=section_line + 1)
    routes.extract_routes(lexed, sink, errors)
    optional_index.extract_index(lexed, kinds, sink, errors, legacy=version != "0.7")
    for word in MENTIONS:
        if word in text:
            sink.fact("manifest_mentions", word, line=1)
    if text:
        sink.fact("manifest_nonempty", 1, line=1)
    exact_valid = exact and errors.count == (1 if errors.migration else 0)
    return ManifestInfo(version, schema, keys.get("project_id", ""), exact_valid)
