"""Entry files and prose files -> unit facts, entry facts and entry issues (spec §3.1, §5).

Every non-special managed file (decisions, constraints, do-not-use, preferences, inbox,
rules/profiles/areas modules, archive, brief, changelog, ...) is split into units; every h2
unit with a canonical Entry heading is parsed into fields (:mod:`analyzer.extract.fields`)
and validated per entry (:mod:`analyzer.extract.entry_rules`). Cross-entry questions
(relations, duplicate IDs, conflicts) are left to rules.
"""

from __future__ import annotations

from analyzer.extract import entry_rules
from analyzer.extract.fields import parse_fields
from analyzer.extract.grammars import terminal
from analyzer.extract.sink import Sink
from analyzer.markdown import TOKEN_RE, lex, split_units


def _tokens(text: str) -> int:
    return len(TOKEN_RE.findall(text))


def emit_units(doc, module: str, sink: Sink, unit_tokens) -> None:
    """Record the unit ranges and the title/file token facts of a split document.

    The file's token count is the title's plus every unit's (``unit_tokens``, in unit
    order): no token contains whitespace, so none spans a line break, and the units cover
    every line after the title except blank ones. Counting the file again cost as much as
    counting every unit.
    """
    sink.units = [(u.start, u.end) for u in doc.units]
    sink.has_title = doc.title is not None
    title = _tokens(doc.title) if doc.title else 0
    sink.fact("title_tokens", module, title, line=1)
    sink.fact("file_tokens", module, title + sum(unit_tokens), line=1)


def markdown_errors(lexed, module: str, sink: Sink, issue_rel: str) -> None:
    """Report lexical errors as ``markdown_error`` plus the file kind's issue relation."""
    for index, message in lexed.errors:
        sink.fact("markdown_error", module, message, line=index + 1)
        if issue_rel == "entry_issue":
            sink.fact(issue_rel, module, "", f"Markdown entry parsing failed: {message}", line=index + 1)
        else:
            sink.fact(issue_rel, "", f"{issue_rel_label(issue_rel)} parsing failed: {message}", line=index + 1)
        sink.diag("MA-MARKDOWN", message, line=index + 1)


def issue_rel_label(rel: str) -> str:
    """The word the reference uses for a file kind's parse failure."""
    return {"registry_issue": "Subject registry", "rec_issue": "Reconciliation"}.get(rel, "Markdown")


def extract_entries(text: str, module: str, schema: int, sink: Sink, prefix: str = "") -> None:
    """Extract units and formal entries of one entry or prose file into ``sink``.

    ``prefix`` selects the relation family: "" for shared files, "overlay_" for local ones.
    """
    heading_re = terminal("entries", "ENTRY_HEADING")
    id_re = terminal("entries", "ENTRY_ID")
    lexed = lex(text)
    doc = split_units(lexed)
    unit_tokens = [_tokens(unit.text) for unit in doc.units]
    if not prefix:
        emit_units(doc, module, sink, unit_tokens)
        markdown_errors(lexed, module, sink, "entry_issue")
    else:
        sink.units = [(u.start, u.end) for u in doc.units]
        for index, message in lexed.errors:
            sink.fact("overlay_issue", f"{module}: Markdown entry parsing failed: {message}", line=index + 1)
    lines = lexed.lines

    def issue(msg: str, line_no: int, severity: str = "error") -> None:
        if prefix:
            sink.fact("overlay_issue", f"{module}: {msg}", line=line_no)
        else:
            sink.fact("entry_issue", module, "", msg, line=line_no)
        sink.diag("MC-CONFLICT-007", msg, line=line_no, severity=severity)

    list_n = 0
    for ordinal, unit in enumerate(doc.units, 1):
        first = lines[unit.start]
        ref = ""
        line_no = unit.start + 1
        legacy = unit.kind in ("bullet", "ambiguous-bullet")
        if unit.kind == "h2":
            m = heading_re.fullmatch(first)
            if m:
                ref = m.group("id")
                entry_rules.emit_entry(sink, module, ordinal, m, parse_fields(lexed, unit, schema), line_no, prefix)
            else:
                legacy = True
                if id_re.search(first):
                    issue(f"malformed Entry heading {first.strip()!r}; expected `## <ENTRY_ID> — <title>`", line_no)
        if unit.kind in ("h2", "bullet", "ambiguous-bullet"):
            list_n += 1
        if legacy and not prefix:
            sink.fact("unit_legacy", module, ordinal, list_n, line=line_no)
        if unit.kind == "ambiguous-bullet":
            issue(f"ambiguous legacy bullet after a formal Entry: {first.strip()!r}", line_no, "warning")
        sink.fact(prefix + "unit", module, ordinal, unit.kind, ref, unit_tokens[ordinal - 1], line=line_no)
