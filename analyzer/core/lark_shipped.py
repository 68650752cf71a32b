"""The grammars' LALR tables, generated when the wheel is built and shipped in it.

Building Lark's tables for the memory-file grammars costs a cold run about a tenth of a
second (the manifest grammar, the entry grammar's terminals, the rule language). The
grammars are part of the release, so their tables are too, like the compiled rule programs
(analyzer/engine/shipped.py): the build step (analyzer/dev/ship.py) builds them from the
package copy in the build tree and writes ``analyzer/_data/compiled/lark/<key>.lark-tables``;
this module reads them and writes each one.

A shipped file is found by the same key as a cache entry (grammar text, Lark version,
Python version, options: analyzer/core/larkcache.py), so tables built from another grammar or by
another Lark are never looked up. Each file starts with a header holding the SHA-256 of its
payload, checked before Lark unpickles it; a file that fails the check is ignored and the
cache serves as before.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Optional

FORMAT = b"memory-analyzer-shipped-lark-1\n"
SUFFIX = ".lark-tables"


def ship_dir() -> Path:
    """Where the shipped tables are (inside the installed package)."""
    return Path(__file__).resolve().parents[1] / "_data" / "compiled" / "lark"


def shipped_tables(key: str) -> Optional[bytes]:
    """The verified payload shipped for ``key``, or None (not shipped, unreadable, altered)."""
    try:
        data = (ship_dir() / (key + SUFFIX)).read_bytes()
    except OSError:
        return None
    header_end = len(FORMAT) + 65  # the format line, 64 hex digits and a newline
    if not data.startswith(FORMAT) or len(data) < header_end:
        return None
    payload = data[header_end:]
    if data[len(FORMAT):header_end - 1] != hashlib.sha256(payload).hexdigest().encode():
        return None
    return payload


def write_tables(key: str, payload: bytes) -> Path:
    """Write one shipped table file (build time only)."""
    target = ship_dir() / (key + SUFFIX)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(FORMAT + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    return target
