"""Talk to ``analyze mcp`` with the MCP SDK's own stdio client (tests/mcp, bench/mcp_bench.py).

:func:`session` starts the server as a subprocess (``python -m analyzer mcp``) and yields an
initialized :class:`mcp.ClientSession`; :func:`run` runs an async scenario to completion.
Run as a script, it prints the transcript docs/mcp.md shows: a real session on a project,
each request and what came back (long answers shortened for the page)::

    python tests/mcp/session.py examples/acme-shop
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parents[2]


def server_params(root: Any, *extra: str, env: Optional[Dict[str, str]] = None):
    """How to start ``analyze mcp --project-root ROOT EXTRA...`` with this interpreter."""
    from mcp.client.stdio import StdioServerParameters

    merged = {"PYTHONPATH": str(REPO), **{k: v for k, v in os.environ.items() if k.startswith("XDG_")},
              **(env or {})}
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "analyzer", "mcp", "--project-root", str(root), *extra],
                                 env=merged, cwd=str(REPO))


@asynccontextmanager
async def session(root: Any, *extra: str, env: Optional[Dict[str, str]] = None, errlog=None):
    """An initialized client session with a fresh server on ``root``."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    params = server_params(root, *extra, env=env)
    async with stdio_client(params, errlog=errlog or sys.stderr) as (read, write):
        async with ClientSession(read, write) as client:
            await client.initialize()
            yield client


def run(scenario) -> Any:
    """Run the coroutine function ``scenario`` (no arguments) and return its result."""
    import anyio

    return anyio.run(scenario)


def text_of(result) -> str:
    """The text content of a tool result (its one text block)."""
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


# ---- the documented transcript ------------------------------------------------------------

CALLS = (
    ("memory_read", {"task": "implementation", "paths": ["api/payments/refund.py"]}),
    ("memory_why", {"module": "areas/payments.md", "task": "implementation", "paths": ["api/payments/refund.py"]}),
    ("memory_check", {"families": ["routing"]}),
    ("memory_query", {"goal": 'disposition(M, "loaded")', "task": "review"}),
    ("memory_explain", {"code": "DL902"}),
    ("memory_query", {"goal": "owner(I, M"}),
)


def _short(text: str, keep: int) -> str:
    """``text`` shortened for the page: a JSON document on one line cut at 60 * ``keep``
    characters, other text cut at ``keep`` lines; either says how much was left out."""
    try:
        compact = json.dumps(json.loads(text), ensure_ascii=False)
    except ValueError:
        lines = text.splitlines()
        return "\n".join(lines[:keep] + ([f"... ({len(lines) - keep} more lines)"] if len(lines) > keep else []))
    limit = 60 * keep
    return compact if len(compact) <= limit else compact[:limit] + f" ... ({len(text):,} bytes in all)"


async def transcript(root: Any, keep: int = 14) -> List[str]:
    """The lines of a real session on ``root``: initialize, list tools, the :data:`CALLS`."""
    out: List[str] = []
    async with session(root) as client:
        tools = await client.list_tools()
        out.append(f"> tools/list\n< {len(tools.tools)} tools: {', '.join(t.name for t in tools.tools)}")
        for name, arguments in CALLS:
            result = await client.call_tool(name, arguments)
            meta = result.meta or {}
            out.append(f"> tools/call {name} {json.dumps(arguments)}\n"
                       f"< isError={str(result.is_error).lower()} code={meta.get('memory-analyzer/code')} "
                       f"exit={meta.get('memory-analyzer/exit')} cached={str(meta.get('memory-analyzer/cached')).lower()}\n"
                       + _short(text_of(result), keep))
        again = await client.call_tool(*CALLS[0])
        out.append(f"> tools/call {CALLS[0][0]} {json.dumps(CALLS[0][1])}   (again, files unchanged)\n"
                   f"< isError={str(again.is_error).lower()} cached={str((again.meta or {}).get('memory-analyzer/cached')).lower()}")
        pack = await client.read_resource("memory://pack/implementation?path=api/payments/refund.py")
        out.append("> resources/read memory://pack/implementation?path=api/payments/refund.py\n"
                   + _short(pack.contents[0].text, keep))
    return out


if __name__ == "__main__":  # pragma: no cover - the docs' transcript
    target = sys.argv[1] if len(sys.argv) > 1 else str(REPO / "examples" / "acme-shop")
    print("\n\n".join(run(lambda: transcript(os.path.abspath(target)))))
