"""``analyze mcp``: serve the project's memory to agents over the Model Context Protocol (stdio)."""

from __future__ import annotations

import argparse
import os
import sys

from analyzer.core import exitcodes
from analyzer.commands.bounds import positive_int, seconds
from analyzer.engine.limits import QUERY_TIMEOUT_S
from analyzer.project.root import add_root_arguments, resolve_root

#: the optional dependency's install line, said when it is missing
INSTALL = "pip install 'memory-custodian-analyzer[mcp]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the server's options: the project, and the bounds of every call."""
    add_root_arguments(parser)
    parser.add_argument("--timeout", type=seconds, default=QUERY_TIMEOUT_S, metavar="S",
                        help=f"stop any one tool call after S seconds with a DL902 tool error (default "
                             f"{QUERY_TIMEOUT_S:g}; 0 means no limit); the server keeps running")
    from analyzer.commands.mcp_calls import MAX_ANSWER_BYTES

    parser.add_argument("--max-answer-bytes", type=positive_int, default=MAX_ANSWER_BYTES, metavar="N",
                        help=f"largest answer of one call, in bytes (default {MAX_ANSWER_BYTES}); a larger one is "
                             "cut there and returned as an MA-MCP-SIZE tool error with a note")
    parser.add_argument("--no-cache", action="store_true",
                        help="answer every call afresh (no answer cache, no parse cache)")


def run(args: argparse.Namespace) -> int:
    """Serve until standard input ends; exit 2 when the MCP SDK is not installed."""
    try:
        import mcp.server.lowlevel  # noqa: F401  (the optional dependency)
    except ImportError:
        print(f"analyze mcp: error: MA-USAGE the MCP server needs the optional dependency `mcp`: {INSTALL}",
              file=sys.stderr)
        return exitcodes.INVALID
    from analyzer.core import lifetime
    from analyzer.commands.mcp_calls import Calls
    from analyzer.commands.mcp_server import serve

    lifetime.disable()  # a server answers many calls: what one built must be freed, not kept to exit
    root = resolve_root(args.project_root, args.memory_dir)
    path = os.path.abspath(root.path)
    if os.path.isdir(path):
        os.chdir(path)  # touched paths are project-relative, whatever directory the host started us in
    else:  # every project tool then says so (a tool error); explain and schema still answer
        print(f"analyze mcp: warning: project root is not a directory: {path}", file=sys.stderr)
    calls = Calls(path, args.memory_dir, timeout=args.timeout, max_bytes=args.max_answer_bytes,
                  use_cache=not args.no_cache)
    serve(calls)
    return exitcodes.OK
