"""The MCP server of ``analyze mcp``: the tools of analyzer/commands/mcp_tools.py over stdio.

Built on the official MCP Python SDK's low-level ``Server`` (the ``mcp`` package, an optional
dependency: ``pip install 'memory-custodian-analyzer[mcp]'``): the tool list and input schemas
come from :mod:`analyzer.commands.mcp_tools`, each call is answered by :class:`analyzer.commands.mcp_calls.Calls`.
The context pack (the text ``analyze read`` prints) is also a resource,
``memory://pack/{task}``, with the touched paths as ``?path=P&path=Q``.

Calls run in the event loop's thread, one at a time: the watchdog that bounds a call needs
the main thread's timer signal, and the analyzer's process-wide state serves one command at
a time. A call that fails comes back as a tool result with ``isError`` and the code; the
server itself only stops when its input ends.
"""

from __future__ import annotations

from typing import Any, List
from urllib.parse import parse_qs, unquote, urlsplit

from analyzer import __version__
from analyzer.commands.mcp_calls import Answer, Calls
from analyzer.commands.mcp_tools import EXPLICIT, TOOLS, tool_description

PACK_SCHEME = "memory"
PACK_TEMPLATE = "memory://pack/{task}"
INSTRUCTIONS = (
    "memory-analyzer answers questions about this repository's agent memory (MemoryCustodian Protocol "
    "0.7) deterministically, with reasons, from its rules; it never writes. Before touching files call "
    "memory_read with the task and the paths; memory_why/memory_whynot explain a disposition; "
    "memory_check, memory_query, memory_schema, memory_diff and memory_explain answer the rest.")


def pack_words(uri: str) -> List[str]:
    """The ``analyze read`` arguments of a pack URI ``memory://pack/TASK?path=P&rule=R...``;
    ``ValueError`` for another URI."""
    parts = urlsplit(uri)
    if parts.scheme != PACK_SCHEME or parts.netloc != "pack" or not parts.path.strip("/"):
        raise ValueError(f"not a context pack URI: {uri!r} (expected {PACK_TEMPLATE}?path=P)")
    words = [f"--task={unquote(parts.path.strip('/'))}"]
    query = parse_qs(parts.query, keep_blank_values=True)
    allowed = {"path": "--path", **{prefix: option for prefix, option in EXPLICIT}}
    for key in sorted(query):
        if key not in allowed:
            raise ValueError(f"unknown pack URI parameter {key!r} (path, rule, profile, area)")
        words += [f"{allowed[key]}={value}" for value in query[key]]
    return words


def build_server(calls: Calls):
    """The SDK server answering with ``calls``."""
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    tools = [types.Tool(name=spec.name, description=tool_description(spec), input_schema=calls.schema(spec))
             for spec in TOOLS]

    async def list_tools(ctx, params) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params) -> Any:
        return _result(types, calls.call(params.name, params.arguments))

    async def list_resources(ctx, params) -> Any:
        return types.ListResourcesResult(resources=[types.Resource(
            uri="memory://pack/default", name="context-pack-default", mime_type="text/markdown",
            description="The context pack `analyze read` prints for the default task (no touched paths).")])

    async def list_templates(ctx, params) -> Any:
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            uri_template=PACK_TEMPLATE, name="context-pack", mime_type="text/markdown",
            description="The context pack `analyze read --task TASK` prints; add ?path=P (repeatable) for touched "
                        "paths and ?rule=R, ?profile=P, ?area=A to open modules explicitly.")])

    async def read_resource(ctx, params) -> Any:
        uri = str(params.uri)
        try:
            words = pack_words(uri)
        except ValueError as exc:
            raise MCPError(-32602, f"MA-USAGE {exc}") from None
        answer = calls.text("read", words)
        if answer.failure is not None:
            raise MCPError(-32603, answer.text.strip(), {"code": answer.failure.code})
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type="text/markdown", text=answer.text)])

    return Server("memory-analyzer", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
                  on_list_resource_templates=list_templates, on_read_resource=read_resource)


def _result(types, answer: Answer):
    """The CallToolResult of ``answer``: the text, the JSON document as structured content,
    ``isError`` and, for an error, the code in ``_meta``."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=answer.text)],
        structured_content=answer.document,
        is_error=answer.failure is not None,
        _meta={"memory-analyzer/code": answer.code, "memory-analyzer/exit": answer.exit_code,
               "memory-analyzer/cached": answer.cached},
    )


def serve(calls: Calls) -> None:
    """Serve MCP over standard input and output until the input ends."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(calls)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
