"""A user's datalog program as the base of ad hoc questions (``analyze query PROGRAM.dl``).

Facts come from a Soufflé-style facts directory. When the program has ``.input``
directives, exactly those relations are read (``filename`` and ``delimiter`` options
honoured, other files in the directory ignored), as Soufflé does; without any, every
``Rel.facts`` file of the directory is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional


def program_session(program: str, facts_dir: Optional[str], use_cache: bool = True, limits=None):
    """A :class:`~analyzer.query.adhoc.Session` over ``program`` and its facts directory."""
    from analyzer.core.diagnostics import Diagnostic, DiagnosticError
    from analyzer.engine.cache import load_engine
    from analyzer.engine.sourcefile import require_regular
    from analyzer.query.adhoc import Session
    from analyzer.core.span import Span

    try:
        require_regular(program)  # a FIFO or directory is named as such, never read
        engine = load_engine(Path(program), use_cache=use_cache)
    except OSError as exc:
        raise DiagnosticError([Diagnostic(Span(str(program), 1, 1), "DL914",
                                          f"cannot read program: {exc.strerror}")]) from None
    facts, spans = read_inputs(engine.program, facts_dir)
    return Session(engine, facts, spans=lambda: spans, limits=limits)


def read_inputs(program, facts_dir: Optional[str]):
    """``(facts, spans)`` for ``program``: its ``.input`` relations, or the whole directory."""
    from analyzer.engine.factsio import read_facts_dir, read_facts_file

    inputs = [(d, rel) for d in program.directives if d.kind == "input" for rel in d.relations]
    if not inputs:
        return read_facts_dir(facts_dir, program.decls) if facts_dir else ({}, {})
    base = Path(facts_dir) if facts_dir else Path(".")
    facts: Dict[str, List[tuple]] = {}
    spans: Dict = {}
    for directive, rel in inputs:
        name = directive.option("filename", f"{rel}.facts")
        delimiter = directive.option("delimiter", "\t")
        rows = read_facts_file(base / name, program.decls[rel], spans, delimiter)
        facts.setdefault(rel, []).extend(rows)
    return facts, spans
