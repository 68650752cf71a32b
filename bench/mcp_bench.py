"""`analyze mcp` benchmark: a warm ``memory_read`` call against a warm ``analyze read`` process.

usage: python bench/mcp_bench.py [--root DIR] [--runs 21] [--task implementation] [--path P]

Paired and alternating: each round runs one whole ``analyze read --format json`` process
(spawn to exit, ``perf_counter``), then one ``memory_read`` call with the same request to one
long-running ``analyze mcp`` server over stdio, timed in the SDK's client from request to
answer. Both are warm: one unmeasured process run fills the caches under a private
``XDG_CACHE_HOME``, and one unmeasured call warms the server. Two kinds of call are measured:

* *repeat*: the same request every round, answered from the server's answer cache (the
  memory files' digests unchanged);
* *fresh*: a request the server has not seen (a different touched path each round, the CLI
  given the same path), so the server evaluates it: imports, compiled rules and parse cache
  warm, the answer computed.

Every answer must equal the process's JSON, otherwise the script exits with status 1. Prints
the median of each series and the ratio call / process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.mcp.session import run, session, text_of  # noqa: E402


def _process(root: str, task: str, path: str, env: dict) -> tuple:
    words = [sys.executable, "-m", "analyzer", "read", "--project-root", root, "--task", task, "--path", path,
             "--format", "json"]
    start = time.perf_counter()
    proc = subprocess.run(words, capture_output=True, text=True, env=env, cwd=str(REPO))
    return time.perf_counter() - start, json.loads(proc.stdout)


def main(argv=None) -> int:
    """Run the paired rounds and print the medians (exit 1 when an answer differs)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(REPO / "examples" / "acme-shop"))
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--task", default="implementation")
    parser.add_argument("--path", default="api/payments/refund.py")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    cache = tempfile.mkdtemp(prefix="mcp-bench-cache-")
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": cache}
    os.environ["XDG_CACHE_HOME"] = cache  # the server inherits it through the client's env filter

    async def rounds():
        series = {"process repeat": [], "call repeat": [], "process fresh": [], "call fresh": []}
        bad = 0
        _process(root, args.task, args.path, env)  # warm the on-disk caches
        async with session(root, env={"XDG_CACHE_HOME": cache}) as client:
            await client.call_tool("memory_read", {"task": args.task, "paths": [args.path]})  # warm the server
            for i in range(args.runs):
                for kind, path in (("repeat", args.path), ("fresh", f"src/fresh/{i}.py")):
                    wall, expected = _process(root, args.task, path, env)
                    series[f"process {kind}"].append(wall)
                    start = time.perf_counter()
                    result = await client.call_tool("memory_read", {"task": args.task, "paths": [path]})
                    series[f"call {kind}"].append(time.perf_counter() - start)
                    cached = (result.meta or {}).get("memory-analyzer/cached")
                    if json.loads(text_of(result)) != expected or cached != (kind == "repeat"):
                        bad += 1
        return series, bad

    series, bad = run(rounds)
    print(f"project {root}, {args.runs} paired rounds, `read --task {args.task} --path P --format json`")
    for kind in ("repeat", "fresh"):
        process = statistics.median(series[f"process {kind}"])
        call = statistics.median(series[f"call {kind}"])
        print(f"{kind:7} median: process {process * 1000:8.1f} ms   memory_read call {call * 1000:8.1f} ms   "
              f"ratio {call / process:.3f}")
    if bad:
        print(f"{bad} answers differed from the process's JSON", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
