"""Acceptance of ``analyze mcp`` (issue 28): the server as a subprocess, the SDK's own stdio client.

Every answer is compared with what ``analyze COMMAND --format json`` prints for the same
request (text for explain and why-not) on the bundled example and on the real-world trees;
bad requests, a missing project, an over-size answer and a timeout must come back as tool
errors with our codes while the server keeps answering.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# found, not imported: the SDK (pydantic models) costs about a second of CPU to import, and
# every xdist worker collects this module; the tests import it where they talk to a server
if importlib.util.find_spec("mcp") is None:
    pytest.skip("the MCP SDK (the `mcp` extra) is not installed", allow_module_level=True)

from tests.history.histrepo import tree_state  # noqa: E402
from tests.mcp.session import REPO, run, session, text_of  # noqa: E402
import inprocess  # noqa: E402
from shared_reference import REALWORLD, cross_check  # noqa: E402

EXAMPLE = REPO / "examples" / "acme-shop"
TREES = ["memorycustodian-dogfood", "nightnotes-video-demo"]
PATH = "api/payments/refund.py"
# a rule that runs for minutes: n counts to 10^8 (the timeout test)
RUNAWAY = [".decl n(x: number)", "n(0).", "n(X + 1) :- n(X), X < 100000000."]


def _cli(root, command, *argv, fmt=True):
    """``analyze COMMAND --project-root ROOT ARGV --format json``, the CLI run in this process
    (tests/inprocess.py; the server it is compared with is a process): (exit, stdout)."""
    words = [command, *argv]
    if root is not None:
        words += ["--project-root", str(root)]
    if fmt:
        words += ["--format", "json"]
    proc = inprocess.run(words, cwd=str(REPO))
    return proc.returncode, proc.stdout


def _calls(paths):
    """(tool, arguments, CLI command, CLI arguments, json?) for every tool."""
    request = ["--task", "implementation", *[w for p in paths for w in ("--path", p)]]
    return [
        ("memory_read", {"task": "implementation", "paths": paths}, "read", request, True),
        ("memory_read", {"task": "review", "paths": paths, "explicit": ["rule:reviews"], "strict": True},
         "read", ["--task", "review", *request[2:], "--rule", "reviews", "--strict-routing"], True),
        ("memory_why", {"module": "brief.md", "task": "implementation", "paths": paths}, "why",
         ["brief.md", *request], True),
        ("memory_why", {"pattern": "disposition(M, D)", "task": "implementation"}, "why",
         ["--pattern", "disposition(M, D)", "--task", "implementation"], True),
        ("memory_whynot", {"pattern": 'disposition("nope.md", "loaded")', "task": "implementation"}, "why",
         ["--pattern", 'disposition("nope.md", "loaded")', "--task", "implementation"], False),
        ("memory_check", {}, "check", [], True),
        ("memory_check", {"families": ["routing"]}, "check", ["--routing"], True),
        ("memory_query", {"goal": 'disposition(M, "loaded")', "task": "implementation"}, "query",
         ['disposition(M, "loaded")', "--task", "implementation"], True),
        ("memory_query", {"goal": "big(M)", "rules": ['big(M) :- disposition(M, "loaded")'], "task": "review"},
         "query", ["big(M)", "-e", 'big(M) :- disposition(M, "loaded")', "--task", "review"], True),
        ("memory_schema", {"relation": "owner"}, None, ["owner"], True),
        ("memory_schema", {"derived": True}, None, ["--derived"], True),
        ("memory_diff", {"base": "HEAD"}, "diff", ["--base", "HEAD"], True),
        ("memory_explain", {"code": "DL902"}, None, ["DL902"], False),
    ]


def _compare_with_cli(root, paths):
    """Call every tool through the server and the same request through the CLI; the same answers."""
    calls = _calls(paths)

    async def scenario():
        out = []
        async with session(root) as client:
            for name, arguments, *_ in calls:
                out.append(await client.call_tool(name, arguments))
        return out

    results = run(scenario)
    for (name, arguments, command, argv, is_json), result in zip(calls, results):
        command = command or name.split("_", 1)[1]
        status, stdout = _cli(root if command not in ("schema", "explain") else None, command, *argv, fmt=is_json)
        if is_json:
            expected = json.loads(stdout)
            assert result.structured_content == expected, (name, arguments)
            assert json.loads(text_of(result)) == expected  # the text is the document too
            assert result.is_error == (expected.get("ok") is False), (name, arguments, status)
        else:
            assert text_of(result) == stdout, (name, arguments)
        assert (result.meta or {}).get("memory-analyzer/exit") == status, (name, arguments)


def test_every_tool_answers_as_the_cli_on_the_example():
    _compare_with_cli(EXAMPLE, [PATH])


@cross_check
@pytest.mark.parametrize("tree", TREES)
def test_every_tool_answers_as_the_cli_on_the_real_world_trees(tmp_path, tree):
    source = REALWORLD / tree
    if not source.is_dir():
        pytest.skip(f"{source} is absent")
    root = tmp_path / tree  # a copy: nothing may be run against the shared tree that could write
    shutil.copytree(source, root, symlinks=True)
    _compare_with_cli(root, ["cli/main.py", "docs/README.md"])


def test_the_tool_list_is_the_generated_one():
    from analyzer.commands.mcp_calls import Calls
    from analyzer.commands.mcp_tools import TOOLS, tool_description

    calls = Calls(str(EXAMPLE))

    async def scenario():
        async with session(EXAMPLE) as client:
            return (await client.list_tools()).tools

    listed = {t.name: t for t in run(scenario)}
    assert sorted(listed) == sorted(spec.name for spec in TOOLS)
    for spec in TOOLS:
        assert listed[spec.name].input_schema == calls.schema(spec), spec.name
        assert listed[spec.name].description == tool_description(spec), spec.name


def test_errors_are_tool_errors_and_the_server_keeps_answering(tmp_path):
    async def scenario():
        seen = []
        async with session(EXAMPLE, "--timeout", "3") as client:
            bad_goal = await client.call_tool("memory_query", {"goal": "owner(I, M"})
            runaway = await client.call_tool("memory_query", {"goal": "n(-1)", "rules": RUNAWAY})
            unknown = await client.call_tool("memory_read", {"task": "implementation", "paths": [], "nope": 1})
            no_code = await client.call_tool("memory_explain", {"code": "NOT-A-CODE"})
            after = await client.call_tool("memory_read", {"task": "implementation", "paths": [PATH]})
            seen += [bad_goal, runaway, unknown, no_code, after]
        async with session(tmp_path / "no-such-project") as client:
            missing = await client.call_tool("memory_read", {"task": "implementation", "paths": []})
            explain = await client.call_tool("memory_explain", {"code": "DL902"})
            seen += [missing, explain]
        async with session(EXAMPLE, "--max-answer-bytes", "4096") as client:
            huge = await client.call_tool("memory_read", {"task": "implementation", "paths": [PATH]})
            small = await client.call_tool("memory_explain", {"code": "DL902"})
            seen += [huge, small]
        return seen

    bad_goal, runaway, unknown, no_code, after, missing, explain, huge, small = run(scenario)

    def code(result):
        return (result.meta or {}).get("memory-analyzer/code")

    assert bad_goal.is_error and code(bad_goal).startswith("DL") and code(bad_goal) in text_of(bad_goal)
    assert bad_goal.structured_content["schema"]["name"] == "query.error"
    assert runaway.is_error and code(runaway) == "DL902" and "limit timeout=3s exceeded" in text_of(runaway)
    assert unknown.is_error and code(unknown) == "MA-USAGE" and "'nope'" in text_of(unknown)
    assert no_code.is_error and code(no_code) == "MA-USAGE" and "NOT-A-CODE" in text_of(no_code)
    assert not after.is_error and after.structured_content["schema"]["name"] == "read.result"
    assert missing.is_error and code(missing) == "MA-USAGE" and "not a directory" in text_of(missing)
    assert not explain.is_error and text_of(explain).startswith("DL902")
    assert huge.is_error and code(huge) == "MA-MCP-SIZE" and huge.structured_content is None
    text = text_of(huge)
    assert len(text.encode()) < 4096 + 400 and "answer truncated" in text and "--max-answer-bytes" in text
    assert not small.is_error


def test_a_timeout_bounds_every_command_not_only_query():
    # the command's watchdog (SIGALRM in the server's main thread) stops a read too
    async def scenario():
        async with session(EXAMPLE, "--timeout", "0.001", "--no-cache") as client:
            slow = await client.call_tool("memory_read", {"task": "implementation", "paths": [PATH]})
            tools = await client.list_tools()
            return slow, tools

    slow, tools = run(scenario)
    assert slow.is_error and (slow.meta or {})["memory-analyzer/code"] == "DL902", text_of(slow)
    assert len(tools.tools) == 8


def test_the_cache_is_warm_until_a_memory_file_changes_and_nothing_is_written(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(EXAMPLE, root)
    before = tree_state(root)
    args = {"task": "implementation", "paths": [PATH]}
    decisions = root / "docs" / "memory" / "decisions.md"

    async def scenario():
        async with session(root) as client:
            first = await client.call_tool("memory_read", args)
            second = await client.call_tool("memory_read", args)
            sockets = _sockets_of_server(root)
            state = tree_state(root)
            # same size, one byte different: only the content digest can tell
            text, st = decisions.read_text(encoding="utf-8"), decisions.stat()
            assert "Entries are newest first." in text
            decisions.write_text(text.replace("Entries are newest first.", "Entries are newest first!"),
                                 encoding="utf-8")
            os.utime(decisions, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, inode and mtime
            third = await client.call_tool("memory_read", args)
            (root / "api" / "payments").mkdir(parents=True)
            (root / "api" / "payments" / "refund.py").write_text("pass\n", encoding="utf-8")
            fourth = await client.call_tool("memory_read", args)
            fifth = await client.call_tool("memory_read", args)
            return first, second, third, fourth, fifth, sockets, state

    first, second, third, fourth, fifth, sockets, state = run(scenario)
    assert state == before  # the server wrote nothing into the project
    assert sockets == []  # no network: the server holds no socket

    def cached(result):
        return (result.meta or {}).get("memory-analyzer/cached")

    assert not cached(first) and cached(second) and second.structured_content == first.structured_content
    assert not cached(third)  # a memory file changed
    assert not cached(fourth) and cached(fifth)  # the touched path appeared on disk
    assert fourth.structured_content["paths"] == [{"path": PATH, "missing_on_disk": False}]
    assert first.structured_content["paths"] == [{"path": PATH, "missing_on_disk": True}]
    status, stdout = _cli(root, "read", "--task", "implementation", "--path", PATH)
    assert fifth.structured_content == json.loads(stdout)


def _sockets_of_server(root: Path) -> list:
    """The network (TCP/UDP, v4/v6) sockets of the ``analyze mcp`` process serving ``root``
    (Linux /proc); the event loop's own socket pair is a Unix socket and does not count."""
    if not Path("/proc/self/fd").is_dir():
        return []
    needle = f"mcp\0--project-root\0{root}\0".encode()
    pids, network = [], []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if needle not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
            inet = set()
            for table in ("tcp", "tcp6", "udp", "udp6"):
                for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
                    inet.add(line.split()[9])
        except OSError:
            continue
        pids.append(pid)
        network += [link for link in links if link.startswith("socket:[") and link[8:-1] in inet]
    assert pids, "the server process was not found"
    return network


def test_concurrent_calls_get_the_answers_of_sequential_ones():
    import anyio

    requests = [("memory_read", {"task": "implementation", "paths": [PATH]}),
                ("memory_query", {"goal": 'disposition(M, "skipped")', "task": "review"}),
                ("memory_schema", {"relation": "disposition"}),
                ("memory_why", {"module": "brief.md", "task": "implementation"}),
                ("memory_check", {"families": ["routing"]})] * 2

    async def scenario():
        async with session(EXAMPLE, "--no-cache") as client:
            sequential = [await client.call_tool(n, a) for n, a in requests]
            together = [None] * len(requests)

            async def one(i):
                together[i] = await client.call_tool(*requests[i])

            async with anyio.create_task_group() as group:
                for i in range(len(requests)):
                    group.start_soon(one, i)
            return sequential, together

    sequential, together = run(scenario)
    for (name, _), a, b in zip(requests, sequential, together):
        assert not a.is_error and a.structured_content == b.structured_content, name


def test_the_context_pack_is_a_resource():
    async def scenario():
        async with session(EXAMPLE) as client:
            templates = await client.list_resource_templates()
            pack = await client.read_resource(f"memory://pack/implementation?path={PATH}")
            return templates, pack

    templates, pack = run(scenario)
    assert [t.uri_template for t in templates.resource_templates] == ["memory://pack/{task}"]
    status, stdout = _cli(EXAMPLE, "read", "--task", "implementation", "--path", PATH, fmt=False)
    assert pack.contents[0].text == stdout and stdout.startswith("# Memory Context Pack")


def test_without_the_sdk_the_command_names_the_extra():
    blocker = ("import sys\n"
               "class Block:\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name == 'mcp' or name.startswith('mcp.'):\n"
               "            raise ImportError('blocked: ' + name)\n"
               "sys.meta_path.insert(0, Block())\n"
               "from analyzer.commands.cli import main\n"
               "sys.exit(main(['mcp', '--project-root', sys.argv[1]]))\n")
    proc = subprocess.run([sys.executable, "-c", blocker, str(EXAMPLE)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "MA-USAGE" in proc.stderr and "pip install 'memory-custodian-analyzer[mcp]'" in proc.stderr
    assert proc.stdout == ""
