"""Soufflé-style fact directories: ``Rel.facts``, tab-separated, one tuple per line.

Reading types each field by the relation's ``.decl`` (a ``number`` column must hold an
integer) and records a span per fact, so proofs point at ``Rel.facts:line:1``. Every
problem names ``file:line:col``. Writing sorts tuples; a symbol containing a tab or a line
break cannot be written in this format and is refused rather than silently corrupted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Tuple

import analyzer.engine.ast as ast

import analyzer.engine.sourcefile as sourcefile
from analyzer.engine.database import sorted_tuples
from analyzer.engine.errors import FactsError
from analyzer.engine.limits import MAX_NUMBER
from analyzer.core.span import Span

SUFFIX = ".facts"


def read_facts_dir(directory, decls: Mapping[str, ast.Decl]) -> Tuple[Dict[str, List[tuple]], Dict]:
    """``(facts, spans)`` from every ``*.facts`` file of ``directory``; raises FactsError."""
    root = Path(directory)
    if not root.is_dir():
        raise FactsError(f"facts directory {str(root)!r} does not exist or is not a directory",
                         Span(str(root), 1, 1))
    facts: Dict[str, List[tuple]] = {}
    spans: Dict = {}
    for path in sorted(root.glob("*" + SUFFIX)):
        rel = path.name[: -len(SUFFIX)]
        decl = decls.get(rel)
        if decl is None:
            raise FactsError(f"{path.name}: no .decl for relation {rel!r} in the program",
                             Span(str(path), 1, 1))
        facts[rel] = _read_file(path, decl, spans)
    return facts, spans


def read_facts_file(path, decl: ast.Decl, spans: Dict, delimiter: str = "\t") -> List[tuple]:
    """The facts of one relation from ``path`` (fields split at ``delimiter``); raises FactsError."""
    path = Path(path)
    if not path.exists():  # anything but a regular file is named by _read_file
        raise FactsError(f"cannot open facts file {str(path)!r} for .input {decl.name}", Span(str(path), 1, 1))
    return _read_file(path, decl, spans, delimiter)


def _read_file(path: Path, decl: ast.Decl, spans: Dict, delimiter: str = "\t") -> List[tuple]:
    try:
        text = sourcefile.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise FactsError(f"cannot read facts file: {reason}", Span(str(path), 1, 1)) from None
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line:
            continue
        fields = line.split(delimiter)
        if len(fields) != decl.arity:
            what = "tab-separated" if delimiter == "\t" else f"{delimiter!r}-separated"
            raise FactsError(f"{decl.name} has {decl.arity} columns, this line has {len(fields)} "
                             f"{what} fields", Span(str(path), number, 1))
        values = []
        col = 1
        for field, column in zip(fields, decl.columns):
            if column.type == ast.NUMBER:
                values.append(_number(field, column, decl, Span(str(path), number, col)))
            else:
                values.append(unescape_symbol(field))
            col += len(field) + len(delimiter)
        tup = tuple(values)
        out.append(tup)
        spans.setdefault((decl.name, tup), Span(str(path), number, 1))
    return out


def _number(field: str, column, decl, span: Span) -> int:
    text = field.strip()
    digits = text.lstrip("+-").lstrip("0")
    try:
        if len(digits) > len(str(MAX_NUMBER)):  # int() of thousands of digits raises or crawls
            raise OverflowError
        value = int(text)
        if not -MAX_NUMBER - 1 <= value <= MAX_NUMBER:
            raise OverflowError
    except ValueError:
        raise FactsError(f"column {column.name} of {decl.name} is a number, got {field!r}", span) from None
    except OverflowError:
        shown = field if len(field) <= 30 else field[:12] + f"...({len(field)} characters)"
        raise FactsError(f"column {column.name} of {decl.name}: {shown} is outside the number range "
                         f"(64-bit signed)", span) from None
    return value


def escape_symbol(value) -> str:
    """A column value for a tab-separated line: backslash, tab, CR and LF escaped (``\\``,
    ``\t``, ``\r``, ``\n``). Symbols without those characters are written unchanged, so
    ordinary facts move between us and Soufflé as they are."""
    if isinstance(value, int):
        return str(value)
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


_UNESCAPE = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


def unescape_symbol(field: str) -> str:
    """Undo :func:`escape_symbol` (an unknown escape keeps its backslash)."""
    if "\\" not in field:
        return field
    out, i = [], 0
    while i < len(field):
        ch = field[i]
        if ch == "\\" and i + 1 < len(field) and field[i + 1] in _UNESCAPE:
            out.append(_UNESCAPE[field[i + 1]])
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def fact_line(tup: tuple) -> str:
    """One tab-separated line (with its newline) of a ``.facts`` file."""
    return "\t".join(escape_symbol(v) for v in tup) + "\n"


def write_facts_dir(directory, decls: Mapping[str, ast.Decl],
                    relations: Mapping[str, Iterable[tuple]]) -> List[Path]:
    """Write each relation to ``directory/Rel.facts`` (sorted); returns the files written."""
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    written = []
    for rel in sorted(relations):
        if rel not in decls:
            raise FactsError(f"cannot write facts of undeclared relation {rel!r}")
        path = root / (rel + SUFFIX)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(fact_line(tup) for tup in sorted_tuples(relations[rel]))
        written.append(path)
    return written
