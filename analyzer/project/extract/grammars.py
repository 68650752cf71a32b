"""Load the memory-file grammars (grammar/*.lark) once per process, with cached LALR tables.

Each parser is a module-level singleton built on first use. Its LALR tables are kept in the
verified cache (analyzer/core/larkcache.py, never inside the analyzed project); when the cache
cannot be used, the parser is simply built in memory.

The terminals the extractors match come from analyzer/project/extract/grammar_terms.py, generated
from the same grammars (analyzer/dev/terms_gen.py), so a run whose input all lexes
imports no Lark; a grammar whose text no longer has the digest recorded there is read
through Lark as before.
"""

from __future__ import annotations

import hashlib
from typing import Dict, Optional, Sequence, Tuple

from analyzer.core.resources import data_file

_PARSERS: Dict[Tuple[str, Tuple[str, ...]], object] = {}


def parser(name: str, start: Sequence[str] = ("start",)):
    """The LALR parser of ``grammar/<name>.lark`` for the given start symbols (built once)."""
    key = (name, tuple(start))
    cached = _PARSERS.get(key)
    if cached is not None:
        return cached
    from analyzer.core.larkcache import build

    text = data_file("grammar", f"{name}.lark").read_text(encoding="utf-8")
    built = build(f"{name}-{'-'.join(start)}", text, parser="lalr", lexer="contextual", start=list(start),
                  propagate_positions=True)
    _PARSERS[key] = built
    return built


def forget_parsers() -> None:
    """Drop the parsers built so far (the build step builds each again to ship its tables)."""
    _PARSERS.clear()


def forget_generated() -> None:
    """Drop what was read from the generated terminals (tests drift a grammar's digest)."""
    _GENERATED.clear()
    _LINE_LEXER.clear()
    _PATTERNS.clear()


_PATTERNS: Dict[Tuple[str, str], object] = {}
_GENERATED: Dict[str, Optional[Dict[str, str]]] = {}
_LINE_LEXER: Dict[str, object] = {}


def digest(text: str) -> str:
    """The digest of a grammar's text that analyzer/project/extract/grammar_terms.py records."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def generated(name: str) -> Optional[Dict[str, str]]:
    """The generated terminal regexes of ``grammar/<name>.lark`` (terminal -> regex), or None
    when that grammar's text is not the one they were generated from."""
    if name not in _GENERATED:
        from analyzer.project.extract import grammar_terms

        recorded = grammar_terms.DIGESTS.get(name)
        text = data_file("grammar", f"{name}.lark").read_text(encoding="utf-8")
        _GENERATED[name] = grammar_terms.TERMINALS[name] if recorded == digest(text) else None
    return _GENERATED[name]


def line_lexer():
    """``(regex, kinds)``: the manifest's line tokens as one alternation tried in the order
    Lark's lexer tries them (the matching group is the terminal; ``kinds`` maps it to the
    line's kind), or None when grammar/manifest.lark is not the generated one."""
    if "manifest" not in _LINE_LEXER:
        terms = generated("manifest")
        found = None
        if terms is not None:
            import re

            from analyzer.project.extract.grammar_terms import MANIFEST_LINES

            regex = re.compile("|".join(f"(?P<{term}>{terms[term]})" for term, _ in MANIFEST_LINES))
            found = (regex, dict(MANIFEST_LINES))
        _LINE_LEXER["manifest"] = found
    return _LINE_LEXER["manifest"]


def terminal(name: str, term: str):
    """The compiled regex of terminal ``term`` of ``grammar/<name>.lark`` (for full-line matching).

    Line classifiers use these instead of running the parser per line: the grammar file
    stays the single definition of the syntax, and matching costs one regex call.
    """
    found = _PATTERNS.get((name, term))
    if found is None:
        key = (name, term)
        import re

        pattern = (generated(name) or {}).get(term)
        if pattern is None:  # a drifted grammar or a terminal not generated: Lark reads it
            pattern = terminal_parser(name).get_terminal(term).pattern.to_regexp()
        found = re.compile(pattern)
        _PATTERNS[key] = found
    return found


def line_starts(text: str) -> Tuple[str, ...]:
    """The start symbols of a line grammar: every rule of it."""
    import re

    return tuple(sorted(set(re.findall(r"^([a-z_]+):", text, re.M))))


def terminal_parser(name: str):
    """A parser for a line grammar whose rules are all start symbols (where :func:`terminal`
    finds the terminals)."""
    text = data_file("grammar", f"{name}.lark").read_text(encoding="utf-8")
    return parser(name, line_starts(text))
