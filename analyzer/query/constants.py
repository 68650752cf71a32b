"""Goal constants read as the protocol reads them, answers shown as the files write them.

The fact base keys Entry, Subject and record IDs casefolded (facts/schema.dl) and keeps each
ID as written beside the key (``entry_display``, ``subject_display``, ``rec_display``). A
goal names IDs the way people copy them from files and findings, so:

- an atom argument that is a protocol ID (``MC-<CODE>-<date>-<hex>``, any case) matching
  nothing in its column, while its casefolded form does, is matched casefolded: the
  protocol compares IDs caselessly (§5.3); so is the constant of ``V = c`` or ``V != c``
  when a positive atom binds ``V`` from a column;
- any other constant matching nothing in its column, while a value of that column differs
  from it only by case or a small edit, gets a DL921 warning naming the value (the answer
  and the exit status stay what they are: the goal may mean what it says);
- answers show each casefolded ID as written (:func:`written_ids`, :func:`show_written`).
"""

from __future__ import annotations

import difflib
import re
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from analyzer.core.diagnostics import Diagnostic
from analyzer.engine import ast

NEAR_MISS = "DL921"  # a goal constant matching nothing in its column, near a value that exists
#: the protocol's ID shape (§5.3, §6, §7), compared caselessly
PROTOCOL_ID = re.compile(r"MC-[A-Z]+-\d{8}-[0-9A-F]{8}", re.IGNORECASE)
#: the relations that give each casefolded ID as written (key, written form)
WRITTEN = ("entry_display", "subject_display", "rec_display")


def read_constants(body: tuple, column_values: Callable[[str, int], Optional[Set[object]]],
                   sources: Mapping[str, str]) -> Tuple[tuple, List[Diagnostic]]:
    """``(body, warnings)``: ``body`` with protocol-ID constants matched casefolded where
    that is what matches, and a DL921 warning per other near-missing constant.
    ``column_values(rel, k)`` gives the values of column ``k`` of ``rel`` (None: unknown)."""
    warnings: List[Diagnostic] = []

    def atom(lit: ast.Atom) -> ast.Atom:
        args = list(lit.args)
        for k, arg in enumerate(args):
            if not isinstance(arg, ast.Const) or not isinstance(arg.value, str):
                continue
            values = column_values(lit.rel, k)
            if values is None or arg.value in values:
                continue
            folded = arg.value.casefold()
            if PROTOCOL_ID.fullmatch(arg.value) and folded in values:
                args[k] = ast.Const(folded, arg.span)
                continue
            near = _near(arg.value, values)
            if near is not None:
                warnings.append(_warning(arg, lit.rel, k, near, sources))
        return ast.Atom(lit.rel, tuple(args), lit.span)

    # `I = "MC-..."` compares with the column a positive atom binds I from
    columns = {arg.name: (lit.rel, k) for lit in body if isinstance(lit, ast.Atom)
               for k, arg in enumerate(lit.args) if isinstance(arg, ast.Var)}

    def comparison(lit: ast.Comparison) -> ast.Comparison:
        sides = [lit.left, lit.right]
        for i, (var, const) in enumerate(((lit.left, lit.right), (lit.right, lit.left))):
            if lit.op in ("=", "!=") and isinstance(var, ast.Var) and var.name in columns \
                    and isinstance(const, ast.Const) and isinstance(const.value, str):
                rel, k = columns[var.name]
                probe = atom(ast.Atom(rel, tuple(const if j == k else ast.Wildcard() for j in range(k + 1))))
                sides[1 - i] = probe.args[k]
        return ast.Comparison(lit.op, sides[0], sides[1], lit.span)

    out = []
    for lit in body:
        if isinstance(lit, ast.Atom):
            lit = atom(lit)
        elif isinstance(lit, ast.Negation):
            lit = ast.Negation(atom(lit.atom), lit.span)
        elif isinstance(lit, ast.Comparison):
            lit = comparison(lit)
        out.append(lit)
    return tuple(out), warnings


def _near(value: str, values: Iterable[object]) -> Optional[str]:
    """The value of the column that ``value`` most likely meant: the same text in another
    case, else the closest small edit (difflib ratio at least 0.8), or None."""
    by_folded: Dict[str, str] = {}
    for text in sorted(v for v in values if isinstance(v, str)):
        by_folded.setdefault(text.casefold(), text)
    folded = value.casefold()
    if folded in by_folded:
        return by_folded[folded]
    # edits are measured caselessly: "Actve" is one edit from "active"
    close = difflib.get_close_matches(folded, sorted(by_folded), n=1, cutoff=0.8)
    return by_folded[close[0]] if close else None


def _warning(arg: ast.Const, rel: str, k: int, near: str, sources: Mapping[str, str]) -> Diagnostic:
    from analyzer.engine.syntax import line_of

    span = arg.span
    text = sources.get(span.path) if span is not None else None
    return Diagnostic(span, NEAR_MISS, f'"{arg.value}" matches nothing in column {k + 1} of {rel}; '
                      f'did you mean "{near}"?', severity="warning",
                      source_line=line_of(text, span.line) if text is not None else None)


def written_ids(facts: Mapping[str, Iterable[tuple]]) -> Dict[str, str]:
    """Casefolded ID -> the ID as written (the smallest written form when there are several)."""
    out: Dict[str, str] = {}
    for rel in WRITTEN:
        for key, shown in facts.get(rel, ()):
            if key not in out or shown < out[key]:
                out[key] = shown
    return out


def show_written(rows: List[tuple], written: Mapping[str, str]) -> List[tuple]:
    """``rows`` with every casefolded ID replaced by the ID as written."""
    if not written:
        return rows
    return [tuple(written.get(v, v) if isinstance(v, str) else v for v in row) for row in rows]
