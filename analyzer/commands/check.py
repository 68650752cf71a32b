"""``analyze check``: the protocol's project checks (spec §9), one family or all of them.

Dispatch is the reference's: ``--conflicts`` wins, then ``--routing``, ``--reachability``,
``--freshness``; no flag runs the full legacy check; ``--all`` (ours) runs every family in
one evaluation and prints each family's block.
"""

from __future__ import annotations

import argparse
import sys

from analyzer import exitcodes

FLAGS = ("conflicts", "routing", "reachability", "freshness")  # dispatch priority (§9)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the check options (the reference's family flags, plus --all and --format)."""
    parser.add_argument("--routing", action="store_true", help="check every canonical route and optional module declaration")
    parser.add_argument("--reachability", action="store_true", help="find active memory no normal route can load")
    parser.add_argument("--freshness", action="store_true", help="check Evidence paths and revisions, and stale relations")
    parser.add_argument("--conflicts", action="store_true", help="project-wide conflict analysis of the current worktree")
    parser.add_argument("--merge-base", metavar="REF", default=None,
                        help="with --conflicts: also review merging REF into HEAD (read-only Git, spec §9.5)")
    parser.add_argument("--all", action="store_true", help="run every family in one evaluation (one block each)")
    parser.add_argument("--project-root", default=".", metavar="DIR", help="project root (default: current directory)")
    parser.add_argument("--memory-dir", default="docs/memory", metavar="DIR", help="memory directory under docs/ (default: docs/memory)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the parse cache")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")


def families_of(args: argparse.Namespace):
    """The families a command line runs, in block order (§9 dispatch)."""
    from analyzer.query.check_families import ORDER

    if args.all:
        return list(ORDER)
    for flag in FLAGS:
        if getattr(args, flag):
            return [flag]
    return ["legacy"]


def run(args: argparse.Namespace) -> int:
    """Run the chosen families and print their blocks (or the ``check.result`` document)."""
    from pathlib import Path

    from analyzer.commands.read import usage_error
    from analyzer.query.check import CheckRequest, run_check

    if not Path(args.project_root).is_dir():
        return usage_error("check", args, f"project root is not a directory: {args.project_root}")
    options = {"merge_base": args.merge_base} if args.merge_base is not None else {}
    result = run_check(CheckRequest(families_of(args), Path(args.project_root), args.memory_dir, not args.no_cache,
                                    options))
    if result.error is not None:
        # §9: a missing memory dir is the check's outcome (stdout, exit 1); unusable input
        # escapes as `Error: …` on stderr (exit 2). With --format json stdout holds the
        # check.error document instead.
        text_out = result.exit_code == exitcodes.FAILED and args.format == "text"
        print(result.error, file=sys.stdout if text_out else sys.stderr)
    if args.format == "json":
        from analyzer.output import emit_json
        from analyzer.render.check_json import check_payload, error_payload

        if result.error is not None:
            status = emit_json("check", "error", error_payload(result))
        else:
            status = emit_json("check", "result", check_payload(result))
        return status if status else result.exit_code
    from analyzer.render.check_text import render_check_text

    sys.stdout.write(render_check_text(result))  # empty for an error result
    return result.exit_code if result.exit_code in (0, 1, 2) else exitcodes.INTERNAL
