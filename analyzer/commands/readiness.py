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
    from analyzer.commands.autonomy import add_agent_option
    from analyzer.project.root import add_root_arguments

    add_agent_option(parser)
    add_root_arguments(parser)
    parser.add_argument("--no-cache", action="store_true",
                        help="do not read or write the parse cache or the per-commit Git results (history cache)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def run(args: argparse.Namespace) -> int:
    """Take the readings and print them (text or the ``readiness.result`` document)."""
    from pathlib import Path

    from analyzer.commands.autonomy import history_options
    from analyzer.commands.read import history_error, usage_error
    from analyzer.query.readiness import run_readiness
    from analyzer.project.root import resolve_root

    args.project_root = resolve_root(args.project_root, args.memory_dir).path
    if not Path(args.project_root).is_dir():
        return usage_error("readiness", args, f"project root is not a directory: {args.project_root}")
    failed = history_options(args, "readiness")
    if failed is not None:
        code, message, path, line, col = failed
        return usage_error("readiness", args, message, code, path, line, col)
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
