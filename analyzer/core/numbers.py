"""Numbers written in memory files: ASCII digits only, compared without building big integers.

``str.isdigit`` accepts superscripts and other scripts' digits that ``int`` then rejects
(or accepts: Arabic-Indic digits), and ``int`` refuses strings over 4,300 digits; both ended
as internal errors on fuzzed manifests (issue 14). Every numeric field goes through here:
a value that is not plain ASCII digits is "not numeric", and digits are compared as digits
(:func:`digits_key`), never parsed to ``int``.
"""

from __future__ import annotations

import re
from typing import Optional, Tuple

_DIGITS = re.compile(r"[0-9]+")


def is_digits(text: str) -> bool:
    """Whether ``text`` is one or more ASCII digits (nothing else: no sign, space or script digit)."""
    return _DIGITS.fullmatch(text) is not None


def digits_key(text: str) -> Tuple[int, str]:
    """An order-preserving key of an ASCII digit string: (significant length, digits)."""
    significant = text.lstrip("0")
    return len(significant), significant


def version_key(value: str) -> Optional[Tuple[Tuple[int, str], ...]]:
    """A dot-separated numeric version as a comparable tuple (trailing zero parts dropped, so
    ``0.7.0`` == ``0.7``), or None when a part is not ASCII digits. Linear in the length."""
    parts = value.split(".")
    if not all(is_digits(p) for p in parts):
        return None
    keys = [digits_key(p) for p in parts]
    while len(keys) > 1 and keys[-1] == (0, ""):
        keys.pop()
    return tuple(keys)


def shown(value: str, quote: bool = True, limit: int = 40) -> str:
    """``value`` for a message (``repr``-quoted unless ``quote`` is false), shortened to
    about ``limit`` characters and its length when longer."""
    if len(value) <= limit:
        return repr(value) if quote else value
    return repr(value[:limit]) + f"... ({len(value)} characters)"
