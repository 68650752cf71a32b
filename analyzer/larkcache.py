"""Lark parsers whose LALR tables are kept in the verified cache (analyzer/cache.py).

Lark's own ``cache=`` option unpickles its file unverified, writes it in place (a
concurrent reader can see half of it) and blocks on a FIFO; here the tables go through
:class:`analyzer.cache.Area` instead: digest-checked before unpickling, replaced
atomically, used only from a private directory.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import sys

from analyzer.cache import Area

LARK = Area("lark", ".lark-tables")


def build(name: str, grammar: str, use_cache: bool = True, **options):
    """``Lark(grammar, **options)`` (LALR), its tables loaded from or stored in the cache."""
    import lark

    if not use_cache:
        return lark.Lark(grammar, **options)
    h = hashlib.sha256(f"{grammar}\0{lark.__version__}\0{sys.version}\0{sorted(options.items())!r}".encode())
    key = f"{name}-{h.hexdigest()[:32]}"
    data = LARK.get(key)
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
    LARK.put(key, buffer.getvalue())
    return parser
