"""Shared reader for "scalar fields + `- ` item blocks" units: Subjects (§6.1) and records (§7.1).

Both formats use the same line grammar inside an h2 unit: field lines, item lines under a
block field, blank lines; anything else is an "unexpected line". The unit list comes from
the Markdown layer, so fenced and commented lookalikes are never read.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Tuple

from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.sink import Sink
from analyzer.project.markdown import lex, split_units


class Block:
    """The fields of one unit: scalar occurrences, block items, problems (message, line).

    A plain slotted class (one per Subject): the fast path of analyzer/project/extract/canonical.py
    builds it with its dictionaries filled in."""

    __slots__ = ("heading", "line", "ordinal", "scalars", "items", "block_counts", "problems")

    def __init__(self, heading, line: int, ordinal: int, scalars: Optional[Dict[str, List[str]]] = None,
                 items: Optional[Dict[str, List[Tuple[str, int]]]] = None,
                 block_counts: Optional[Dict[str, int]] = None) -> None:
        self.heading = heading  # regex match with the groups id and title of the canonical heading
        self.line = line  # 1-based line of the heading
        self.ordinal = ordinal  # 1-based among the file's h2 units
        self.scalars: Dict[str, List[str]] = {} if scalars is None else scalars
        self.items: Dict[str, List[Tuple[str, int]]] = {} if items is None else items
        self.block_counts: Dict[str, int] = {} if block_counts is None else block_counts
        self.problems: List[Tuple[str, int]] = []

    def one(self, name: str) -> str:
        """The single value of scalar ``name``; "" when absent or repeated."""
        values = self.scalars.get(name, [])
        return values[0] if len(values) == 1 else ""


class BlockReader:
    """How one file kind reads its h2 units: heading, item and field patterns, field names."""

    def __init__(self, grammar: str, heading_term: str, scalars, blocks, issue_rel: str, heading_word: str) -> None:
        self.heading_re = terminal(grammar, heading_term)
        self.field_re = terminal("entries", "FIELD_LINE")
        self.item_re = terminal(grammar, "ITEM")
        self.scalars, self.blocks = scalars, blocks
        self.issue_rel, self.heading_word = issue_rel, heading_word

    def unit(self, lexed, start: int, end: int, ordinal: int, sink: Sink) -> Optional[Block]:
        """The :class:`Block` of the h2 unit on lines ``start``..``end``; None (reported) when
        its heading is malformed."""
        lines = lexed.lines
        first = lines[start]
        m = self.heading_re.fullmatch(first)
        if not m:
            word = self.heading_word
            msg = f"malformed {word} heading {first.strip()!r}; expected `## <{word.upper()}_ID> — <title>`"
            sink.fact(self.issue_rel, "", msg, line=start + 1)
            sink.diag(_code(self.issue_rel), msg, line=start + 1)
            return None
        blocks, scalars, field_re, item_re = self.blocks, self.scalars, self.field_re, self.item_re
        block = Block(m, start + 1, ordinal)
        current = ""
        for i in range(start + 1, end + 1):
            line = lines[i]
            if not lexed.structural(i) or not line.strip():
                continue
            fm = field_re.fullmatch(line)
            if fm:
                name, value = fm.group("name"), (fm.group("value") or "").strip()
                current = name
                if name in blocks:
                    block.block_counts[name] = block.block_counts.get(name, 0) + 1
                    block.items.setdefault(name, [])
                    if value:
                        block.problems.append((f"{name} block heading must not contain a value", i + 1))
                elif name in scalars:
                    block.scalars.setdefault(name, []).append(value)
                else:
                    block.problems.append((f"has unknown field {name}", i + 1))
                continue
            im = item_re.fullmatch(line)
            if im and current in blocks:
                block.items[current].append((im.group("value").strip(), i + 1))
                continue
            block.problems.append((f"has unexpected line {line.strip()!r}", i + 1))
        return block


def markdown_errors(lexed, module: str, sink: Sink, issue_rel: str) -> None:
    """Report lexical errors as ``markdown_error`` plus the file kind's issue relation
    (``entry_issue``, ``registry_issue`` or ``rec_issue``)."""
    for index, message in lexed.errors:
        sink.fact("markdown_error", module, message, line=index + 1)
        if issue_rel == "entry_issue":
            from analyzer.project.extract.entry_rules import add_issue

            add_issue(sink, module, "", f"Markdown entry parsing failed: {message}", index + 1)
        else:  # the rules add the file name
            label = "Subject registry" if issue_rel == "registry_issue" else "Reconciliation"
            sink.fact(issue_rel, "", f"{label} parsing failed: {message}", line=index + 1)
        sink.diag("MA-MARKDOWN", message, line=index + 1)


def read_blocks(text: str, module: str, sink: Sink, reader: BlockReader) -> Iterator[Block]:
    """Yield one :class:`Block` per canonical h2 unit; report lexical and heading problems."""
    lexed = lex(text)
    markdown_errors(lexed, module, sink, reader.issue_rel)
    doc = split_units(lexed)
    # the h2 units' line ranges, so that a Subject or record ordinal (1-based among the h2
    # units) finds its text (``Project.unit_text``)
    sink.units = [(u.start, u.end) for u in doc.units if u.kind == "h2"]
    ordinal = 0
    for unit in doc.units:
        if unit.kind != "h2":
            continue
        ordinal += 1
        block = reader.unit(lexed, unit.start, unit.end, ordinal, sink)
        if block is not None:
            yield block


def _code(issue_rel: str) -> str:
    return "MC-CONFLICT-010" if issue_rel == "registry_issue" else "MC-CONFLICT-008"


def report(sink: Sink, issue_rel: str, ident: str, shown: str, problems: List[Tuple[str, int]]) -> None:
    """Emit each (message, line) problem of one unit as an issue fact and a diagnostic."""
    for message, line in problems:
        text = f"{shown} {message}"
        sink.fact(issue_rel, ident, text, line=line)
        sink.diag(_code(issue_rel), text, line=line)


def common_problems(block: Block, scalars_once, blocks_once) -> List[Tuple[str, int]]:
    """Duplicate/missing scalar and block fields, empty scalars and empty items."""
    out = list(block.problems)
    for name in scalars_once:
        count = len(block.scalars.get(name, []))
        if count != 1:
            out.append((f"must have exactly one {name} field (found {count})", block.line))
    for name, values in block.scalars.items():
        if name not in scalars_once and len(values) > 1:
            out.append((f"has duplicate {name} fields", block.line))
        if any(not v for v in values):
            out.append((f"has empty {name}", block.line))
    for name in blocks_once:
        count = block.block_counts.get(name, 0)
        if count != 1:
            out.append((f"must have exactly one {name} block (found {count})", block.line))
    for name, items in block.items.items():
        for value, line in items:
            if not value:
                out.append((f"has an empty {name} item", line))
    return out
