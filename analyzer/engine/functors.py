"""Soufflé's functor syntax for the builtins that compute the same values.

Soufflé writes string and conversion functions as terms: ``X = cat(A, "-", B)``,
``N = strlen(S)``, ``p(to_string(N))``. Our builtins are predicates whose last argument is
the result (``concat(A, B, C)``, ``strlen(S, N)``). The parser turns each functor term into a
fresh variable and a builtin literal computing it, placed just before the literal that uses
it (after the body for a functor in the head, inside the aggregate for an aggregate's
target), so a functor means exactly what its builtin means: same types, same modes, same
"no result" cases (e.g. ``substr`` out of range, ``to_number`` of a non-number).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

#: functor name -> (builtin, number of arguments; None for cat's two or more)
FUNCTORS: Dict[str, Tuple[str, Optional[int]]] = {
    "cat": ("concat", None),
    "strlen": ("strlen", 1),
    "substr": ("substr", 3),
    "to_number": ("to_number", 1),
    "to_string": ("to_string", 1),
}

#: prefix of the variables that hold functor values (no variable a user writes starts so)
FRESH = "$"


def usage() -> str:
    """The supported functors as one line, for diagnostics and docs."""
    return "cat(A, B, ...), strlen(S), substr(S, Start, Len), to_number(S), to_string(N)"


def problem(name: str, arity: int) -> Optional[str]:
    """Why ``name(...)`` with ``arity`` arguments is not a supported functor, or None."""
    if name not in FUNCTORS:
        return f"unknown functor {name}(...): the functors are {usage()}; other builtins are literals " \
               f"with the result last, e.g. lower(S, L)"
    _builtin, expected = FUNCTORS[name]
    if expected is None and arity < 2:
        return f"{name} takes two or more arguments"
    if expected is not None and arity != expected:
        return f"{name} takes {expected} argument{'s' if expected != 1 else ''}, not {arity}"
    return None


def calls(name: str, args: List[object], fresh) -> Tuple[List[Tuple[str, tuple]], object]:
    """The builtin calls ``(builtin, args)`` computing ``name(args)`` and the term holding its
    value; ``fresh()`` makes a new result variable. ``cat`` of n arguments is n - 1 concats."""
    builtin, _ = FUNCTORS[name]
    if name != "cat":
        out = fresh()
        return [(builtin, (*args, out))], out
    out_calls, left = [], args[0]
    for right in args[1:]:
        out = fresh()
        out_calls.append((builtin, (left, right, out)))
        left = out
    return out_calls, left
