"""``analyze readiness``: may an agent be given full autonomy? Readings R1-R4 over history.

Exit 0 when all four readings pass, 1 otherwise (a null reading never passes), 2 when the
history cannot be read or an option is invalid.
"""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the readiness options."""
    parser.add_argument("--as-of", default=None, metavar="TIME",
                        help="take the readings at TIME (ISO 8601, or @SECONDS; default: the commit time of --head)")
    parser.add_argument("--head", default="HEAD", metavar="REV", help="the history to read (default: HEAD)")
    add_agent_option(parser)
    from analyzer.project.root import add_root_arguments

    add_root_arguments(parser)
    parser.add_argument("--no-cache", action="store_true",
                        help="do not read or write the parse cache or the per-commit Git results (history cache)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def add_agent_option(parser: argparse.ArgumentParser) -> None:
    """``--agent-author PATTERN`` (repeatable; also the configuration's `agent-authors`)."""
    parser.add_argument("--agent-author", dest="agent_authors", action="append", default=None, metavar="PATTERN",
                        help="a regular expression an agent's commit author (`Name <email>`) fully matches (Python's "
                             "syntax without lookaround or backreferences, matched in linear time); "
                             "commits with a `Memory-Agent:` trailer are agents' too (default: the configuration's "
                             "`agent-authors`)")


def history_options(args: argparse.Namespace, command: str, configured: bool = False):
    """Fill the options the configuration sets (unless ``configured``: the caller applied it,
    as check --base does with the base revision's trusted keys) and check the author
    patterns: None, or ``(code, message, path, line)`` of the first problem."""
    from analyzer.project import config
    from analyzer.engine.linear_re import pattern_problem

    try:
        if not configured:
            config.apply(args, command, config.load(args.project_root))
    except config.ConfigError as exc:
        return exc.code, exc.message, exc.path, exc.line
    args.agent_authors = args.agent_authors or []
    for pattern in args.agent_authors:  # matched in linear time (analyzer/engine/linear_re.py)
        problem = pattern_problem(pattern)
        if problem:
            return ("MA-USAGE", f"agent author pattern {pattern!r} is not a regular expression: "
                    f"{problem.split(': ', 1)[1]}", "<command line>", 1)
    return None


def run(args: argparse.Namespace) -> int:
    """Take the readings and print them (text or the ``readiness.result`` document)."""
    from pathlib import Path

    from analyzer.commands.read import history_error, usage_error
    from analyzer.query.readiness import run_readiness
    from analyzer.project.root import resolve_root

    args.project_root = resolve_root(args.project_root, args.memory_dir).path
    if not Path(args.project_root).is_dir():
        return usage_error("readiness", args, f"project root is not a directory: {args.project_root}")
    failed = history_options(args, "readiness")
    if failed is not None:
        code, message, path, line = failed
        return usage_error("readiness", args, message, code, path, line)
    result = run_readiness(Path(args.project_root), args.memory_dir, args.head, args.as_of, args.agent_authors,
                           not args.no_cache)
    if result.failure is not None:
        return history_error("readiness", args, result.failure)
    if args.format == "json":
        from analyzer.contract.output import emit_json
        from analyzer.render.readiness_out import readiness_payload

        return emit_json("readiness", "result", readiness_payload(result)) or result.exit_code
    from analyzer.render.readiness_out import render_readiness_text

    sys.stdout.write(render_readiness_text(result))
    return result.exit_code if result.exit_code in (0, 1) else exitcodes.INTERNAL
