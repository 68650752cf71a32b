"""Lark parsers whose LALR tables are kept in the verified cache (analyzer/core/cache.py).

Lark's own ``cache=`` option unpickles its file unverified, writes it in place (a
concurrent reader can see half of it) and blocks on a FIFO; here the tables go through
:class:`analyzer.core.cache.Area` instead: digest-checked before unpickling, replaced
atomically, used only from a private directory.

**Shipped tables.** Building Lark's tables for the memory-file grammars costs a cold run about
a tenth of a second (the manifest grammar, the entry grammar's terminals, the rule language).
The grammars are part of the release, so their tables are too, like the compiled rule programs
(analyzer/engine/shipped.py): the build step (analyzer/dev/ship.py) builds them from the
package copy in the build tree, and :func:`build` writes them to
``analyzer/_data/compiled/lark/<key>.lark-tables`` (:func:`write_tables`). A shipped file is
found by the same key as a cache entry (grammar text, Lark version, Python version, options),
so tables built from another grammar or by another Lark are never looked up. Each file starts
with a header holding the SHA-256 of its payload, checked before Lark unpickles it
(:func:`shipped_tables`); a file that fails the check is ignored and the cache serves as before.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import sys
from pathlib import Path
from typing import Optional

from analyzer.core.cache import Area
from analyzer.core.resources import shipped_ignored

LARK = Area("lark", ".lark-tables")

# Set by analyzer.dev.ship.build_lark_tables at build time: a list collecting the shipped files
# written instead of cache entries.
SHIPPING = None

SHIPPED_FORMAT = b"memory-analyzer-shipped-lark-1\n"
SHIPPED_SUFFIX = LARK.suffix


def ship_dir() -> Path:
    """Where the shipped tables are (inside the installed package)."""
    return Path(__file__).resolve().parents[1] / "_data" / "compiled" / "lark"


def shipped_tables(key: str) -> Optional[bytes]:
    """The verified payload shipped for ``key``, or None (not shipped, unreadable, altered,
    or shipped files ignored: :func:`analyzer.core.resources.shipped_ignored`)."""
    if shipped_ignored():
        return None
    try:
        data = (ship_dir() / (key + SHIPPED_SUFFIX)).read_bytes()
    except OSError:
        return None
    header_end = len(SHIPPED_FORMAT) + 65  # the format line, 64 hex digits and a newline
    if not data.startswith(SHIPPED_FORMAT) or len(data) < header_end:
        return None
    payload = data[header_end:]
    if data[len(SHIPPED_FORMAT):header_end - 1] != hashlib.sha256(payload).hexdigest().encode():
        return None
    return payload


def write_tables(key: str, payload: bytes) -> Path:
    """Write one shipped table file (build time only)."""
    target = ship_dir() / (key + SHIPPED_SUFFIX)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(SHIPPED_FORMAT + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    return target


def build(name: str, grammar: str, use_cache: bool = True, **options):
    """``Lark(grammar, **options)`` (LALR), its tables loaded from or stored in the cache."""
    import lark

    h = hashlib.sha256(f"{grammar}\0{lark.__version__}\0{sys.version}\0{_stable(options)!r}".encode())
    key = f"{name}-{h.hexdigest()[:32]}"
    # the tables shipped in the wheel are part of the release, not a cache: --no-cache uses them
    shipped = shipped_tables(key) if SHIPPING is None else None
    if shipped is not None:
        try:
            return lark.Lark.load(io.BytesIO(shipped))
        except Exception:  # noqa: BLE001 - verified but undecodable: build them below
            pass
    if not use_cache and SHIPPING is None:
        return lark.Lark(grammar, **options)
    data = LARK.get(key) if SHIPPING is None else None
    if data is not None:
        try:
            return lark.Lark.load(io.BytesIO(data))
        except Exception:  # noqa: BLE001 - verified but undecodable (another lark?): rebuild
            LARK.discard(key, "holds tables this lark cannot load")
    parser = lark.Lark(grammar, **options)
    buffer = io.BytesIO()
    try:
        parser.save(buffer)
    except (pickle.PicklingError, TypeError, AttributeError, NotImplementedError):
        return parser
    if SHIPPING is not None:
        SHIPPING.append(write_tables(key, buffer.getvalue()))
        return parser
    LARK.put(key, buffer.getvalue())
    return parser


def _stable(value):
    """``value`` with every callable named by module and qualified name: its repr holds a
    memory address, which differs per process and would give every run a new key."""
    if isinstance(value, dict):
        return sorted((k, _stable(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_stable(v) for v in value]
    if callable(value):
        return f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', '?')}"
    return value
