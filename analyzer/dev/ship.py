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

from pathlib import Path
from typing import List

import analyzer
from analyzer.core import larkcache
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


def main() -> int:
    """Compile the shipped programs, then the Lark tables, of the package being built."""
    for done in shipped.build(Path(analyzer.__file__).resolve().parent) + build_lark_tables():
        print(f"compiled {done}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
