"""Resource limits for one evaluation: the engine never runs away.

Limits are checked after every iteration and, inside long iterations, every few thousand
tuples of a rule's outermost loop, so a limit is noticed within a fraction of a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Limits:
    """``max_tuples``: derived tuples over all relations; ``timeout_s``: wall seconds (None = none)."""

    max_tuples: int = 50_000_000
    timeout_s: Optional[float] = None

# outer-loop tuples between two limit checks inside one rule evaluation
CHECK_EVERY = 8192
