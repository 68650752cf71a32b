"""The command registry: every command, its status, and where its code lives.

This is the single list the CLI is built from. Output shapes are declared alongside (see
``analyzer.contract``) so that the CLI, docs/cli.md and docs/schemas/ never drift apart.
A reserved command is declared but not offered; ``instead`` says what to use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class CommandSpec:
    """One CLI command: its name, status (live|reserved), module and one-line summary."""

    name: str
    status: str
    module: str
    summary: str
    description: str = ""
    instead: Optional[str] = None


COMMANDS: Tuple[CommandSpec, ...] = (
    CommandSpec(
        "query", "live", "analyzer.commands.query",
        "evaluate a datalog program and print the tuples matching a pattern",
        "Evaluate PROGRAM.dl (with optional Soufflé-style facts) and print the tuples that match "
        "PATTERN, e.g. 'path(X, \"a\", _)'. --why prints a proof tree per tuple, --profile per-rule statistics.",
    ),
)


def command(name: str) -> CommandSpec:
    """Look up a declared command; an undeclared name is an error, never a default."""
    for spec in COMMANDS:
        if spec.name == name:
            return spec
    raise KeyError(f"undeclared command {name!r}")
