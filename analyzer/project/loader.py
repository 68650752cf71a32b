"""From a project root to a fact base: inventory, safe reads, one extractor per file kind, cache.

:func:`load_project` is the entry point for every command that needs facts. It never writes
into the project; the only writes are cache files under ``$XDG_CACHE_HOME/memory-analyzer``.
The returned :class:`Project` also exposes file and unit *texts*, which renderers need but
which are not facts.
"""

from __future__ import annotations

import os
from functools import lru_cache, partial
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from analyzer.project import extraction, files
from analyzer.core.diagnostics import Diagnostic, sort_diagnostics
from analyzer.core.lifetime import gc_paused
from analyzer.project.extract.prefetch import reaped as prefetch_reaped
from analyzer.project.extract.sink import Sink
from analyzer.project.factbase import FactBase
from analyzer.core.span import Span

DEFAULT_MEMORY_DIR = files.DEFAULT_MEMORY_DIR
SPECIAL = {"manifest.md": "manifest", "subjects.md": "subjects", "reconciliations.md": "reconciliations"}


@lru_cache(maxsize=1 << 16)  # a history reading asks 90,000 times of few modules
def file_kind(module: str) -> str:
    """How a managed file is parsed: manifest, subjects, reconciliations, readme or entries."""
    if module in SPECIAL:
        return SPECIAL[module]
    return "readme" if module.rsplit("/", 1)[-1].casefold() == "readme.md" else "entries"


@dataclass
class Project:
    """A loaded project: its fact base, diagnostics, and the texts behind the facts."""

    root: str
    memory_dir: str
    facts: FactBase
    diagnostics: List[Diagnostic]
    texts: Dict[str, str] = field(default_factory=dict)  # module -> decoded text
    # module -> why it could not be used (read, decoded, or a symlink / non-regular file);
    # analyzer/query/needed.py turns these into fail-closed errors for the files a command needs
    unusable: Dict[str, Diagnostic] = field(default_factory=dict)
    unit_ranges: Dict[str, List[Tuple[int, int]]] = field(default_factory=dict)
    titled: Dict[str, bool] = field(default_factory=dict)
    _lines: Dict[str, List[str]] = field(default_factory=dict, repr=False, compare=False)

    def text(self, module: str) -> Optional[str]:
        """The decoded text of a managed file (module path relative to the memory dir)."""
        return self.texts.get(module)

    def lines(self, module: str) -> List[str]:
        """The lines of a managed file's text (split once per module and kept)."""
        found = self._lines.get(module)
        if found is None:
            found = self._lines[module] = self.texts.get(module, "").splitlines()
        return found

    def title(self, module: str) -> Optional[str]:
        """The ``# `` title line of a module, or None."""
        if module not in self.texts or not self.titled.get(module):
            return None
        return self.lines(module)[0]

    def unit_text(self, module: str, ordinal: int) -> Optional[str]:
        """The text of unit ``ordinal`` (1-based, as in the ``unit`` facts) of ``module``."""
        ranges = self.unit_ranges.get(module, [])
        if not 1 <= ordinal <= len(ranges):
            return None
        start, end = ranges[ordinal - 1]
        return "\n".join(self.lines(module)[start:end + 1]).strip("\n")


class _Loader:
    """Accumulates sinks and diagnostics while one project is read."""

    def __init__(self, root: str, memory_dir: str, use_cache: bool, max_file_bytes: int = files.SIZE_CAP,
                 texts: Optional[Dict[str, str]] = None) -> None:
        self.root = root
        self.memory_dir = memory_dir
        self.use_cache = use_cache
        self.max_file_bytes = max_file_bytes
        self.texts = texts  # decoded files given in memory (a Git revision), instead of the disk
        self.manifests: Optional[dict] = None  # (path, text) -> manifest sink, kept by the caller
        self.bundled = False  # one facts-cache entry for all files (load_texts)
        self.base = FactBase()
        self.diags: List[Diagnostic] = []
        self.project = Project(root, memory_dir, self.base, [])

    def rel(self, module: str) -> str:
        return f"{self.memory_dir}/{module}" if module else self.memory_dir

    def diag(self, path: str, code: str, message: str, line: int = 1, col: int = 1, severity: str = "error",
             lines: Optional[List[str]] = None) -> Diagnostic:
        source = lines[line - 1] if lines is not None and 0 < line <= len(lines) else None
        diag = Diagnostic(Span(path, line, col), code, message, severity, source)
        self.diags.append(diag)
        return diag

    def refuse(self, module: str, diag: Diagnostic) -> None:
        """Record that ``module`` could not be used (the first reason is kept)."""
        self.project.unusable.setdefault(module, diag)

    def merge(self, sink: Sink, text: Optional[str]) -> None:
        self.base.add_columns(sink.path, sink.columns, sink.key)
        if sink.diagnostics:
            # split once per file, not once per diagnostic (5,000 diagnostics in one file
            # took 20 s when every one split the whole text: issue 14)
            lines = text.splitlines() if text is not None else None
            for code, message, line, col, severity in sink.diagnostics:
                self.diag(sink.path, code, message, line, col, severity, lines)

    def read_text(self, module: str) -> Optional[str]:
        if self.texts is not None:
            return self.texts[module]
        data, error = files.read_bytes(os.path.join(self.root, self.rel(module)), self.max_file_bytes)
        if data is None:
            self.refuse(module, self.diag(self.rel(module), "MA-FILE-UNREADABLE", error))
            self.base.add("file_unreadable", module, error, span=Span(self.rel(module)))
            return None
        text, problems = files.decode(module, data)
        diags = [self.diag(self.rel(module), p.code, p.message, p.line, p.col, p.severity) for p in problems]
        if text is None:
            self.refuse(module, diags[-1])
            self.base.add("file_unreadable", module, problems[-1].message, span=Span(self.rel(module)))
        return text


def load_project(root, memory_dir: str = DEFAULT_MEMORY_DIR, use_cache: bool = True,
                 order: Optional[Iterable[str]] = None, side_task: Optional[Callable[[], None]] = None,
                 max_file_bytes: int = files.SIZE_CAP) -> Project:
    """Read every memory file of the project at ``root`` into a fact base (never raises on bad input).

    A managed file larger than ``max_file_bytes`` is not read (``Project.unusable`` says so).

    ``order`` (tests only) overrides the order in which modules are extracted; the result
    must not depend on it. ``side_task`` is work a forked helper may run next to a large
    cold extraction (analyzer/project/extract/prefetch.py); it is run only if a helper is forked.
    """
    # Extraction allocates millions of small acyclic objects; the cyclic collector would
    # rescan the growing heap again and again (4x slower at 100k entries, docs/performance.md).
    with gc_paused():
        return _load(root, memory_dir, use_cache, order, side_task, max_file_bytes)


def _load(root, memory_dir: str, use_cache: bool, order: Optional[Iterable[str]], side_task,
          max_file_bytes: int) -> Project:
    from analyzer.project.extract import overlay

    if extraction.deferring():  # its evidence probes and overlay need the merged facts
        raise RuntimeError("load_project inside extraction.judged_together(): use load_texts there")
    root = os.path.abspath(str(root))
    memory_dir = files.memory_dir_name(memory_dir)
    loader = _Loader(root, memory_dir, use_cache, max_file_bytes)
    base = loader.base
    base.add("memory_dir", memory_dir, span=Span(memory_dir))
    problem = files.check_memory_dir(root, memory_dir)
    if problem is not None:
        base.add("memory_dir_missing", memory_dir, span=Span(memory_dir))
        base.add("manifest_state", "missing", span=Span(memory_dir))
        loader.diag(memory_dir, "MA-MEMDIR", problem)
        return _finish(loader)
    inv = files.inventory(os.path.join(root, memory_dir), root)
    for p in inv.problems:
        diag = loader.diag(loader.rel(p.module), p.code, p.message, p.line, p.col, p.severity)
        if p.severity == "error":
            loader.refuse(p.module, diag)
            base.add("path_refused", p.module, p.code, span=diag.span)
        if p.code == "MA-FILE-SYMLINK" and p.severity == "error":
            base.add("symlink_refused", p.module, span=Span(loader.rel(p.module)))
    modules = list(order) if order is not None else inv.modules
    info = _load_modules(loader, modules, inv.not_files, side_task)
    _source_paths(loader)
    overlay.load_overlay(loader, info)
    return _finish(loader)


def load_texts(root, memory_dir: str, texts: Dict[str, str], use_cache: bool = True,
               manifests: Optional[dict] = None, bundled=False) -> Project:
    """The fact base of a memory dir given as decoded texts (module -> text), e.g. the files of
    a Git revision: the same inventory facts and extractors as :func:`load_project`, without
    the disk (no evidence path probes, no local overlay, which belong to the work tree).
    ``manifests``: a dict the caller keeps across calls (with ``use_cache``), so that the
    manifest's extraction is looked up once per manifest text, not once per call (a history
    reading loads 2,000 snippet revisions that mostly share one manifest). ``bundled``: the
    files' extractions (the manifest's aside) are kept in the facts cache as one entry, not
    one per file (for many small texts, such as a history reading's snippets); a
    :class:`analyzer.project.facts_cache.Bundle` instead: that entry, shared with other loads (the
    snippet revisions of a run of commits), which its owner stores. Inside
    :func:`analyzer.project.extraction.judged_together` the project is complete only when
    that block has ended."""
    root = os.path.abspath(str(root))
    loader = _Loader(root, memory_dir, use_cache, texts=texts)
    loader.manifests, loader.bundled = manifests, bundled
    loader.base.add("memory_dir", memory_dir, span=Span(memory_dir))
    with gc_paused():
        _load_modules(loader, sorted(texts), [], None)
        # inside extraction.judged_together() the project is finished once its entries are judged
        extraction.when_judged(partial(_finish, loader))
        return loader.project


def _load_modules(loader: _Loader, modules: List[str], not_files: List[str], side_task):
    """Inventory facts, the manifest and every other managed file; returns the ManifestInfo."""
    from analyzer.project.extract.manifest import ManifestInfo

    base = loader.base
    _inventory_facts(base, modules, loader.rel)
    info = ManifestInfo("0.5", 1, "", False)
    text = loader.read_text("manifest.md") if "manifest.md" in modules else None
    jobs = extraction.jobs_of(loader, [m for m in modules if m != "manifest.md" and file_kind(m) != "readme"],
                              file_kind)
    # on a cold cache a helper starts extracting before the manifest is read (its first
    # extraction takes a while): nothing the helper does first depends on the manifest
    helper = extraction.start_early(loader, jobs, text, side_task)
    with prefetch_reaped(helper):  # an internal error before extraction ends leaves no helper
        if "manifest.md" in modules:
            if text is None:
                base.add("manifest_state", "ok", span=Span(loader.rel("manifest.md")))
                base.add("manifest_error", 1, "manifest.md could not be read", span=Span(loader.rel("manifest.md")))
            else:
                info = _manifest(loader, text)
        elif "manifest.md" in not_files:
            base.add("manifest_state", "not-a-file", span=Span(loader.rel("manifest.md")))
        else:
            base.add("manifest_state", "missing", span=Span(loader.rel("manifest.md")))
            loader.diag(loader.rel("manifest.md"), "MA-MANIFEST-MISSING", "manifest.md is missing")
        if "subjects.md" not in modules:
            base.add("registry_missing", "subjects.md", span=Span(loader.rel("subjects.md")))
        extraction.extract_files(loader, jobs, info.entry_schema, side_task, helper)
    return info


#: Span(path), one object per path (frozen: it may stand for every equal span): a history
#: reading places 22,000 files of few paths
_file_span = lru_cache(maxsize=1 << 16)(Span)


def _inventory_facts(base: FactBase, modules: List[str], rel: Callable[[str], str]) -> None:
    """The inventory facts of every module, each at its file (one bulk add per relation)."""
    spans = [_file_span(rel(module)) for module in modules]
    base.add_rows("memory_file", [(module,) for module in modules], spans)
    base.add_rows("file_kind", [(module, file_kind(module)) for module in modules], spans)
    base.add_rows("file_folder", [(module, module.split("/", 1)[0] if "/" in module else "") for module in modules],
                  spans)


def _manifest(loader: _Loader, text: str):
    """Extract (or load from the cache) manifest.md; returns its ManifestInfo. The manifest is
    cached like every other file: its facts depend on its text and the extractor only, and a
    hit spares lexing it and checking its contract on every read."""
    from analyzer.project.extract.manifest import ManifestInfo, extract_manifest

    def extract(sink: Sink) -> None:
        info = extract_manifest(text, sink)
        sink.fact("manifest_state", "ok")
        sink.info = (info.version, info.entry_schema, info.project_id, info.exact_07_valid)

    known = loader.manifests if loader.manifests is not None and loader.use_cache else {}
    sink = known.get((loader.rel("manifest.md"), text))
    if sink is None:
        sink = known[loader.rel("manifest.md"), text] = extraction.cached_sink(
            loader, "manifest.md", "manifest", 0, text, extract)
    loader.merge(sink, text)
    loader.project.texts["manifest.md"] = text
    return ManifestInfo(*sink.info)


def _source_paths(loader: _Loader) -> None:
    """State of every evidence source path on disk: file, dir, missing, or escapes (symlink)."""
    real_root = os.path.realpath(loader.root)
    # the values alone: relation() would sort every Evidence item first (0.03 s at 10k
    # entries), and a read never needs these relations' sets (FactBase merges lazily)
    paths = loader.base.column_values(("evidence_source", "subject_evidence_source"), 3)
    paths.discard("")
    for path in sorted(paths):
        loader.base.add("source_path", path, files.source_state(loader.root, real_root, path))


def _finish(loader: _Loader) -> Project:
    loader.project.diagnostics = sort_diagnostics(loader.diags)
    for d in loader.project.diagnostics:
        loader.base.add("diagnostic", d.code, d.span.path, d.span.line, d.message, span=d.span)
    return loader.project
