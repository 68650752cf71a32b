"""The ``analyze`` command line: builds the parser from the command registry and dispatches.

Nothing below this module imports it. Any exception that escapes a command is turned into
an internal-error message (exit 3) instead of a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import List, Optional

from analyzer import __version__, exitcodes
from analyzer.registry import COMMANDS


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """Build the full argparse parser from the registry (live commands only).

    With ``only`` (a live command's name) the parser has that command alone: a run of one
    command then imports one command module, not all of them (about a twentieth of a warm
    10,000-entry ``read``). Parsing that command's arguments is the same either way: a
    subcommand's usage, help and errors never mention its siblings."""
    parser = argparse.ArgumentParser(
        prog="analyze",
        description="Read-only analyzer for MemoryCustodian Protocol 0.7 memory projects.",
        epilog="Exit codes: 0 ok, 1 check failed, 2 invalid input, 3 internal error "
               "('analyze COMMAND --help' details them where a command gives them a specific meaning).",
    )
    parser.add_argument("--version", action="version", version=f"memory-analyzer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for spec in COMMANDS:
        if spec.status != "live" or (only is not None and spec.name != only):
            continue
        module = importlib.import_module(spec.module)
        cmd = sub.add_parser(spec.name, help=spec.summary, description=spec.description or spec.summary,
                             epilog=_exits_epilog(spec))
        module.add_arguments(cmd)
        cmd.set_defaults(_module=spec.module)
    return parser


_LIVE = frozenset(spec.name for spec in COMMANDS if spec.status == "live")


def _exits_epilog(spec) -> Optional[str]:
    """The command's exit statuses as its --help states them (the registry's, as docs/cli.md)."""
    if not spec.exits:
        return None
    return "Exit status: " + "; ".join(f"{code}: {meaning}" for code, meaning in spec.exits) + \
        "; 3: internal error."


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``analyze`` console script; returns the exit status."""
    words = sys.argv[1:] if argv is None else list(argv)
    # the first word names the command (the top level takes no option before it but -h and
    # --version); anything else, an unknown command included, gets the full parser
    first = words[0] if words else None
    parser = build_parser(first if first in _LIVE else None)
    if first == "check":  # a refused command line still writes the artefacts it asked for
        from analyzer.commands.check_errors import parse_or_report

        args, extra = parse_or_report(parser, words)
    else:
        args, extra = parser.parse_known_args(words)
    # argparse takes a command's positionals in one run; a command that names its positional
    # list in ``_intermixed`` also gets positionals written after options (query's GOAL)
    intermixed = getattr(args, "_intermixed", None)
    if extra and intermixed and not any(e.startswith("-") for e in extra):
        getattr(args, intermixed).extend(extra)
    elif extra and first == "check":
        from analyzer.commands.check_errors import parse_or_report

        parse_or_report(_Refuse(f"unrecognized arguments: {' '.join(extra)}", parser), words)
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(args, "_module", None):
        parser.print_help(sys.stderr)
        return exitcodes.INVALID
    module = importlib.import_module(args._module)
    try:
        from analyzer import config

        try:
            config.settle_max_file_bytes(args)
        except config.ConfigError as exc:
            # check reads the configuration itself and reports it in its own formats
            if args._module != "analyzer.commands.check":
                print(f"Error: {exc}", file=sys.stderr)
                return exitcodes.INVALID
        return int(module.run(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return exitcodes.INTERNAL
    except BrokenPipeError:
        return exitcodes.OK
    except Exception as exc:  # a traceback must never reach a user
        print(f"analyze: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("please report this with the command line that caused it", file=sys.stderr)
        return exitcodes.INTERNAL


class _Refuse:
    """A stand-in parser whose parsing is ``parser.error(message)`` (an argument left over)."""

    def __init__(self, message: str, parser) -> None:
        self.message, self.parser = message, parser

    def parse_known_args(self, words):
        """Refuse, as argparse does: usage and message on stderr, SystemExit(2)."""
        self.parser.error(self.message)


def console() -> None:
    """The ``analyze`` console script (and ``python -m analyzer``): :func:`main`, then a
    fast exit that skips freeing what the command built (analyzer/lifetime.py), once the
    output is out and the cache is pruned if due (analyzer/cache_prune.py)."""
    from analyzer import cache_prune, lifetime

    lifetime.enable()
    lifetime.exit_now(main(), housekeeping=cache_prune.after_run)


if __name__ == "__main__":  # pragma: no cover
    console()
