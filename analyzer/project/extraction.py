"""Every managed file's extraction, from the facts cache or extracted, merged into the loader.

analyzer/project/loader.py reads the files and the manifest; this module turns each other file into
a :class:`~analyzer.project.extract.sink.Sink` (cached by content, analyzer/project/facts_cache.py) and merges it.
On a large cold cache a forked helper extracts a share of the files into the cache
(analyzer/project/extract/prefetch.py). When the manifest's own extraction is not cached yet, the
helper starts *before* it is read (:func:`start_early`): the manifest's first extraction
takes a while (lexing, its contract, the optional index), and meanwhile the helper is
already extracting subjects.md, whose facts do not depend on the entry schema the
manifest names.

Output never depends on who extracted a file, nor on the order of merging: the fact base
holds sets (the smallest span of a fact wins), diagnostics are sorted, and the per-module
texts, unit ranges and titles are recorded in module order.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager, nullcontext
from functools import partial
from typing import Callable, Dict, Iterator, List, Optional

from analyzer.project import facts_cache
from analyzer.project.extract import judge, prefetch
from analyzer.project.extract.prefetch import Job
from analyzer.project.extract.sink import Sink

SCHEMA_FREE = ("subjects", "reconciliations")  # file kinds whose extraction ignores the entry schema

_LATER: Optional[List[Callable[[], None]]] = None  # loads waiting for the judgement (inside judged_together())


@contextmanager
def judged_together() -> Iterator[None]:
    """Within this block the loads' files (:func:`extract_files` without a helper) are
    extracted but not judged: their entries are judged in one evaluation when the block
    ends without an error, and each load is then completed (its files merged and stored,
    its project finished), in the order the loads were made; a load's project is complete
    only after the block. Only loads of given texts (:func:`analyzer.project.loader.load_texts`)
    may run inside it: ``load_project`` probes evidence paths and reads the overlay from facts
    the block has not merged yet, and refuses. For many small loads, such as a history
    reading's 2,002 snippet revisions: an evaluation has a fixed cost of about 1.5 ms, which
    per load was most of a cold reading's judgement (docs/performance.md)."""
    global _LATER
    outer, _LATER = _LATER, []
    try:
        with judge.batched():
            yield
        waiting = _LATER
    finally:
        _LATER = outer
    for complete in waiting:
        complete()


def deferring() -> bool:
    """Whether loads are being deferred (inside :func:`judged_together`)."""
    return _LATER is not None


def when_judged(complete: Callable[[], None]) -> None:
    """Run ``complete`` once the loads' entries are judged: at the end of the enclosing
    :func:`judged_together`, else now."""
    if _LATER is not None:
        _LATER.append(complete)
    else:
        complete()


def jobs_of(loader, modules: List[str], file_kind) -> List[Job]:
    """The extraction job of every readable module (an unreadable one gets its diagnostic)."""
    jobs = []
    for module in modules:
        text = loader.read_text(module)
        if text is not None:
            kind = file_kind(module)
            jobs.append(Job(module, text, kind, kind not in SCHEMA_FREE))
    return jobs


def start_early(loader, jobs: List[Job], manifest_text: Optional[str], side_task) -> Optional[prefetch.Helper]:
    """A helper forked before the manifest is read, when the manifest's extraction is not
    cached (so it is extracted: a first run, most likely with every file uncached)
    and the files are large enough for a helper; else None (:func:`extract_files` may still
    fork one once the schema and the uncached files are known)."""
    if (manifest_text is None or not loader.use_cache or loader.texts is not None
            or sum(len(job.text) for job in jobs) < prefetch.MIN_BYTES
            or facts_cache.has(facts_cache.key("manifest", "manifest.md", 0, manifest_text)) or not _cache_usable()):
        return None
    prepare({"entries"})  # the manifest is judged first: the program is loaded before the fork
    stored = _Stored(loader)
    return prefetch.start(jobs, stored, side_task, flush=stored.flush)


def extract_files(loader, jobs: List[Job], schema: int, side_task, helper: Optional[prefetch.Helper]) -> None:
    """Extract (or load from the cache) every job's file and merge it into the loader.

    With a helper, the parent extracts the jobs it claims and merges the helper's files as
    the helper reports them; a file the helper did not finish is extracted here at the end.
    """
    for job in jobs:
        job.key = _key(job, schema)
    # a project read from disk keeps its files' extractions in one entry (facts_cache.ProjectFiles):
    # ``held`` are those stored there, each found by its own key; a file it lacks is looked up
    # in its own entry (a prefetch helper's, or one written before), then extracted
    entry = held = None
    if loader.use_cache and loader.texts is None and jobs:
        entry = facts_cache.ProjectFiles(loader.root, loader.memory_dir,
                                         ((loader.rel(job.module), job.key) for job in jobs))
        held = entry.held
    in_entry = entry is not None and entry.whole and all(job.key in held for job in jobs)
    # below prefetch's size floor no helper would start: asking the cache about every file
    # first would only double the lookups (2,002 snippet revisions of a readiness window)
    if (helper is None and loader.use_cache and sum(len(job.text) for job in jobs) >= prefetch.MIN_BYTES
            and _cache_usable()):
        missing = [job for job in jobs if not (held and job.key in held) and not facts_cache.has(job.key)]
        if missing:
            prepare({job.kind for job in missing})
            stored = _Stored(loader)
            helper = prefetch.start(missing, stored, side_task, schema, flush=stored.flush)
    if helper is not None:  # the helper hands its files over in entries of their own: so do the parent's
        entry = None
    done: Dict[str, Sink] = {}
    bundle = None  # one facts-cache entry for all files (load_texts(bundled=True), no helper)
    shared = loader.bundled if isinstance(loader.bundled, facts_cache.Bundle) else None  # one for several loads
    bundled: Optional[Dict[str, Sink]] = None  # the stored extractions to take the files from
    whole = True  # every file's extraction is stored there (else the entry is written anew)
    if helper is None and loader.use_cache and loader.bundled and jobs:
        if shared is not None:
            bundled = shared.unused()
            # a file an earlier load of the bundle took is stored (it is extracted again here)
            whole = all(job.key in bundled or job.key in shared.seen for job in jobs)
            shared.seen.update(job.key for job in jobs)
        else:
            bundle = facts_cache.bundle_key((loader.rel(job.module), job.key) for job in jobs)
            bundled = facts_cache.load_bundle(bundle) or {}
            whole = len(bundled) == len(jobs) and all(job.key in bundled for job in jobs)

    def merge(job: Job) -> None:
        sink = done[job.module] = _sink(loader, job, schema, bundled, held=held)
        loader.merge(sink, job.text)

    later: List[tuple] = []  # (key, sink) of files extracted here, stored once judged
    mine: List[tuple] = []  # (job, sink) of files extracted here, merged once judged
    if helper is not None:
        with prefetch.reaped(helper):  # a failing merge leaves no helper behind
            helper.send_schema(schema)
            with judge.batched():  # one evaluation of the per-entry rules for the parent's share
                for job in helper.claim():  # the parent's share, with the helper's files as they come
                    mine.append((job, _sink(loader, job, schema, bundled, later, held)))
                    for finished in helper.finished(block=False):
                        merge(finished)
            for finished in helper.finished(block=True):
                merge(finished)
        helper.wait()
    taken = set(done).union(job.module for job, _ in mine)
    rest = [job for job in jobs if job.module not in taken]
    # one evaluation of the per-entry rules for all these files (or for all the loads of
    # judged_together(): this load is then completed after it)
    together = deferring() and helper is None
    with nullcontext() if together else judge.batched():
        mine.extend((job, _sink(loader, job, schema, bundled, later, held)) for job in rest)
    when_judged(partial(_merge_judged, loader, jobs, done, mine, later, shared, bundled, bundle, whole, entry,
                        in_entry))


def _merge_judged(loader, jobs: List[Job], done: Dict[str, Sink], mine: List[tuple], later: List[tuple],
                  shared, bundled, bundle, whole: bool, entry: Optional[facts_cache.ProjectFiles] = None,
                  in_entry: bool = False) -> None:
    """Store and merge the files extracted here, once their entries are judged, and record
    the load's extractions (``whole``: the bundle they came from held every one). ``entry``:
    the project's entry, written with every file's extraction (they are all in ``mine``: no
    helper ran) unless it gave every one (``in_entry``), instead of an entry per file extracted."""
    if entry is not None:
        entry.keep(None if in_entry and not later else {job.key: sink for job, sink in mine})
    else:
        for key, sink in later:
            facts_cache.store(key, sink)
    for job, sink in mine:
        done[job.module] = sink
        loader.merge(sink, job.text)
    if shared is not None and bundled is not None:
        shared.keep({job.key: done[job.module] for job in jobs}, not whole)
    elif bundle is not None and not whole:
        facts_cache.store_bundle(bundle, {job.key: done[job.module] for job in jobs})
    for job in jobs:
        sink = done[job.module]
        loader.project.texts[job.module] = job.text
        loader.project.unit_ranges[job.module] = sink.units
        loader.project.titled[job.module] = sink.has_title


def _cache_usable() -> bool:
    """Whether the facts cache can be written: a helper only stores extractions there, so
    without it the parent would extract every file the helper did once more."""
    return facts_cache.FACTS.directory() is not None


def _key(job: Job, schema: int) -> str:
    """The facts-cache key of a job (the schema only where extraction reads it)."""
    return facts_cache.key(job.kind, job.module, schema if job.needs_schema else 0, job.text)


def prepare(kinds) -> None:
    """Import the extractors of these file kinds and compile their unit patterns before a
    process forks (a prefetch helper, ``fleet check``'s workers): both processes need them,
    and the child then inherits them instead of building them again (the grammar terminals
    and large regexes: ~0.03 s; the rules that judge the entries and the manifest)."""
    from analyzer.project.extract import fast_entries, fast_subjects

    if "subjects" in kinds:
        fast_subjects.subject_unit()
    if "entries" in kinds:
        fast_entries.entry_unit()
        judge.entries_program()  # the judgement program (~0.02 s to load), and its vocabulary
        judge.valued_fields()


def extractor(kind: str, module: str, schema: int, text: str):
    """The function that extracts one file of this kind into a sink."""

    def extract(sink: Sink) -> None:
        # imported on a cache miss only: a warm run never loads the extractors
        from analyzer.project.extract import entries, records, subjects

        if kind == "subjects":
            subjects.extract_subjects(text, module, sink)
        elif kind == "reconciliations":
            records.extract_records(text, module, sink)
        else:
            entries.extract_entries(text, module, schema, sink)

    return extract


def _sink(loader, job: Job, schema: int, bundled: Optional[Dict[str, Sink]] = None,
          later: Optional[List[tuple]] = None, held: Optional[Dict[str, Sink]] = None) -> Sink:
    # the extractor is looked up only on a miss: a cached file needs none
    return cached_sink(loader, job.module, job.kind, schema, job.text,
                       lambda sink: extractor(job.kind, job.module, schema, job.text)(sink), job.key, bundled, later,
                       held)


class _Stored:
    """The prefetch helper's work: extract each file it claims into the facts cache, unless
    it is there (a helper forked early computes the keys of its files itself); a batch's
    entries are judged in one evaluation and its files stored when it is flushed."""

    def __init__(self, loader) -> None:
        self.loader = loader
        self.later: List[tuple] = []  # (key, sink) extracted, to store once judged
        self.judging: Optional[ExitStack] = None  # the batch being judged (judge.batched)

    def __call__(self, job: Job, schema: int) -> None:
        """Extract one file (its judgement waits for the batch)."""
        key = job.key or _key(job, schema)
        if facts_cache.has(key):
            return
        if self.judging is None:
            self.judging = ExitStack()
            self.judging.enter_context(judge.batched())
        sink = Sink(self.loader.rel(job.module))
        extractor(job.kind, job.module, schema, job.text)(sink)
        self.later.append((key, sink))

    def flush(self) -> None:
        """Judge the batch's entries in one evaluation and store its files."""
        if self.judging is not None:
            self.judging, judging = None, self.judging
            judging.close()
        for key, sink in self.later:
            facts_cache.store(key, sink)
        self.later = []


def cached_sink(loader, module: str, kind: str, schema: int, text: str, extract, key: Optional[str] = None,
                bundled: Optional[Dict[str, Sink]] = None, later: Optional[List[tuple]] = None,
                held: Optional[Dict[str, Sink]] = None) -> Sink:
    """The extraction of one file: from the facts cache, or by ``extract(sink)`` (then stored).
    ``bundled``: the extractions of a bundle (facts key -> sink) to take it from instead (it
    is taken out); a file missing there is extracted and left to the caller, which stores
    the bundle whole. ``later``: a list the ``(key, sink)`` to store is added to instead (the
    caller stores it once its entries are judged, analyzer/project/extract/judge.py).
    ``held``: the extractions of the project's entry (facts key -> sink), taken from first;
    a file missing there is looked up in its own entry."""
    key = key or facts_cache.key(kind, module, schema, text)
    if bundled is not None:
        # taken, not looked up: a sink is merged into one fact base only (a bundle shared by
        # several loads may be asked for the same file twice; the second one is extracted)
        sink = bundled.pop(key, None)
    else:
        sink = held.pop(key, None) if held else None
        if sink is None and loader.use_cache:
            sink = facts_cache.load(key)
    if sink is None or sink.path != loader.rel(module):
        sink = Sink(loader.rel(module))
        extract(sink)
        if loader.use_cache and bundled is None:
            if later is None:
                facts_cache.store(key, sink)
            else:
                later.append((key, sink))
    # the key determines the facts (text, module, schema, extractor): the fact base's digest
    # uses it instead of hashing the rows again
    sink.key = f"{sink.path}\0{key}"
    return sink
