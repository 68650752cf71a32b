"""The ID index requests (`list`, `show`) and the Subject requests (`subject list`,
`subject merge`): record the request as facts, evaluate rules/index/index.dl for the
relations the command prints, and select them into plain results.

Which rows exist, which are listed, every refusal (missing memory dir, the files needed
and so refused when unusable, duplicate IDs, an overlay that is not BOUND, unknown IDs) and
every Subject question are derived relations; this module only moves data and locates units.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from analyzer.core.lifetime import gc_paused
from analyzer.contract.results import Failure
from analyzer.project import files
from analyzer.query.program import index_program
from analyzer.core.span import Span


@dataclass
class IndexRequest:
    """The arguments of one index or Subject request, exactly as supplied."""

    project_root: Path
    memory_dir: str = "docs/memory"
    use_cache: bool = True
    include_archive: bool = False
    local: bool = False
    status: Optional[str] = None
    scope: Optional[str] = None
    lookup: Optional[str] = None
    merge: Optional[Tuple[str, str]] = None
    subjects: bool = False  # a Subject command: the contract and registry must be clean (§9.6)
    max_file_bytes: Optional[int] = None  # None: the loader's default cap (analyzer.project.files.SIZE_CAP)

    def facts(self) -> Dict[str, List[tuple]]:
        """The request as facts of facts/index_request.dl (verbatim; rules interpret them)."""
        flags = [("include-archive",)] if self.include_archive else []
        flags += [("local",)] if self.local else []
        flags += [("subjects",)] if self.subjects else []
        return {
            "req_index_flag": flags,
            "req_status_filter": [(self.status,)] if self.status is not None else [],
            "req_scope_filter": [(self.scope,)] if self.scope is not None else [],
            "req_lookup": [(self.lookup,)] if self.lookup is not None else [],
            "req_merge": [self.merge] if self.merge is not None else [],
        }


@dataclass
class Row:
    """One row of the ID index."""

    key: str
    id: str
    status: str
    scope: str
    source: str
    kind: str
    module: str
    ordinal: int
    location: Span


class Evaluation:
    """One evaluation of the index program: the database, the project and unit locations."""

    def __init__(self, request: IndexRequest, wanted: Sequence[str], project=None):
        from analyzer.project.loader import load_project

        self.request = request
        with gc_paused():
            limit = {} if request.max_file_bytes is None else {"max_file_bytes": request.max_file_bytes}
            self.project = project or load_project(request.project_root, memory_dir=request.memory_dir,
                                                   use_cache=request.use_cache, **limit)
            engine = index_program(request.use_cache)
            # needed_file (rules/needed.dl): the files whose refusal stops the command (fail closed)
            only = ["index_failure", "index_error", "needed_file", *wanted]
            needed = engine.needed(only)
            facts = {rel: rows for rel, rows in self.project.facts.relation_sets().items() if rel in needed}
            facts.update(request.facts())
            self.db = engine.evaluate(facts, only=only)

    def relation(self, name: str) -> List[tuple]:
        """The tuples of a derived relation (sorted)."""
        return self.db.relation(name)

    def failure(self) -> Optional[Failure]:
        """The refusal of this request, or None when it can be answered."""
        rows = self.relation("index_failure")
        if not rows:
            return None
        code, key, message, exit_code = rows[0]
        if code == "MA-MEMDIR":  # the rules name the dir under the root; say it with the root, as check does
            message = files.memory_dir_missing(self.request.project_root, key)
        where = self._failure_locations(code, key)
        return Failure(code, message, where[0], exit_code, where[1:])

    def _failure_locations(self, code: str, key: str) -> List[Span]:
        if code == "MA-INDEX-DUPLICATE":
            return sorted({self.locate(m, o, kind) for k, _, _, _, _, kind, m, o in self.relation("index_row")
                           if k == key})
        if code.startswith("MA-FILE") or code == "MA-MEMDIR":
            return [Span(key)]
        if code.startswith("MA-SUBJECT") and key in ("manifest.md", "subjects.md"):
            return [Span(f"{self.project.memory_dir}/{key}")]
        return [Span("<command line>")]

    def rows(self, relation: str = "index_row") -> List[Row]:
        """The rows of ``relation`` (index_row, listed or shown_row), sorted by (casefold ID, source)."""
        out = [Row(k, s, st, sc, src, kind, m, o, self.locate(m, o, kind))
               for k, s, st, sc, src, kind, m, o in self.relation(relation)]
        out.sort(key=lambda r: (r.key, r.source, r.id, r.location))
        return out

    def overlay_dir(self) -> str:
        """The overlay directory of this project ("" when the overlay is disabled)."""
        rows = self.project.facts.relation("overlay_dir")
        return rows[0][0] if rows else ""

    def text_key(self, module: str, kind: str) -> str:
        """The key of a unit's file in ``Project.texts`` (``kind`` "local" for a local module)."""
        return f"local/{module}" if kind == "local" else module

    def locate(self, module: str, ordinal: int, kind: str) -> Span:
        """Where a unit starts: its file (project-relative; local: absolute) and heading line."""
        ranges = self.project.unit_ranges.get(self.text_key(module, kind), [])
        line = ranges[ordinal - 1][0] + 1 if 0 < ordinal <= len(ranges) else 1
        if kind == "local":
            return Span(os.path.join(self.overlay_dir(), "local", module), line, 1)
        return Span(f"{self.project.memory_dir}/{module}", line, 1)

    def unit_lines(self, module: str, ordinal: int, kind: str) -> List[Tuple[int, str]]:
        """The (1-based line number, text) pairs of one unit, outer blank lines dropped."""
        key = self.text_key(module, kind)
        ranges = self.project.unit_ranges.get(key, [])
        text = self.project.text(key)
        if text is None or not 0 < ordinal <= len(ranges):
            return []
        start, end = ranges[ordinal - 1]
        lines = text.splitlines()[start:end + 1]
        numbered = [(start + 1 + i, line) for i, line in enumerate(lines)]
        while numbered and not numbered[0][1].strip():
            numbered.pop(0)
        while numbered and not numbered[-1][1].strip():
            numbered.pop()
        return numbered


def evaluate(request: IndexRequest, wanted: Sequence[str]) -> Evaluation:
    """Load the project and evaluate the index program for the ``wanted`` relations."""
    return Evaluation(request, wanted)
