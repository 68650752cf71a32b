"""``analyze read --tool T --path P``: which agent instruction files load for P, per tool."""

from __future__ import annotations

import argparse

from analyzer.core import exitcodes

TOOL_CHOICES = ("claude", "codex", "cursor", "copilot", "gemini", "windsurf", "all")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--tool`` and ``--cwd`` (the other read options are shared: --path, --explain, --format)."""
    parser.add_argument("--tool", choices=TOOL_CHOICES, default=None,
                        help="instead of the memory pack: the agent instruction files TOOL loads for each --path, "
                             "in order, with reasons (all: every tool side by side)")
    parser.add_argument("--cwd", default=None, metavar="DIR",
                        help="with --tool: the folder the agent is started in (default: the project root)")


def run(args: argparse.Namespace) -> int:
    """Answer the request; a path outside the root is a usage error, never a traceback."""
    from analyzer.commands.read import usage_error
    from analyzer.query.agents import TOOLS, normalize_path, read_tools
    from analyzer.render.agents_text import payload, render_text

    paths = []
    for raw in args.path or ["."]:
        norm = normalize_path(raw)
        if norm is None:
            return usage_error("read", args, f"--path {raw!r} is not inside the project root")
        paths.append(norm)
    cwd = normalize_path(args.cwd) if args.cwd is not None else ""
    if cwd is None:
        return usage_error("read", args, f"--cwd {args.cwd!r} is not inside the project root")
    tools = TOOLS if args.tool == "all" else (args.tool,)
    from analyzer.project.config import ConfigError

    try:
        result = read_tools(str(args.project_root), tools, paths, cwd, args.memory_dir, not args.no_cache)
    except ConfigError as exc:  # the configuration's agents / agents-exclude: path:line:col
        return usage_error("read", args, exc.message, exc.code, exc.path, exc.line, exc.col)
    if args.format == "json":
        from analyzer.contract.output import emit_json

        return emit_json("read", "agents", payload(result)) or exitcodes.OK
    print(render_text(result, args.explain), end="")
    return exitcodes.OK
