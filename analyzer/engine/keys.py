"""The key of a compiled rule program (analyzer/engine/cache.py): the engine's digest (its
sources, the rule language's grammar, Python) and the program's path. Apart from the program
cache because the check result cache keys its results with it (analyzer/query/check_cache.py)
and a check answered from that cache imports no engine."""

from __future__ import annotations

import hashlib
import os
import sys
from functools import lru_cache
from pathlib import Path

from analyzer.core import digest_memo
from analyzer.core.fingerprint import matching, read
from analyzer.core.resources import data_file

FORMAT = b"memory-analyzer-program-cache-3"


@lru_cache(maxsize=None)
def engine_digest() -> bytes:
    """A digest of the Python version, the engine's source files and the rule language's
    grammar (grammar/datalog.lark, which the engine's parser reads: no program records it);
    read from the memo while none of them changed (analyzer/core/digest_memo.py)."""
    here = os.path.dirname(os.path.realpath(__file__))
    grammar = str(data_file("grammar", "datalog.lark"))
    return digest_memo.memoized("engine", [here, grammar], lambda: _engine_digest(here, grammar))


def _engine_digest(here: str, grammar: str):
    """:func:`engine_digest` computed, and the paths it read or listed (plain strings and
    os.scandir: pathlib's objects cost a cold run about as much as the hashing)."""
    h = hashlib.sha256(sys.version.encode())
    paths = [*matching(here, "*.py"), grammar]
    for path in paths:
        h.update(os.path.basename(path).encode() + b"\0" + read(path))
    return h.digest(), paths + [here]


def cache_key(entry: Path) -> str:
    """The key of a compiled program: engine sources and grammar, Python, entry file.

    The rule set's other files are not part of it: the stored program's own files are
    verified by content on load. A key that must change with any rule (the check result
    cache's: analyzer/query/check_cache.py) adds the rule-set fingerprint itself."""
    h = hashlib.sha256(FORMAT + engine_digest())
    h.update(b"\0" + str(entry.resolve()).encode())
    return h.hexdigest()
