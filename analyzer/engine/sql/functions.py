"""The builtins SQL does not compute exactly as Python does, registered as SQL functions.

Each wraps the native builtin's own implementation (analyzer/engine/builtins.py), so the
SQL back end gets the same answer by construction: ``casefold`` folds ``ß`` to ``ss`` where
SQL's ``lower`` does not, ``trim`` strips every Unicode space, globs are the protocol's
dialect, regular expressions the linear-time language. None (SQL NULL) means "no result".
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Dict, List, Optional, Tuple

from analyzer.engine.builtins import BUILTINS


def _first(name: str) -> Callable:
    """The value the builtin ``name`` yields for its bound inputs, or None."""
    fn = BUILTINS[name].fn
    arity = BUILTINS[name].arity

    def call(inputs):
        for out in fn(None, tuple(inputs) + (None,) * (arity - len(inputs))):
            return out[-1]
        return None
    return _fixed(call, arity - 1)


def _holds(name: str) -> Callable:
    fn = BUILTINS[name].fn
    return _fixed(lambda args: next(iter(fn(None, tuple(args))), None) is not None, BUILTINS[name].arity)


def _fixed(call: Callable, arity: int) -> Callable:
    """``call(tuple)`` as a function of ``arity`` positional parameters (DuckDB reads a
    Python function's signature to check it against the declared argument types), with its
    answers remembered: a column repeats its values (10,000 entries, a few scopes), and a
    Python call per row was 1.5 s of a 10-repository check."""
    call = lru_cache(maxsize=1 << 16)(call)
    return _positional(lambda *args: call(args), arity)


def _positional(call: Callable, arity: int) -> Callable:
    """``call(*args)`` as a function of exactly ``arity`` named positional parameters: DuckDB
    reads a Python function's signature to check it against the declared argument types."""
    return {1: lambda a: call(a), 2: lambda a, b: call(a, b), 3: lambda a, b, c: call(a, b, c)}[arity]


def _split(text: str, sep: str) -> Optional[List[str]]:
    return text.split(sep) if sep else None


S, N, B = "VARCHAR", "BIGINT", "BOOLEAN"
#: SQL name -> (Python function, argument types, result type)
FUNCTIONS: Dict[str, Tuple[Callable, Tuple[str, ...], str]] = {
    "ma_glob_match": (_holds("glob_match"), (S, S), B),
    "ma_glob_match_under": (_holds("glob_match_under"), (S, S), B),
    "ma_glob_match_ext": (_holds("glob_match_ext"), (S, S), B),
    "ma_re_match": (_holds("re_match"), (S, S), B),
    "ma_glob_invalid": (_first("glob_invalid"), (S,), S),
    "ma_path_invalid": (_first("path_invalid"), (S,), S),
    "ma_casefold": (_first("casefold"), (S,), S),
    "ma_lower": (_first("lower"), (S,), S),
    "ma_upper": (_first("upper"), (S,), S),
    "ma_trim": (_first("trim"), (S,), S),
    "ma_substr": (_first("substr"), (S, N, N), S),
    "ma_to_number": (_first("to_number"), (S,), N),
    "ma_split": (_split, (S, S), "VARCHAR[]"),
}


def register_duckdb(con) -> None:
    """Register every function of :data:`FUNCTIONS` on a DuckDB connection, each called
    with a chunk of rows at a time (:func:`_vectorized`)."""
    for name, (fn, args, result) in FUNCTIONS.items():
        # "special": DuckDB hands NULLs to the function and takes NULL back; by default it
        # refuses a NULL result, and None is how a builtin says "no result" (a valid path
        # for path_invalid, a text that is no number for to_number)
        con.create_function(name, _vectorized(fn, len(args), result), list(args), result, type="arrow",
                            null_handling="special", side_effects=False)


def _vectorized(fn: Callable, arity: int, result: str) -> Callable:
    """``fn`` over Arrow arrays (DuckDB passes up to 2,048 rows a call). Where at most one
    argument varies in the chunk (a pattern or a constant beside a column: every call the
    rules make but one), ``fn`` is called once per distinct value of it and the answers are
    spread by index: a Python call per row was most of `valid_scope`'s 0.08 s for 100
    repositories (100,000 entries, a few scopes). A NULL argument gives NULL, as DuckDB
    answers a row-at-a-time function without calling it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = {"VARCHAR": pa.string(), "BIGINT": pa.int64(), "BOOLEAN": pa.bool_(),
            "VARCHAR[]": pa.list_(pa.string())}[result]

    def constant(col) -> bool:
        return col.null_count == len(col) or (col.null_count == 0 and pc.count_distinct(col).as_py() == 1)

    def call(*cols):
        cols = [c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for c in cols]
        if not len(cols[0]):
            return pa.array([], type=kind)
        varying = [i for i, c in enumerate(cols) if not constant(c)]
        if len(varying) > 1:
            rows = zip(*(c.to_pylist() for c in cols))
            return pa.array([None if None in row else fn(*row) for row in rows], type=kind)
        at = varying[0] if varying else 0
        encoded = pc.dictionary_encode(cols[at])
        fixed = [c[0].as_py() for c in cols]
        answers = []
        for value in encoded.dictionary.to_pylist():
            fixed[at] = value
            answers.append(None if None in fixed else fn(*fixed))
        return pc.take(pa.array(answers, type=kind), encoded.indices)
    return _positional(call, arity)
