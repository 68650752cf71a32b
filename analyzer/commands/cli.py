"""The ``analyze`` command line: builds the parser from the command registry and dispatches.

Nothing below this module imports it. Any exception that escapes a command is turned into
an internal-error message (exit 3) instead of a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import List, Optional

from analyzer import __version__
from analyzer.commands import bounds
from analyzer.core import exitcodes
from analyzer.core.hints import did_you_mean
from analyzer.contract.registry import COMMANDS


class Parser(argparse.ArgumentParser):
    """argparse with the conventions people type: no abbreviated options (``--al`` is not
    ``--all``), and a did-you-mean on every invalid choice (commands, formats, tasks)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def _check_value(self, action, value):  # argparse's hook for ``choices`` (3.10-3.13)
        choices = action.choices
        if choices is not None and value not in choices:
            listed = ", ".join(repr(c) for c in choices)
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r} (choose from {listed}){did_you_mean(str(value), choices)}")

    def unknown_arguments(self, extra: List[str]) -> None:
        """Refuse ``extra`` (exit 2) with this parser's usage, suggesting the closest option
        for each unknown one."""
        options = [o for o in self._option_string_actions if o.startswith("--")]
        hints = [f"{word!r}{did_you_mean(word.split('=', 1)[0], options)}"
                 for word in extra if word.startswith("-") and word != "-"]
        self.error("unrecognized arguments: " + " ".join(extra) + (" (" + "; ".join(hints) + ")" if hints else ""))


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """Build the full argparse parser from the registry (live commands only).

    With ``only`` (a live command's name) the parser has that command alone: a run of one
    command then imports one command module, not all of them (about a twentieth of a warm
    10,000-entry ``read``). Parsing that command's arguments is the same either way: a
    subcommand's usage, help and errors never mention its siblings."""
    parser = Parser(
        prog="analyze",
        description="Read-only analyzer for MemoryCustodian Protocol 0.7 memory projects.",
        epilog="Exit codes: 0 ok, 1 check failed, 2 invalid input, 3 internal error "
               "('analyze COMMAND --help' details them where a command gives them a specific meaning).",
    )
    parser.add_argument("--version", action="version", version=f"memory-analyzer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for spec in COMMANDS:
        if spec.status != "live" or (only is not None and spec.name != only):
            continue
        module = importlib.import_module(spec.module)
        cmd = sub.add_parser(spec.name, help=spec.summary, description=spec.description or spec.summary,
                             epilog=_exits_epilog(spec))
        module.add_arguments(cmd)
        bounds.add_timeout(cmd, spec.name)  # every command has a time bound (analyzer/commands/bounds.py)
        cmd.set_defaults(_module=spec.module)
    return parser


_LIVE = frozenset(spec.name for spec in COMMANDS if spec.status == "live")


def _exits_epilog(spec) -> Optional[str]:
    """The command's exit statuses as its --help states them (the registry's, as docs/cli.md)."""
    if not spec.exits:
        return None
    return "Exit status: " + "; ".join(f"{code}: {meaning}" for code, meaning in spec.exits) + \
        "; 3: internal error."


def _command_parser(parser: argparse.ArgumentParser, name: Optional[str]) -> "Parser":
    """The subparser of command ``name`` (the top-level parser when there is none)."""
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        if name in getattr(action, "choices", {}):
            return action.choices[name]
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``analyze`` console script; returns the exit status."""
    words = sys.argv[1:] if argv is None else list(argv)
    if "--no-cache" in (words[:words.index("--")] if "--" in words else words):
        # from before the parser is built: some options' choices come from the rules (a
        # compiled program, a Lark table), and --no-cache leaves every cache as it found it
        from analyzer.core import cache

        with cache.turned_off():
            return _run(words)
    return _run(words)


def _run(words: List[str]) -> int:
    """:func:`main` for the command line ``words``."""
    # the first word names the command (the top level takes no option before it but -h and
    # --version); anything else, an unknown command included, gets the full parser
    first = words[0] if words else None
    parser = build_parser(first if first in _LIVE else None)
    if first == "check":  # a refused command line still writes the artefacts it asked for
        from analyzer.commands.check import parse_or_report

        args, extra = parse_or_report(parser, words)
    else:
        args, extra = parser.parse_known_args(words)
    # argparse takes a command's positionals in one run; a command that names its positional
    # list in ``_intermixed`` also gets positionals written after options (query's GOAL)
    intermixed = getattr(args, "_intermixed", None)
    if extra and intermixed and not any(e.startswith("-") for e in extra):
        getattr(args, intermixed).extend(extra)
    elif extra:
        # the command's own usage, not the top level's: the error is about its options
        command_parser = _command_parser(parser, getattr(args, "command", None))
        if first == "check":  # the same refusal, and the artefacts the command line asked for
            from analyzer.commands.check import parse_or_report

            parse_or_report(_Refuse(command_parser, extra), words)
        command_parser.unknown_arguments(extra)
    if not getattr(args, "_module", None):
        parser.print_help(sys.stderr)
        return exitcodes.INVALID
    module = importlib.import_module(args._module)
    cwd_gone = _cwd_gone()
    try:
        from analyzer.project import config

        try:
            config.settle_max_file_bytes(args)
        except config.ConfigError as exc:
            # check reads the configuration itself and reports it in its own formats
            if args._module != "analyzer.commands.check":
                print(f"Error: {exc}", file=sys.stderr)
                return exitcodes.INVALID
        dog = args._watchdog = bounds.command_watchdog(args)
        if dog is None:
            return int(module.run(args))
        with dog.watching(f"running analyze {args.command}"):
            return int(module.run(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return exitcodes.INTERNAL
    except BrokenPipeError:
        return exitcodes.OK
    except Exception as exc:  # a traceback must never reach a user
        known = _known_failure(exc, args.command, cwd_gone)
        if known is not None:
            print(known, file=sys.stderr)
            return exitcodes.INVALID
        print(f"analyze: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("please report this with the command line that caused it", file=sys.stderr)
        return exitcodes.INTERNAL


def _cwd_gone() -> bool:
    """Whether the working directory no longer exists (deleted under the shell that ran us)."""
    import os

    try:
        os.getcwd()
    except OSError:
        return True
    return False


def _known_failure(exc: BaseException, command: str, cwd_gone: bool) -> Optional[str]:
    """The error line (exit 2) for an exception that escaped a command but is no internal
    error: a resource limit reached anywhere (DL902, as ``query`` reports it), memory
    exhausted, standard output that cannot be written, or a working directory that was
    deleted. None for anything else (a real internal error, exit 3)."""
    from analyzer.engine.errors import EvaluationLimitError
    from analyzer.core.streams import StreamError

    # a limit that fires while Python runs a hook of its own (a class body's __set_name__, e.g. a
    # dataclass defined by a module imported late) reaches us wrapped, as the cause of a RuntimeError
    while not isinstance(exc, EvaluationLimitError) and isinstance(exc.__cause__, EvaluationLimitError):
        exc = exc.__cause__
    if isinstance(exc, EvaluationLimitError):
        return f"analyze {command}: error: {exc.diagnostic('<' + command + '>').render()}"
    if isinstance(exc, MemoryError):
        return (f"analyze {command}: error: <{command}>:1:1: DL902 out of memory (the process could not "
                f"allocate more); give it more memory or narrow the request")
    if isinstance(exc, StreamError):
        return f"analyze {command}: error: MA-OUTPUT {exc}"
    if cwd_gone and isinstance(exc, OSError):
        return (f"analyze {command}: error: MA-USAGE the current directory no longer exists "
                f"({exc.strerror or exc}); cd to an existing directory or pass an absolute --project-root")
    return None


class _Refuse:
    """A stand-in parser whose parsing is refusing the arguments left over, as
    :meth:`Parser.unknown_arguments` does (usage, did-you-mean, SystemExit(2))."""

    def __init__(self, parser: "Parser", extra: List[str]) -> None:
        self.parser, self.extra = parser, extra

    def parse_known_args(self, words):
        """Refuse ``extra`` with the command's usage and the closest options."""
        self.parser.unknown_arguments(self.extra)


def console() -> None:
    """The ``analyze`` console script (and ``python -m analyzer``): :func:`main`, then a
    fast exit that skips freeing what the command built (analyzer/core/lifetime.py), once the
    output is out and the cache is pruned if due (analyzer/core/cache_prune.py)."""
    from analyzer.core import cache_prune, lifetime, streams

    streams.setup()  # UTF-8 whatever the locale; a failed write is MA-OUTPUT, exit 2
    lifetime.enable()
    lifetime.exit_now(main(), housekeeping=cache_prune.after_run)


if __name__ == "__main__":  # pragma: no cover
    console()
