"""``analyze shell``: an interactive prompt over a project's memory (stdlib readline).

History (kept between sessions under ``$XDG_CACHE_HOME/memory-analyzer``, never in the
project) and Tab completion of relation names, builtins and dot commands. The project is
read once; every line is answered from the facts already read (see analyzer/commands/shell_session.py).
"""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes

PROMPT = "?- "


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Project root, memory dir, cache switch."""
    from analyzer.project.root import add_root_arguments

    add_root_arguments(parser)
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the parse and program caches")


def run(args: argparse.Namespace) -> int:
    """Read lines until end of input or .quit; 0 on a normal end, 2 when the root is unusable."""
    from pathlib import Path

    from analyzer.commands.shell_session import Shell
    from analyzer.project.root import resolve_root

    args.project_root = resolve_root(args.project_root, args.memory_dir).path
    if not Path(args.project_root).is_dir():
        print(f"analyze shell: error: project root is not a directory: {args.project_root}", file=sys.stderr)
        return exitcodes.INVALID
    from analyzer.engine.limits import QUERY_TIMEOUT_S, Limits, Watchdog

    # each line is bounded by --timeout (analyzer/commands/bounds.py); reading the project once too
    timeout = QUERY_TIMEOUT_S if args.timeout is None else args.timeout
    with Watchdog(Limits(timeout_s=timeout or None)).watching("reading the project"):
        shell = Shell(Path(args.project_root), args.memory_dir, use_cache=not args.no_cache)
    from analyzer.commands.query import warn_unusable

    warn_unusable("shell", shell.project, not args.no_cache)  # goals answer over what could be read
    shell.timeout = timeout
    interactive = sys.stdin.isatty()
    history = _setup_readline(shell) if interactive else None
    if interactive:
        print("memory-analyzer shell: a goal or a rule per line; .help for commands, .quit to leave")
    try:
        while True:
            try:
                line = input(PROMPT if interactive else "")
            except EOFError:
                break
            try:
                sys.stdout.write(shell.handle(line))
            except EOFError:
                break
            sys.stdout.flush()
    except KeyboardInterrupt:
        pass
    finally:
        if history is not None:
            _save_history(history)
    if interactive:
        print()
    return exitcodes.OK


def _history_file():
    from analyzer.core.cache import cache_root  # $XDG_CACHE_HOME/memory-analyzer (engine.syntax no longer has it)

    return cache_root() / "shell_history"


def _setup_readline(shell):
    try:
        import readline
    except ImportError:  # no readline on this platform: plain input() still works
        return None

    def complete(text, state):
        matches = [w for w in shell.completions() if w.startswith(text)]
        return matches[state] if state < len(matches) else None

    readline.set_completer(complete)
    # relation names follow `(`, `,`, `!` or spaces; a leading `.` belongs to the word
    readline.set_completer_delims(" \t\n(),!=<>")
    readline.parse_and_bind("tab: complete")
    path = _history_file()
    try:
        readline.read_history_file(str(path))
    except OSError:
        pass
    return path


def _save_history(path) -> None:
    import readline

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        readline.set_history_length(1000)
        readline.write_history_file(str(path))
    except OSError:
        pass
