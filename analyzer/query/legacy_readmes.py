"""README files as plain `check` reads them (spec §9.8.4, §9.8.1).

Every other command leaves README files alone (§2.1: documentation, never routed or
parsed). The reference's legacy check is the exception: its snapshot entry-parses every
managed file but subjects.md and reconciliations.md, READMEs included, so a README's
malformed heading, a formal entry's schema and storage lines, its legacy units and its
budget are reported like any file's, and an archive README's lexical error is the issue
`<file>: Markdown entry parsing failed: <error>` (other READMEs' lexical errors abort).
This module extracts the README files with the entry extractor for the legacy family only;
rules/check/legacy.dl decides what they yield (``readme_entries`` marks them).
"""

from __future__ import annotations

import os
from typing import Dict, List
from analyzer.project import files
from analyzer.project.extract.entries import extract_entries
from analyzer.project.extract.sink import Sink
from analyzer.core.diagnostics import Diagnostic
from analyzer.core.span import Span


def readme_modules(project) -> List[str]:
    """The managed README files (any folder, any case), in path order."""
    rows = project.facts.relation_sets(["file_kind"]).get("file_kind", ())
    return sorted(m for m, kind in rows if kind == "readme")


def readme_facts(request, project) -> Dict[str, list]:
    """The entry facts of every readable README (the legacy family's extra facts), plus
    ``readme_entries(module)`` for each. A README that is a symlink, not a regular file, too
    large or not UTF-8 is left out, as for every other command."""
    out: Dict[str, list] = {"readme_entries": []}
    modules = readme_modules(project)
    if not modules:
        return out  # most projects: the extractor is not even imported (a warm run needs none)

    schema = _entry_schema(project)
    for module in modules:
        path = os.path.join(str(request.project_root), project.memory_dir, module)
        data, _error = files.read_bytes(path, files.SIZE_CAP)
        if data is None:
            continue
        text, problems = files.decode(module, data)
        if text is None or problems:
            continue
        sink = Sink(f"{project.memory_dir}/{module}")
        extract_entries(text, module, schema, sink, fast=False)
        out["readme_entries"].append((module,))
        for rel, (rows, _lines, _cols) in sink.columns.items():
            out.setdefault(rel, []).extend(rows)
        _keep_lexical_errors(project, sink, text)
    return out


def _keep_lexical_errors(project, sink, text: str) -> None:
    """A README's lexical errors join the project's diagnostics: the abort a non-archive
    README's error causes names its file, line and column (check_legacy.aborted)."""

    lines = text.splitlines()
    for code, message, line, col, _severity in sink.diagnostics:
        if code == "MA-MARKDOWN":
            source = lines[line - 1] if 0 < line <= len(lines) else None
            project.diagnostics.append(Diagnostic(Span(sink.path, line, col), code, message, source_line=source))


def _entry_schema(project) -> int:
    """The entry schema the manifest selects (§4.2.1), as the other files were decoded."""
    rows = project.facts.relation_sets(["entry_schema"]).get("entry_schema", ())
    return max((v for (v,) in rows), default=1)
