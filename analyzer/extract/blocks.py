"""Shared reader for "scalar fields + `- ` item blocks" units: Subjects (§6.1) and records (§7.1).

Both formats use the same line grammar inside an h2 unit: field lines, item lines under a
block field, blank lines; anything else is an "unexpected line". The unit list comes from
the Markdown layer, so fenced and commented lookalikes are never read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Tuple

from analyzer.extract.grammars import terminal
from analyzer.extract.sink import Sink
from analyzer.markdown import lex, split_units


@dataclass
class Block:
    """The fields of one unit: scalar occurrences, block items, problems (message, line)."""

    heading: object  # regex match of the canonical heading
    line: int  # 1-based line of the heading
    ordinal: int  # 1-based among the file's h2 units
    scalars: Dict[str, List[str]] = field(default_factory=dict)
    items: Dict[str, List[Tuple[str, int]]] = field(default_factory=dict)
    block_counts: Dict[str, int] = field(default_factory=dict)
    problems: List[Tuple[str, int]] = field(default_factory=list)

    def one(self, name: str) -> str:
        """The single value of scalar ``name``; "" when absent or repeated."""
        values = self.scalars.get(name, [])
        return values[0] if len(values) == 1 else ""


def read_blocks(text: str, module: str, sink: Sink, grammar: str, heading_term: str, scalars, blocks,
                issue_rel: str, heading_word: str) -> Iterator[Block]:
    """Yield one :class:`Block` per canonical h2 unit; report lexical and heading problems."""
    heading_re = terminal(grammar, heading_term)
    field_re = terminal("entries", "FIELD_LINE")
    item_re = terminal(grammar, "ITEM")
    lexed = lex(text)
    label = "Subject registry" if issue_rel == "registry_issue" else "Reconciliation"
    for index, message in lexed.errors:
        sink.fact("markdown_error", module, message, line=index + 1)
        sink.fact(issue_rel, "", f"{label} parsing failed: {message}", line=index + 1)  # rules add the file name
        sink.diag("MA-MARKDOWN", message, line=index + 1)
    doc = split_units(lexed)
    # the h2 units' line ranges, so that a Subject or record ordinal (1-based among the h2
    # units) finds its text (``Project.unit_text``)
    sink.units = [(u.start, u.end) for u in doc.units if u.kind == "h2"]
    ordinal = 0
    for unit in doc.units:
        if unit.kind != "h2":
            continue
        ordinal += 1
        first = lexed.lines[unit.start]
        m = heading_re.fullmatch(first)
        if not m:
            msg = f"malformed {heading_word} heading {first.strip()!r}; expected `## <{heading_word.upper()}_ID> — <title>`"
            sink.fact(issue_rel, "", msg, line=unit.start + 1)
            sink.diag(_code(issue_rel), msg, line=unit.start + 1)
            continue
        block = Block(m, unit.start + 1, ordinal)
        current = ""
        for i in range(unit.start + 1, unit.end + 1):
            line = lexed.lines[i]
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
