"""What generated rule functions call at run time: arithmetic with the engine's semantics,
the number range check and the chunking of long outer loops (:data:`RUNTIME`: the globals
every generated function runs with; analyzer/engine/compile.py generates the code).
"""

from __future__ import annotations

from itertools import compress, filterfalse, islice, repeat
from operator import itemgetter, not_

from analyzer.engine.errors import EngineError
from analyzer.engine.limits import CHECK_EVERY, MAX_NUMBER


def _div(a: int, b: int) -> int:
    # C (Soufflé) semantics: truncate toward zero
    if b == 0:
        raise EngineError("division by zero", code="DL905")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _mod(a: int, b: int) -> int:
    if b == 0:
        raise EngineError("modulo by zero", code="DL905")
    return a - b * _div(a, b)


def _num(value: int) -> int:
    # a computed number that is stored, bound or passed on stays in the documented range
    if -MAX_NUMBER - 1 <= value <= MAX_NUMBER:
        return value
    raise EngineError(f"arithmetic result of {value.bit_length()} bits is outside the number range "
                      f"(64-bit signed)", code="DL930")


def _chunks(iterable, size=CHECK_EVERY):
    """``iterable`` in chunks of at most ``size``, each to be iterated once and in order (an
    outer ``for`` loop): a long loop stops for a limit check between chunks at no per-tuple
    cost. A collection that fits in one chunk is that chunk; a longer one is sliced lazily
    from one iterator (no copy: the generated code never changes what it loops over)."""
    if iterable.__class__ in _SIZED:
        n = len(iterable)
        if n <= size:
            return (iterable,)
        return map(islice, repeat(iter(iterable), -(-n // size)), repeat(size))
    return _chunked(iterable, size)


def _lists(iterable, size=CHECK_EVERY):
    """:func:`_chunks` for code that reads a chunk more than once: each chunk a list (or the
    collection itself when it fits in one)."""
    if iterable.__class__ in _SIZED and len(iterable) <= size:
        return (iterable,)
    return _chunked(iterable, size)


_SIZED = frozenset({set, frozenset, list, tuple, dict})


def _chunked(iterable, size):
    it = iter(iterable)
    while True:
        chunk = list(islice(it, size))
        if not chunk:
            return
        yield chunk


RUNTIME = {"_div": _div, "_mod": _mod, "_num": _num, "_chunks": _chunks, "_lists": _lists, "_ONCE": (None,),
           "_itemgetter": itemgetter, "_filterfalse": filterfalse, "_compress": compress, "_repeat": repeat,
           "_not": not_}
