"""Entry files and prose files -> unit facts, entry facts and entry issues (spec §3.1, §5).

Every non-special managed file (decisions, constraints, do-not-use, preferences, inbox,
rules/profiles/areas modules, archive, brief, changelog, ...) is split into units; every h2
unit with a canonical Entry heading is parsed into fields (:mod:`analyzer.project.extract.fields`)
into neutral facts (:mod:`analyzer.project.extract.entry_rules`), which the per-entry rules of
rules/entries/*.dl judge (:mod:`analyzer.project.extract.judge`). Cross-entry questions
(relations, duplicate IDs, conflicts) are left to the other rules.
"""

from __future__ import annotations

import re

from analyzer.project.extract import entry_rules
from analyzer.project.extract.blocks import markdown_errors
from analyzer.project.extract.fields import parse_fields
from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.judge import judge
from analyzer.project.extract.sink import Sink
from analyzer.project.markdown import TOKEN_RE, lex, split_units


def _tokens(text: str) -> int:
    return len(TOKEN_RE.findall(text))


def unit_tokens(unit) -> int:
    """A unit's token count (the protocol's estimate of its text)."""
    return len(TOKEN_RE.findall(unit.text))


def emit_units(doc, module: str, sink: Sink, unit_tokens) -> None:
    """Record the unit ranges and the title/file token facts of a split document."""
    emit_units_of(sink, module, doc.title, [(u.start, u.end) for u in doc.units], unit_tokens)


def emit_units_of(sink: Sink, module: str, title, ranges, unit_tokens) -> None:
    """Record the unit ranges and the title/file token facts of a file with the ``title``
    line (or None) and units at ``ranges`` of ``unit_tokens`` tokens each.

    The file's token count is the title's plus every unit's (``unit_tokens``, in unit
    order): no token contains whitespace, so none spans a line break, and the units cover
    every line after the title except blank ones. Counting the file again cost as much as
    counting every unit.
    """
    sink.units = ranges
    sink.has_title = title is not None
    title_count = _tokens(title) if title else 0
    sink.fact("title_tokens", module, title_count, line=1)
    sink.fact("file_tokens", module, title_count + sum(unit_tokens), line=1)


def extract_entries(text: str, module: str, schema: int, sink: Sink, prefix: str = "", fast: bool = True) -> None:
    """Extract units and formal entries of one entry or prose file into ``sink``.

    ``prefix`` selects the relation family: "" for shared files, "overlay_" for local ones.
    ``fast`` (the default) lets a well-formed shared file take the file-level fast path of
    :mod:`analyzer.project.extract.fast_entries`, which gives the same sink as this general path.
    """
    if fast and not prefix:
        from analyzer.project.extract import fast_entries

        if fast_entries.entries(text, module, schema, sink):
            judge(sink, module, prefix, 0)
            return
    lexed = lex(text)
    doc = split_units(lexed)
    tokens = [unit_tokens(unit) for unit in doc.units]
    if not prefix:
        emit_units(doc, module, sink, tokens)
        markdown_errors(lexed, module, sink, "entry_issue")
    else:
        sink.units = [(u.start, u.end) for u in doc.units]
        for index, message in lexed.errors:
            sink.fact("overlay_issue", f"{module}: Markdown entry parsing failed: {message}", line=index + 1)
    first_unit_rank = len(sink.columns.get("entry_issue", ((),))[0])  # the Markdown errors come first
    emitter = UnitEmitter(sink, module, schema, prefix)
    for ordinal, unit in enumerate(doc.units, 1):
        emitter.unit(lexed, ordinal, unit, tokens[ordinal - 1])
    judge(sink, module, prefix, first_unit_rank)


_CLOSING = re.compile(r"[ \t]+#+[ \t]*$")


def h2_text(line: str) -> str:
    """An h2 line's text as plain `check` quotes it: without `##` and a closing sequence, trimmed."""
    rest = line.strip()[2:]
    return _CLOSING.sub("", rest).strip()


def _decision_line(lexed, unit) -> bool:
    """Whether a unit has a visible, non-indented line that is exactly `Decision:` (trailing
    blanks allowed): plain `check` measures such a unit as a decision (§9.8.4 (e))."""
    for i in range(unit.start, min(unit.end + 1, len(lexed.lines))):
        if lexed.visible[i] and not lexed.indented[i] and lexed.lines[i].rstrip() == "Decision:":
            return True
    return False


class UnitEmitter:
    """Emits the facts of one file's units in order (it counts the list items, §3.1)."""

    def __init__(self, sink: Sink, module: str, schema: int, prefix: str) -> None:
        self.sink, self.module, self.schema, self.prefix = sink, module, schema, prefix
        self.heading_re = terminal("entries", "ENTRY_HEADING")
        self.id_re = terminal("entries", "ENTRY_ID")
        self.list_n = 0

    def issue(self, msg: str, line_no: int, severity: str = "error") -> None:
        """An entry issue of this file (an overlay issue for a local module)."""
        if self.prefix:
            self.sink.fact("overlay_issue", f"{self.module}: {msg}", line=line_no)
        else:
            entry_rules.add_issue(self.sink, self.module, "", msg, line_no)
        self.sink.diag("MC-CONFLICT-007", msg, line=line_no, severity=severity)

    def unit(self, lexed, ordinal: int, unit, tokens: int) -> None:
        """The facts of one unit of ``lexed`` (``tokens``: its token count)."""
        first = lexed.lines[unit.start]
        line_no = unit.start + 1
        kind = unit.kind
        if kind == "h2":
            m = self.heading_re.fullmatch(first)
            if m:
                self.entry(ordinal, m, parse_fields(lexed, unit, self.schema), line_no, tokens)
                return
            if self.id_re.search(first):
                self.issue(f"malformed Entry heading {first!r}; expected `## <ENTRY_ID> — <title>`", line_no)
                if not self.prefix:
                    self.sink.fact("unit_names_id", self.module, ordinal, line=line_no)
            if not self.prefix and _decision_line(lexed, unit):
                self.sink.fact("unit_decision_line", self.module, ordinal, h2_text(first), line=line_no)
        legacy = kind != "preamble" and kind != "body"
        if legacy:
            self.list_n += 1
            if not self.prefix:
                self.sink.fact("unit_legacy", self.module, ordinal, self.list_n, line=line_no)
        if kind == "ambiguous-bullet":
            self.issue("ambiguous column-zero bullet follows a formal Entry; indent body bullets or move legacy "
                       "memory under an explicit heading", line_no, "warning")
        self.sink.fact(self.prefix + "unit", self.module, ordinal, kind, "", tokens, line=line_no)

    def entry(self, ordinal: int, heading, parsed, line_no: int, tokens: int) -> None:
        """The facts of a formal entry unit: its canonical ``heading`` match and fields."""
        entry_rules.emit_entry(self.sink, self.module, ordinal, heading, parsed, line_no, self.prefix)
        if not self.prefix and any(not occ.value for occ in parsed.fields.get("Decision", ())):
            self.sink.fact("unit_decision_line", self.module, ordinal, f"{heading.group('id')} — {heading.group('title')}", line=line_no)
        self.formal_unit(ordinal, heading.group("id"), line_no, tokens)

    def formal_unit(self, ordinal: int, shown_id: str, line_no: int, tokens: int) -> None:
        """The unit fact of a formal entry, after its entry facts."""
        self.list_n += 1
        self.sink.fact(self.prefix + "unit", self.module, ordinal, "h2", shown_id, tokens, line=line_no)
