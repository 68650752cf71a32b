"""Lark parsers whose LALR tables are kept in the verified cache (analyzer/core/cache.py).

Lark's own ``cache=`` option unpickles its file unverified, writes it in place (a
concurrent reader can see half of it) and blocks on a FIFO; here the tables go through
:class:`analyzer.core.cache.Area` instead: digest-checked before unpickling, replaced
atomically, used only from a private directory.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import sys

from analyzer.core.cache import Area

LARK = Area("lark", ".lark-tables")

# Set by analyzer.dev.ship.build_lark_tables at build time: a list collecting the shipped files
# written instead of cache entries.
SHIPPING = None


def build(name: str, grammar: str, use_cache: bool = True, **options):
    """``Lark(grammar, **options)`` (LALR), its tables loaded from or stored in the cache."""
    import lark

    from analyzer.core.lark_shipped import shipped_tables

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
        from analyzer.core.lark_shipped import write_tables

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
