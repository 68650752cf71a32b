"""Load the memory-file grammars (grammar/*.lark) once per process, with cached LALR tables.

Each parser is a module-level singleton built on first use. Lark's own table cache is kept
under ``$XDG_CACHE_HOME/memory-analyzer/lark`` (never inside the analyzed project); when
that directory cannot be written, the parser is simply built in memory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, Sequence, Tuple

from analyzer.resources import data_file

_PARSERS: Dict[Tuple[str, Tuple[str, ...]], object] = {}


def cache_root() -> Path:
    """The analyzer's cache directory: ``$XDG_CACHE_HOME/memory-analyzer`` (or ~/.cache/...)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "memory-analyzer"


def parser(name: str, start: Sequence[str] = ("start",)):
    """The LALR parser of ``grammar/<name>.lark`` for the given start symbols (built once)."""
    key = (name, tuple(start))
    cached = _PARSERS.get(key)
    if cached is not None:
        return cached
    from lark import Lark  # imported lazily: commands that never parse stay fast

    text = data_file("grammar", f"{name}.lark").read_text(encoding="utf-8")
    options = dict(parser="lalr", lexer="contextual", start=list(start), propagate_positions=True)
    built = None
    cache_dir = cache_root() / "lark"
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        # Lark checks the grammar text's hash against the cached tables itself.
        built = Lark(text, cache=str(cache_dir / f"{name}-{'-'.join(start)}.lark.cache"), **options)
    except OSError:
        built = None
    if built is None:
        built = Lark(text, **options)
    _PARSERS[key] = built
    return built


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

        lark = _terminals_parser(name)
        found = re.compile(lark.get_terminal(term).pattern.to_regexp())
        _PATTERNS[key] = found
    return found


def _terminals_parser(name: str):
    """A parser for a line grammar whose rules are all start symbols."""
    import re

    text = data_file("grammar", f"{name}.lark").read_text(encoding="utf-8")
    starts = tuple(sorted(set(re.findall(r"^([a-z_]+):", text, re.M))))
    return parser(name, starts)
