"""Load the memory-file grammars (grammar/*.lark) once per process, with cached LALR tables.

Each parser is a module-level singleton built on first use. Its LALR tables are kept in the
verified cache (analyzer/larkcache.py, never inside the analyzed project); when the cache
cannot be used, the parser is simply built in memory.
"""

from __future__ import annotations

from typing import Dict, Sequence, Tuple

from analyzer.resources import data_file

_PARSERS: Dict[Tuple[str, Tuple[str, ...]], object] = {}


def parser(name: str, start: Sequence[str] = ("start",)):
    """The LALR parser of ``grammar/<name>.lark`` for the given start symbols (built once)."""
    key = (name, tuple(start))
    cached = _PARSERS.get(key)
    if cached is not None:
        return cached
    from analyzer.larkcache import build

    text = data_file("grammar", f"{name}.lark").read_text(encoding="utf-8")
    built = build(f"{name}-{'-'.join(start)}", text, parser="lalr", lexer="contextual", start=list(start),
                  propagate_positions=True)
    _PARSERS[key] = built
    return built


def forget_parsers() -> None:
    """Drop the parsers built so far (the build step builds each again to ship its tables)."""
    _PARSERS.clear()


_PATTERNS: Dict[Tuple[str, str], object] = {}


def terminal(name: str, term: str):
    """The compiled regex of terminal ``term`` of ``grammar/<name>.lark`` (for full-line matching).

    Line classifiers use these instead of running the parser per line: the grammar file
    stays the single definition of the syntax, and matching costs one regex call.
    """
    found = _PATTERNS.get((name, term))
    if found is None:
        key = (name, term)
        import re

        lark = terminal_parser(name)
        found = re.compile(lark.get_terminal(term).pattern.to_regexp())
        _PATTERNS[key] = found
    return found


def terminal_parser(name: str):
    """A parser for a line grammar whose rules are all start symbols (where :func:`terminal`
    finds the terminals)."""
    import re

    text = data_file("grammar", f"{name}.lark").read_text(encoding="utf-8")
    starts = tuple(sorted(set(re.findall(r"^([a-z_]+):", text, re.M))))
    return parser(name, starts)
