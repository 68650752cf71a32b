"""The time bound of every command, and the command-line numbers that set bounds
(``--timeout``, ``--max-memory``, ``--max-tuples``, ``--max-file-bytes``).

Every command has ``--timeout S`` (0 = no limit): the whole command, from the start of its
work to its last line of output, stops after S seconds with a ``DL902`` error and exit 2,
as ``query`` did for its evaluation. Defaults (docs/cli.md, "Time bounds"):

- ``query``: :data:`~analyzer.engine.limits.QUERY_TIMEOUT_S` (60 s);
- ``shell``: the same, for each line (the session itself waits for its user);
- ``mcp``: the same, for each tool call (the server itself runs until its input ends);
- every other command: :data:`COMMAND_TIMEOUT_S`.

The bound is a :class:`~analyzer.engine.limits.Watchdog` armed around the command
(:func:`command_watchdog`): its timer signal checks the deadline every 50 ms whatever runs
(extraction, Git, evaluation, rendering), so no phase of a command is outside it. ``query``
keeps its own watchdog (it also enforces tuples and memory, and must report its error as a
document once the limit is reached), counted from when the command started
(``args._started``), so its deadline is the command's.
"""

from __future__ import annotations

import argparse
from decimal import Decimal, InvalidOperation
from typing import Any, Optional

#: default ``--timeout`` of every command but ``query`` and ``shell``: ten minutes, far above
#: what a check, diff or readiness of a large real project takes, far below a CI job's limit
COMMAND_TIMEOUT_S = 600.0
#: largest ``--timeout`` in seconds (about 31 years): more is a typo, not a bound
MAX_SECONDS = 1e9
#: largest ``--max-memory`` (2^63 bytes: no machine has more; resource limits are 64-bit)
MAX_SIZE = 1 << 63
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def seconds(text: str) -> float:
    """``--timeout`` argument: a finite number of seconds from 0 (no limit) to :data:`MAX_SECONDS`."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number of seconds {text!r} (e.g. 30, 2.5; 0 for no limit)") from None
    if not 0 <= value <= MAX_SECONDS:  # also false for nan
        raise argparse.ArgumentTypeError(f"--timeout must be between 0 (no limit) and {MAX_SECONDS:g} seconds, "
                                         f"not {text!r}")
    return value


def size(text: str) -> int:
    """``--max-memory`` argument: bytes, or a number with K, M, G or T (binary units), at
    most :data:`MAX_SIZE`."""
    import re

    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)i?B?\s*", text, re.IGNORECASE)
    if not match:
        raise argparse.ArgumentTypeError(f"invalid size {text!r} (examples: 2G, 500M, 0 for no limit)")
    try:  # a decimal, not float(): 400 digits are no float, and int(inf) was a traceback
        value = int(Decimal(match.group(1)) * _UNITS[match.group(2).upper()])
    except (InvalidOperation, OverflowError):
        value = MAX_SIZE + 1
    if value > MAX_SIZE:
        raise argparse.ArgumentTypeError(f"size {text[:40]!r} is too large (at most 2^63 bytes; 0 for no limit)")
    return value


def positive_int(text: str) -> int:
    """A whole number of at least 1 (``--max-tuples``, ``--max-file-bytes``)."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text[:40]!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return number


def add_timeout(parser: argparse.ArgumentParser, command: str) -> None:
    """Give ``parser`` the ``--timeout`` of ``command`` unless it declares its own."""
    if "--timeout" in parser._option_string_actions:  # query: its own help, the same type
        return
    if command == "shell":
        parser.add_argument("--timeout", type=seconds, default=None, metavar="S",
                            help="stop a line's evaluation after S seconds (default 60; 0 means no limit)")
        return
    if command == "fleet":  # its time grows with the repositories: 1,000 take longer than one project's bound
        parser.add_argument("--timeout", type=seconds, default=0.0, metavar="S",
                            help="stop the command after S seconds with DL902, exit 2 (default 0: no limit)")
        return
    parser.add_argument("--timeout", type=seconds, default=COMMAND_TIMEOUT_S, metavar="S",
                        help=f"stop the command after S seconds with DL902, exit 2 (default {COMMAND_TIMEOUT_S:g}; "
                             f"0 means no limit)")


def add_max_file_bytes(parser: argparse.ArgumentParser) -> None:
    """``--max-file-bytes N``: the size cap of one memory file (every command that loads a project)."""
    from analyzer.project.files import SIZE_CAP

    # default None: the project configuration's max-file-bytes, else SIZE_CAP (analyzer.commands.cli
    # settles it before the command runs, so every command sees a number)
    parser.add_argument("--max-file-bytes", type=positive_int, default=None, metavar="N",
                        help=f"largest memory file read, in bytes (default: max-file-bytes of the project "
                             f"configuration, else {SIZE_CAP}, 10 MiB); a larger file is an error, not a "
                             "silently missing module")


def command_watchdog(args: Any) -> Optional[Any]:
    """The watchdog that bounds the whole command (None for the shell, which bounds each
    line, for ``mcp``, which bounds each call, for ``query``, which bounds itself from ``args._started``, and when ``--timeout 0``
    asks for no bound). Only time is checked here: the
    memory and tuple limits stay those of each evaluation (``query`` adds its own)."""
    import time

    args._started = time.monotonic()
    timeout = getattr(args, "timeout", None)
    if args.command in ("shell", "query", "mcp") or not timeout:
        return None
    from analyzer.engine.limits import Limits, Watchdog

    return Watchdog(Limits(max_tuples=1 << 62, timeout_s=timeout, max_memory=None))
