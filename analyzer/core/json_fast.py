"""``json.dumps(value, indent=2, ensure_ascii=True)``'s exact text, written by the C encoder.

The standard library encodes with ``indent`` in pure Python (its C encoder has no indent), which
made the JSON of 30,000 findings cost seconds. Here Python walks only the objects and arrays
that hold other objects or arrays; an object or array whose members are all scalars (most of
a large document: a finding's locations, its entry lists) is encoded in one call of the C
encoder whose item separator carries the newline and the indent of its depth. Strings never
hold a raw newline once encoded, so the result is byte for byte the indented encoder's
(tests/ci/test_json_fast.py compares the two on generated documents).

Anything the fast path does not know (a non-string key, a value that is no JSON type) makes
``dumps_indented`` fall back to the standard library, so behaviour never differs.
"""

from __future__ import annotations

import json
from json import encoder as _encoder
from typing import Any, Callable, Dict, List

_SCALARS = (str, int, float, bool, type(None))
_CONTAINERS = (dict, list, tuple)
_PLAIN_CONTAINERS = {dict, list}
_by_depth: Dict[int, Callable[[Any, int], Any]] = {}


class _Unknown(Exception):
    """A value the fast path leaves to the standard library."""


def dumps_indented(value: Any) -> str:
    """The text of ``json.dumps(value, indent=2, ensure_ascii=True)``."""
    if _encoder.c_make_encoder is None:  # an interpreter without the C accelerator
        return json.dumps(value, indent=2, ensure_ascii=True)
    out: List[str] = []
    try:
        if isinstance(value, _CONTAINERS):
            _write(value, 0, out)
        else:
            out.append(_scalar(value))
    except _Unknown:
        return json.dumps(value, indent=2, ensure_ascii=True)
    return "".join(out)


def _flat(depth: int) -> Callable[[Any, int], Any]:
    # A C encoder for a scalar-only container at this depth: its members go one a line.
    enc = _by_depth.get(depth)
    if enc is None:
        enc = _encoder.c_make_encoder(None, None, _encoder.encode_basestring_ascii, None, ": ",
                                      ",\n" + "  " * (depth + 1), False, False, True)
        _by_depth[depth] = enc
    return enc


def _scalar(value: Any) -> str:
    # One scalar as the encoder writes it (the C string encoder; int's and float's own repr).
    if type(value) is str:
        return _encoder.encode_basestring_ascii(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)
    if isinstance(value, _SCALARS):
        return json.dumps(value, ensure_ascii=True)
    raise _Unknown


def _write(value: Any, depth: int, out: List[str]) -> None:
    # ``value`` is a dict, list or tuple: scalar-only ones in one C call, others member by member.
    if isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        for key in value:
            if type(key) is not str:
                raise _Unknown
        members = value.values()
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        members = value
    else:
        raise _Unknown
    deep = False
    for m in members:
        if type(m) in _PLAIN_CONTAINERS or isinstance(m, _CONTAINERS):
            deep = True
            break
        if not isinstance(m, _SCALARS):
            raise _Unknown
    if not deep:
        text = "".join(_flat(depth)(value, 0))
        out.append(f"{text[0]}\n{'  ' * (depth + 1)}{text[1:-1]}\n{'  ' * depth}{text[-1]}")
        return
    inner = "  " * (depth + 1)
    sep = ",\n" + inner
    encode = _encoder.encode_basestring_ascii
    if isinstance(value, dict):
        out.append("{\n" + inner)
        for i, (key, member) in enumerate(value.items()):
            prefix = encode(key) + ": "
            out.append(prefix if not i else sep + prefix)
            if isinstance(member, _CONTAINERS):
                _write(member, depth + 1, out)
            else:
                out.append(_scalar(member))
        out.append("\n" + "  " * depth + "}")
        return
    out.append("[\n" + inner)
    for i, member in enumerate(value):
        if i:
            out.append(sep)
        if isinstance(member, _CONTAINERS):
            _write(member, depth + 1, out)
        else:
            out.append(_scalar(member))
    out.append("\n" + "  " * depth + "]")
