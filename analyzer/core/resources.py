"""Locate the data directories (grammar/, facts/, rules/) that define the product.

In a wheel they are installed as ``analyzer/_data/<name>/``; in a source checkout they sit
at the top of the tree next to ``analyzer/``. Everything that reads a grammar, the fact
schema or a rule file goes through :func:`data_dir`, so both layouts behave the same.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Optional

_PACKAGE = Path(__file__).resolve().parents[1]  # analyzer/: this file is analyzer/core/resources.py
KINDS = ("grammar", "facts", "rules")
IGNORE_SHIPPED_ENV = "MEMORY_ANALYZER_IGNORE_SHIPPED"


@lru_cache(maxsize=None)
def data_dir(kind: str) -> Path:
    """Return the directory holding the shipped ``kind`` files (grammar, facts or rules)."""
    if kind not in KINDS:
        raise ValueError(f"unknown data kind {kind!r}; expected one of {KINDS}")
    installed = _PACKAGE / "_data" / kind
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / kind


def data_file(kind: str, name: str) -> Path:
    """Return the path of one shipped data file, e.g. ``data_file("grammar", "datalog.lark")``."""
    return data_dir(kind) / name


def source_root() -> Optional[Path]:
    """The source checkout this package runs from, or None when installed from a wheel."""
    candidate = Path(__file__).resolve().parents[2]  # the checkout: this file is analyzer/core/resources.py
    project = candidate / "pyproject.toml"
    if project.is_file() and 'name = "memory-custodian-analyzer"' in project.read_text(encoding="utf-8"):
        return candidate
    return None


def shipped_ignored() -> bool:
    """Whether ``$MEMORY_ANALYZER_IGNORE_SHIPPED`` is set (non-empty): the compiled programs and
    parser tables shipped in the package (analyzer/engine/shipped.py, analyzer/core/larkcache.py)
    are then not used, and everything goes through the caches, as in a checkout that never built
    them (for testing the caches, or ruling out a shipped file)."""
    return bool(os.environ.get(IGNORE_SHIPPED_ENV))
