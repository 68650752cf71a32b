"""The wheel's build step: compile the shipped rule programs and build the grammars' Lark tables
from the package copy in the build tree.

``python -m analyzer.dev.ship`` (run by setup.py's build step, with the build tree first on
``sys.path``) writes ``analyzer/_data/compiled/*.program`` (analyzer/engine/shipped.py) and
``analyzer/_data/compiled/lark/*.lark-tables`` (analyzer/core/larkcache.py). It sits in
dev/ because building the tables loads every parser the package builds at run time, from the
rule language's (engine/) to the memory files' (project/): the modules that read the
shipped files at run time stay below both.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List

import analyzer
from analyzer.core import larkcache
from analyzer.core.resources import source_root
from analyzer.engine import shipped, syntax
from analyzer.project.extract import grammars

# the line grammars whose terminals the extractors match (analyzer.project.extract.grammars.terminal)
TERMINAL_GRAMMARS = ("entries", "local_manifest", "plan", "reconciliations", "subjects")


def build_lark_tables() -> List[Path]:
    """Build and write the tables of every parser the package builds at run time."""
    # parsers built earlier in this process (compiling the rules parses them) are memoized:
    # forget them, so that each one is built here, through larkcache.build
    grammars.forget_parsers()
    syntax.forget_parser()
    written: List[Path] = []
    larkcache.SHIPPING = written  # build() writes here instead of the cache
    try:
        for name in TERMINAL_GRAMMARS:
            grammars.terminal_parser(name)
        grammars.parser("manifest", ("start", "paths_value"))
        grammars.parser("agent_frontmatter")  # agent instruction files (analyzer/project/extract/agent_files.py)
        grammars.parser("agent_body")
        syntax.parser()
    finally:
        larkcache.SHIPPING = None
    return written


def build_checkout() -> List[Path]:
    """Compile the built-in programs and parser tables of a source checkout into its
    ``analyzer/_data/compiled`` (ignored by Git), as the build step does for a wheel; returns
    the files written (none when all are current).

    A checkout otherwise compiles the rules on every run that has no program cache (every
    ``--no-cache`` run, every fresh ``$XDG_CACHE_HOME``): about a second of CPU, most of a
    small project's read or check. The test suite runs this once per session
    (tests/conftest.py). The files are verified on load like a wheel's: once a rule or an
    engine source changes they no longer match and the program cache serves, so a stale
    build is never used. Each file is written under a temporary name and renamed, so a run
    beside the build never reads half a file."""
    if source_root() is None:
        raise SystemExit("not a source checkout: an installed package ships its compiled programs")
    root = shipped._data_root().resolve()
    header = shipped._header()
    written: List[Path] = []
    for rel in shipped.PROGRAMS:
        target = shipped.compiled_path(rel)
        try:
            with open(target, "rb") as handle:
                if handle.read(len(header)) == header:
                    continue  # current
        except OSError:
            pass
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(f"{target.name}.{os.getpid()}.part")
        part.write_bytes(shipped.compile_program(root, rel))
        os.replace(part, target)
        written.append(target)
    if written or not any(larkcache.ship_dir().glob("*")):
        written += build_lark_tables()
    return written


def main(argv=None) -> int:
    """Compile the shipped programs, then the Lark tables, of the package being built; with
    ``--checkout``, those of this source checkout (:func:`build_checkout`)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--checkout"]:
        built = build_checkout()
    else:
        built = shipped.build(Path(analyzer.__file__).resolve().parent) + build_lark_tables()
    for done in built:
        print(f"compiled {done}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
