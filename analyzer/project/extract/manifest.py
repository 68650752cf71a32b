"""manifest.md -> facts: the protocol block (§4.2), then routes and the optional index.

The extractors write what the manifest says as the neutral ``man_*`` facts of
facts/manifest_fields.dl (its protocol heading and metadata lines, how a version compares,
the optional index's lines and their parts); it evaluates rules/manifest/manifest.dl
over them (in the extraction's one judgement program, analyzer/project/extract/judge.py) and
writes its verdicts: the contract violations as ``manifest_error(ord, message)`` facts in the
order the reference checks them (lexical layer, protocol block, routes, optional index), each
with its line and an ``MC-ROUTING-007`` diagnostic; the lenient protocol version, the entry
schema and the ``module_*`` facts of the declarations that hold. Whether the violations make
routing INVALID is decided by rules too. The manifest is judged once, when it is extracted:
its facts are cached like every file's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List

from analyzer.project.extract import judge
from analyzer.project.extract.grammars import line_lexer, parser
from analyzer.project.extract.sink import Sink

if TYPE_CHECKING:  # the extraction's modules load with extract_manifest (a warm run needs ManifestInfo only)
    from analyzer.project.markdown import Lexed
from analyzer.core.numbers import shown as short, version_key

PROTOCOL_TITLE = "memorycustodian protocol"
META_RE = re.compile(r"^- ([A-Za-z_]+):(.*)$")
SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# raw substrings plain `check` looks for (§9.8.3 policy mentions, §9.8.5 optional folders,
# the metadata line's wording), compared case-sensitively as the reference does
MENTIONS = ("brief.md", "do-not-use.md", "archive/", "rules/", "profiles/", "areas/", "MemoryCustodian Protocol")
#: the relations the rules derive for the extractor (rules/manifest/*.dl)
MODULE_ROWS = ("man_module_legacy", "man_module_decl", "man_module_task", "man_module_glob", "man_module_description")


@dataclass
class ManifestInfo:
    """What other extractors need from the manifest."""

    version: str  # lenient protocol_version ("0.5" when absent)
    entry_schema: int  # 1 or 2, fail-closed selection (§4.2.1)
    project_id: str
    exact_07_valid: bool  # an exact, valid 0.7 contract (enables the local overlay, §11.5)


class Facts:
    """The neutral ``man_*`` facts of one manifest (relation -> set of tuples), as the
    extractors note them; :meth:`report` keeps a message the rules only pass on (the
    lexer's, the routes') in its place in the contract's order."""

    def __init__(self) -> None:
        self.rows: Dict[str, set] = {}
        self._reported = 0

    def add(self, relation: str, *values) -> None:
        """Note ``relation(values...)``."""
        found = self.rows.get(relation)
        if found is None:
            found = self.rows[relation] = set()
        found.add(values)

    def quote(self, value: str) -> None:
        """Note the quoted form of ``value`` (a message may quote it)."""
        self.add("man_quoted", value, repr(value))

    def report(self, stage: int, message: str, index: int = 0, col: int = 1) -> None:
        """Pass on ``message`` at 0-based line ``index`` (stage 1: the lexer's)."""
        self._reported += 1
        self.add("man_reported", stage, self._reported, index + 1, col, message)


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


def protocol_block(lexed: Lexed, facts: Facts, sink: Sink) -> Dict[str, str]:
    """Note the protocol headings, heading traces and the first protocol section's lines
    (``protocol_key`` facts: the first occurrence of each key); returns those keys."""
    sections = [h for h in lexed.headings if h.level == 2 and h.title == PROTOCOL_TITLE]
    for h in sections:
        facts.add("man_protocol_heading", h.index + 1)
    for i in _traces(lexed, include_indented=True):
        facts.add("man_protocol_trace", i + 1, int(lexed.indented[i]))
    if not sections:
        return {}
    head = lexed.headings.index(sections[0])
    keys: Dict[str, str] = {}
    for i in range(sections[0].index + 1, lexed.section_end(head)):
        line = lexed.lines[i]
        if not lexed.structural(i) or not line.strip():
            continue
        m = META_RE.match(line)
        if not m:
            facts.add("man_meta_other", i + 1, line.strip())
            facts.quote(line.strip())
            continue
        key, value = m.group(1), m.group(2).strip()
        facts.add("man_meta_line", i + 1, key, value)
        facts.quote(value)
        if key not in keys:
            keys[key] = value
            sink.fact("protocol_key", key, value, line=i + 1)
    return keys


def _version(value: str, facts: Facts, versions: tuple) -> None:
    """Note how the declared version compares with ``versions``, those the rules name."""
    facts.add("man_shown", value, short(value), short(value, quote=False))
    parsed = version_key(value)  # ASCII digits only; never int() of an unbounded string
    if parsed is None:
        return
    for other in versions:
        known = version_key(other)
        facts.add("man_version_order", value, other, (parsed > known) - (parsed < known))


def extract_manifest(text: str, sink: Sink) -> ManifestInfo:
    """Extract every manifest fact from ``text`` into ``sink`` and return the shared info."""
    from analyzer.project.extract import optional_index, routes
    from analyzer.project.markdown import lex

    lexed = lex(text)
    facts = Facts()
    for index, message in lexed.errors:
        facts.report(1, message, index)
    kinds = line_kinds(lexed)
    keys = protocol_block(lexed, facts, sink)
    section_line = next((h.index for h in lexed.headings if h.level == 2 and h.title == PROTOCOL_TITLE), 0)
    if "protocol_version" in keys:
        _version(keys["protocol_version"], facts, judge.entry_vocabulary("protocol_current"))
    routes.route_facts(lexed, facts)
    optional_index.index_facts(lexed, kinds, facts)
    return _verdicts(judge.evaluate(facts.rows), sink, section_line + 1, text, keys.get("project_id", ""))


def _verdicts(db, sink: Sink, section_line: int, text: str, project_id: str) -> ManifestInfo:
    """Write the verdicts of the manifest's rules (``db``, their evaluation) into ``sink``."""
    for ordinal, (*_, line, col, message) in enumerate(sorted(db.tuples("man_issue")), 1):
        sink.fact("manifest_error", ordinal, message, line=line, col=col)
        sink.diag("MC-ROUTING-007", message, line=line, col=col)
    (version,), = db.tuples("man_protocol_version")
    (schema,), = db.tuples("man_entry_schema")
    sink.fact("protocol_version", version, line=section_line)
    sink.fact("entry_schema", schema, line=section_line)
    for task, name, mode, ordinal, line, col in sorted(db.tuples("man_route"), key=lambda r: (r[4], r[5])):
        sink.fact("route", task, name, mode, ordinal, line=line, col=col)
    _modules(db, sink)
    for word in MENTIONS:
        if word in text:
            sink.fact("manifest_mentions", word, line=1)
    if text:
        sink.fact("manifest_nonempty", 1, line=1)
    return ManifestInfo(version, schema, project_id, bool(db.tuples("man_exact_valid")))


def _modules(db, sink: Sink) -> None:
    """Write the declared modules' facts (each relation's rows in path order, a module's
    tasks and globs in the order written; the rows' last column is their line)."""
    for relation in MODULE_ROWS:
        rows = db.tuples(relation)
        if relation == "man_module_task":  # (module, task, its place, line): the place orders only
            rows = [(m, t, line) for m, t, _, line in sorted(rows, key=lambda r: (r[0], r[2]))]
        elif relation == "man_module_glob":  # (module, glob, ord, line)
            rows = sorted(rows, key=lambda r: (r[0], r[2]))
        for row in sorted(rows) if relation not in ("man_module_task", "man_module_glob") else rows:
            sink.fact(relation[4:], *row[:-1], line=row[-1])
