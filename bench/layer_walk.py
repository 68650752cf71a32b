"""Follow one ``analyze check`` request through the code: which modules it visits, and how
often a call climbs back up the layers (issue 26).

Runs the CLI in this process under ``sys.setprofile`` and records, for every call into a
function of ``analyzer``, the module of the caller (the nearest ``analyzer`` frame) and of
the callee. It prints:

* ``modules``: distinct ``analyzer`` modules whose functions ran;
* ``climbs``: calls from a module of a lower layer into a module of a higher one, by the
  declared order (``analyzer.LAYERS`` of the measured tree, or the one given by ``--layers``);
  ``distinct climbs`` counts (caller module, callee module) pairs;
* ``switches``: calls that cross from one module into another.

The watchdog's timer signal handler is left out: it interrupts whatever frame runs, which is
not a call that frame made.

A tree in the layout before issue 26 (modules at the top of analyzer/) has no layer packages:
``--map OLD_TO_NEW.tsv`` names each old module's new dotted name (bench/layout-issue26.tsv), and
its layer is the new name's package, so both layouts are measured against the same layers.

    python bench/layer_walk.py                                   # this tree, warm cache
    python bench/layer_walk.py --cold                            # empty cache
    python bench/layer_walk.py --tree ../main --map bench/layout-issue26.tsv

Each run uses a fresh XDG_CACHE_HOME; without ``--cold`` the request runs once untraced first.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
DEFAULT_LAYERS = ("core", "engine", "project", "history", "contract", "query", "render", "commands", "dev")


def read_map(path: Optional[str]) -> Dict[str, str]:
    """Old dotted module name -> new dotted name (tab-separated lines, # comments)."""
    if not path:
        return {}
    pairs = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            old, new = line.split("\t")
            pairs[old.strip()] = new.strip()
    return pairs


def layer_of(module: str, layers: Tuple[str, ...], mapping: Dict[str, str]) -> int:
    """The layer index of a module (the root package at the bottom, ``__main__`` at the top)."""
    name = mapping.get(module, module)
    parts = name.split(".")
    if len(parts) == 1:
        return 0
    if parts[1] == "__main__":
        return len(layers)
    if parts[1] not in layers:
        raise SystemExit(f"layer_walk: {module} ({name}) is in no layer of {layers}: give --map")
    return layers.index(parts[1])


def walk(argv: List[str]) -> Tuple[List[Tuple[str, str]], int]:
    """Run the CLI with ``argv`` traced: (caller module, callee module) per call, exit status."""
    cli = _cli_module()
    calls: List[Tuple[str, str]] = []

    def profile(frame, event, arg):
        if event != "call":
            return
        if frame.f_code.co_name == "<module>":
            return  # a module's body running on import: no function of it was called
        handler = signal.getsignal(signal.SIGALRM)  # the watchdog's tick interrupts any frame:
        handler = getattr(handler, "__func__", handler)  # not a call that frame made
        if frame.f_code is getattr(handler, "__code__", None):
            return
        callee = frame.f_globals.get("__name__", "")
        if not callee.startswith("analyzer"):
            return
        back = frame.f_back
        while back is not None and not back.f_globals.get("__name__", "").startswith("analyzer"):
            back = back.f_back
        calls.append((back.f_globals["__name__"] if back is not None else "", callee))

    out, err = io.StringIO(), io.StringIO()
    status = 0
    sys.argv = ["analyze", *argv]  # as the console script sees it
    sys.setprofile(profile)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(argv)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.setprofile(None)
    return calls, status


def _cli_module():
    import importlib

    for name in ("analyzer.commands.cli", "analyzer.cli"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise SystemExit("layer_walk: no analyzer CLI module found")


def report(calls: List[Tuple[str, str]], layers: Tuple[str, ...], mapping: Dict[str, str]) -> Dict[str, int]:
    """The figures of one traced run."""
    modules = {callee for _, callee in calls}
    switches = [(a, b) for a, b in calls if a and a != b]
    climbs = [(a, b) for a, b in switches if layer_of(a, layers, mapping) < layer_of(b, layers, mapping)]
    return {"modules": len(modules), "calls": len(calls), "switches": len(switches),
            "climbs": len(climbs), "distinct climbs": len(set(climbs))}, Counter(climbs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", default=str(HERE.parent), help="the source tree to measure (default: this one)")
    ap.add_argument("--map", help="old -> new module names (TSV) for a tree in the old layout")
    ap.add_argument("--project", default=None, help="the project to check (default: TREE/examples/acme-shop)")
    ap.add_argument("--cold", action="store_true", help="trace the first run, on an empty cache")
    ap.add_argument("--top", type=int, default=10, help="list this many most frequent climbs")
    ap.add_argument("args", nargs="*", default=["check"], help="the command (default: check)")
    args = ap.parse_args()
    tree = Path(args.tree).resolve()
    sys.path.insert(0, str(tree))
    for name in [m for m in sys.modules if m == "analyzer" or m.startswith("analyzer.")]:
        del sys.modules[name]
    import analyzer

    if not str(Path(analyzer.__file__).resolve()).startswith(str(tree)):
        raise SystemExit(f"layer_walk: imported {analyzer.__file__}, not the tree {tree}")
    layers = tuple(getattr(analyzer, "LAYERS", DEFAULT_LAYERS))
    mapping = read_map(args.map)
    project = args.project or str(tree / "examples" / "acme-shop")
    argv = [*args.args, "--project-root", project]
    with tempfile.TemporaryDirectory() as cache:
        os.environ["XDG_CACHE_HOME"] = cache
        if not args.cold:
            walk(argv)
        calls, status = walk(argv)
    figures, climbs = report(calls, layers, mapping)
    print(f"tree: {tree}  command: analyze {' '.join(argv)}  ({'cold' if args.cold else 'warm'} cache, exit {status})")
    for key, value in figures.items():
        print(f"{key}: {value}")
    for (a, b), n in climbs.most_common(args.top):
        print(f"  climb {n:6d}  {a} -> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
