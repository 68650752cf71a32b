"""The hostile inputs of docs/reliability.md, run against an ``analyze`` executable.

Each case is one whole process under a wall-clock timeout and an address-space cap (never
run these without both: several of them exhaust a machine on an unbounded analyzer). A row
gives the wall time, peak RSS, exit status, bytes of stdout and the first line of stderr.

    python bench/hostile.py [--analyze PATH] [--timeout 60] [--memory-gib 4] [CASE ...]

``--analyze`` defaults to ``analyze`` on PATH; pass an older build's executable for the
"before" column. Case names are listed by ``--list``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/measure.py


def _glob_project(root: Path, glob: str) -> Path:
    sys.path.insert(0, str(ROOT / "tests" / "corpus"))
    from corpus_project import BASE, manifest_text  # the corpus's manifest generator

    shutil.copytree(BASE, root)
    (root / "docs/memory/areas").mkdir()
    (root / "docs/memory/areas/x.md").write_text("# Area: X\n\nx\n", encoding="utf-8")
    decl = {"path": "areas/x.md", "activation": "path-or-explicit", "paths": [glob]}
    (root / "docs/memory/manifest.md").write_text(manifest_text({"areas": [decl]}), encoding="utf-8")
    return root


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def _nested(depth: int) -> str:
    expr = "X"
    for _ in range(depth):
        expr = f"({expr} + 1)"
    return f".decl a(x: number)\n.decl p(x: number)\na(1).\np(Y) :- a(X), Y = {expr}.\n"


def _wide(atoms: int, comparisons: int) -> str:
    body = [f"e(X{i}, X{i + 1})" for i in range(atoms)] + [f"X0 < {10 ** 6 + k}" for k in range(comparisons)]
    return (".decl e(x: number, y: number)\n.decl p(x: number, y: number)\ne(1, 2).\n"
            f"p(X0, X{atoms}) :- {', '.join(body)}.\n")


def _chain(n: int) -> str:
    return (".decl e(x: number, y: number)\n.decl r(x: number)\nr(0).\nr(Y) :- r(X), e(X, Y).\n"
            + "".join(f"e({i}, {i + 1}).\n" for i in range(n)))


CROSS = (".decl a(x: number)\n.decl p(x: number, y: number, z: number)\n"
         + "".join(f"a({i}).\n" for i in range(1000)) + "p(X, Y, Z) :- a(X), a(Y), a(Z).\n")


def cases(tmp: Path) -> dict:
    """name -> (argv after the executable, cwd)."""
    d = lambda name: _glob_project(tmp / name, {  # noqa: E731
        "glob-5-stars": "**/**/**/**/*a*a*a*a*a*b", "glob-8-stars": "*a*a*a*a*a*a*a*a*b",
        "glob-8-dstars": "**/**/**/**/**/**/**/**/x"}[name])
    read = ["read", "--task", "implementation", "--path"]
    fifo = tmp / "fifo"
    (fifo / "facts").mkdir(parents=True)
    os.mkfifo(fifo / "facts" / "e.facts")
    os.mkfifo(fifo / "prog.dl")
    (fifo / "dir.dl").mkdir()
    _write(fifo / "ok.dl", ".decl e(x: number)\n.decl p(x: number)\np(X) :- e(X).\n")
    re_prog = _write(tmp / "re.dl", '.decl s(x: symbol)\n.decl m(x: symbol)\ns("' + "a" * 34 + 'c").\n'
                     'm(X) :- s(X), re_match("(a+)+b", X).\n')
    return {
        "glob-5-stars": (read + ["a" * 120], d("glob-5-stars")),
        "glob-8-stars": (read + ["a" * 200], d("glob-8-stars")),
        "glob-8-dstars": (read + ["/".join(["y"] * 60)], d("glob-8-dstars")),
        "re-match": (["query", re_prog, "m(X)", "--timeout", "5"], tmp),
        "cross-timeout": (["query", _write(tmp / "cross.dl", CROSS), "p(X,Y,Z)", "--timeout", "5"], tmp),
        "cross-max-tuples": (["query", _write(tmp / "cross2.dl", CROSS), "p(X,Y,Z)", "--max-tuples", "1000000"], tmp),
        "concat-doubling": (["query", _write(tmp / "concat.dl", '.decl s(x: symbol)\ns("ab").\n'
                                             's(C) :- s(X), concat(X, X, C).\n'), "s(X)", "--timeout", "5"], tmp),
        "counter-default-limits": (["query", _write(tmp / "count.dl", ".decl n(x: number)\nn(0).\n"
                                                    "n(X+1) :- n(X).\n"), "n(X)"], tmp),
        "body-20-atoms": (["query", _write(tmp / "w20.dl", _wide(20, 0)), "p(X, Y)"], tmp),
        "body-120-comparisons": (["query", _write(tmp / "c120.dl", _wide(1, 120)), "p(X, Y)"], tmp),
        "arithmetic-210-deep": (["query", _write(tmp / "n210.dl", _nested(210)), "p(X)"], tmp),
        "literal-5000-digits": (["query", _write(tmp / "big.dl", ".decl p(x: number)\np(" + "9" * 5000 + ").\n"),
                                 "p(X)"], tmp),
        "fifo-facts": (["query", "ok.dl", "p(X)", "--facts", "facts"], fifo),
        "fifo-program": (["query", "prog.dl", "p(X)"], fifo),
        "directory-program": (["query", "dir.dl", "p(X)"], fifo),
        "why-chain-8000": (["query", _write(tmp / "chain8k.dl", _chain(8000)), "r(8000)", "--why"], tmp),
        "why-chain-100000": (["query", _write(tmp / "chain100k.dl", _chain(100_000)), "r(100000)", "--why",
                              "--timeout", "5"], tmp),
    }


def run(argv, cwd, timeout: float, memory: int) -> tuple:
    """(wall s, peak MiB, status, stdout bytes, first stderr line) of one capped process."""
    from measure import run_once

    env = dict(os.environ, XDG_CACHE_HOME=str(Path(cwd) / ".cache"))
    done = run_once(argv, timeout, cwd=str(cwd), memory=memory, env=env)
    status = f"killed at {timeout:g} s" if done.status == "timeout" else done.status.split(":")[0]
    first = next((line for line in done.stderr.splitlines() if line.strip()), "")
    return done.wall, done.rss_mib, status, len(done.stdout.encode()), first


def main() -> int:
    """Run the cases and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*")
    parser.add_argument("--analyze", default=shutil.which("analyze") or "analyze")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--memory-gib", type=float, default=4.0)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        table = cases(Path(tmp))
        if args.list:
            print("\n".join(table))
            return 0
        print("| case | wall s | peak MiB | status | stdout bytes | stderr (first line) |")
        print("| --- | ---: | ---: | --- | ---: | --- |")
        for name in args.cases or table:
            argv, cwd = table[name]
            wall, peak, status, size, first = run([args.analyze, *argv], cwd, args.timeout,
                                                  int(args.memory_gib * (1 << 30)))
            print(f"| {name} | {wall:.1f} | {peak:,.0f} | {status} | {size:,} | {first[:160].replace('|', '/')} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
