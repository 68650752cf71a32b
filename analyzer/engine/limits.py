"""Resource limits for one evaluation: the engine never runs away.

Three limits: wall time, derived tuples and memory (the process's resident set). They are
enforced by :mod:`analyzer.engine.watchdog`, which checks them every :data:`TICK` seconds
whatever Python code is running (a join loop of any depth, a builtin, a regular expression,
proof building, output), and after every iteration.

The memory limit is on by default: :func:`default_max_memory`. ``analyze query`` also has a
default time limit, :data:`QUERY_TIMEOUT_S`; the library and ``analyze read`` have none.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

#: numbers are 64-bit signed integers: literals, facts and arithmetic results that are kept
#: stay within -MAX_NUMBER - 1 .. MAX_NUMBER (DL019 for a literal, DL917 for a result)
MAX_NUMBER = (1 << 63) - 1
#: longest symbol a builtin (concat, concat3, replace) may build (DL931 beyond it)
MAX_SYMBOL_LENGTH = 1 << 24
#: deepest nesting of arithmetic in one term (DL020 beyond it); generated code needs one
#: parenthesis per level and CPython allows 200
MAX_EXPRESSION_DEPTH = 100
#: seconds between two checks of the limits while Python code runs
TICK = 0.05
#: outer-loop tuples between two inline limit checks (used where no timer signal can be had)
CHECK_EVERY = 8192
#: default ``--timeout`` of ``analyze query``
QUERY_TIMEOUT_S = 60.0
#: fraction of the machine's memory (physical, or the cgroup's limit) the default allows
MEMORY_FRACTION = 0.5
#: fraction of an address-space rlimit (``ulimit -v``) the default allows: Python maps more
#: address space than it keeps resident
ADDRESS_SPACE_FRACTION = 0.75


def _physical_memory() -> Optional[int]:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _cgroup_memory() -> Optional[int]:
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path, encoding="ascii") as handle:
                text = handle.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < (1 << 60):  # "max" or a huge number: no limit
            return int(text)
    return None


def _address_space_limit() -> Optional[int]:
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, AttributeError, ValueError, OSError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def default_max_memory() -> Optional[int]:
    """Bytes of resident memory an evaluation may reach by default: half of the machine's
    memory (its cgroup limit when lower), and at most 3/4 of an address-space rlimit.
    None when none of these can be read (the limit is then off)."""
    candidates = []
    machine = [m for m in (_physical_memory(), _cgroup_memory()) if m]
    if machine:
        candidates.append(int(min(machine) * MEMORY_FRACTION))
    rlimit = _address_space_limit()
    if rlimit:
        candidates.append(int(rlimit * ADDRESS_SPACE_FRACTION))
    return min(candidates) if candidates else None


@dataclass(frozen=True)
class Limits:
    """``max_tuples``: derived tuples over all relations; ``timeout_s``: wall seconds;
    ``max_memory``: bytes of resident memory of the process (None = no limit)."""

    max_tuples: int = 50_000_000
    timeout_s: Optional[float] = None
    max_memory: Optional[int] = field(default_factory=default_max_memory)
