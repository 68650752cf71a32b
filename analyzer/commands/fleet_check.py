"""``fleet check``: every repository's ``check --all`` with the rules evaluated in SQL, over
the facts of many repositories at once.

Per repository, what the native check does before and after its evaluation is done the same
way and by the same code (analyzer/query/check.py): the memory dir checks, extraction (the
facts cache of analyzer/project/loader.py), the facts the families gather (Git, path probes,
scans), the refusal of unusable needed files, and, from the derived relations, the result
model, its redaction and gating. Only the evaluation of rules/check/check.dl moves: the
repositories' facts are loaded into one DuckDB database (analyzer/engine/sql/duck.py) a group
(of 50 to 200) at a time and the program runs there once per group, while the next group is
extracted (on Spark once, over the whole fleet). A repository whose check stops before
evaluating (no memory dir, an unusable needed file) keeps that error result.
"""

from __future__ import annotations

import contextlib
import marshal
import multiprocessing.pool
import os
import sys
from dataclasses import dataclass
from pathlib import Path
import pickle
import tempfile
from typing import Dict, List, Optional, Sequence, Tuple

from analyzer.core import lifetime
from analyzer.core.lifetime import gc_paused
from analyzer.contract.check_model import CheckResult
from analyzer.core.span import Span


@dataclass
class Prepared:
    """One repository ready for the shared evaluation (or already decided: ``result``)."""

    path: str
    result: Optional[CheckResult] = None
    request: object = None
    project: object = None
    facts: Optional[dict] = None
    needed: Optional[set] = None


def prepare(path: str, families, use_cache: bool = True) -> Prepared:
    """Everything before the evaluation for the repository at ``path``."""
    from analyzer.query.check import CheckRequest, open_request

    request, early = open_request(CheckRequest(list(families), Path(path), "docs/memory", use_cache))
    return Prepared(path, early) if early is not None else prepare_opened(request, path)


def prepare_opened(request, path: str) -> Prepared:
    """:func:`prepare` of a request :func:`~analyzer.query.check.open_request` opened."""
    from analyzer.query.check import check_program, gather, load_checked

    project, refused = load_checked(request)
    if refused is not None:
        return Prepared(path, refused)
    facts, _only, needed = gather(request, project, check_program(True))
    return Prepared(path, None, request, project, facts, needed)


def fleet_check(paths: List[str], engine: str = "duckdb", use_cache: bool = True, jobs: int = 1,
                memory_limit: Optional[str] = None, spark_master: str = "local[*]") -> List[Tuple[str, CheckResult]]:
    """``(path, result)`` per repository, in the order of ``paths`` (:func:`fleet_results`
    without rendered texts)."""
    return [(path, result) for path, result, _ in fleet_results(paths, engine, use_cache, jobs, memory_limit,
                                                                spark_master)]


def fleet_results(paths: List[str], engine: str = "duckdb", use_cache: bool = True, jobs: int = 1,
                  memory_limit: Optional[str] = None, spark_master: str = "local[*]",
                  formats: Sequence[str] = (), results: bool = True) -> List[Tuple[str, object, Dict[str, str]]]:
    """``(path, result, texts)`` per repository, in the order of ``paths``: ``texts`` holds the
    result rendered in each of ``formats`` (check's renderers: ``json``, ``sarif``); with
    ``results=False`` the result's :class:`Outcome` instead of the result (which then stays
    in the worker that built it).

    Streamed: each repository is extracted (in ``jobs`` processes), its facts are loaded into
    the SQL engine as Arrow tables and its project is dropped, keeping only what its result
    needs (:class:`KeptProject`); both travel as files (:class:`Parcel`). The repositories are evaluated a group at a
    time (the run's ``group_size``: 50 to 200 on DuckDB, all of them on Spark), each group
    as soon as its facts are loaded, while the workers extract the next; each window of a group's
    derived tuples is fetched at once and the same processes build and render the results.
    Memory grows with a group's SQL tables, not with the fleet (docs/fleet.md)."""
    from analyzer.engine.sql.duck import idle_cores
    from analyzer.query.check import check_program
    from analyzer.query.check_families import FAMILIES, ORDER

    lifetime.disable()  # a fleet loads many projects in one process: each is freed once extracted
    program = check_program(True)  # the compiled rules, not repository data: cached whatever --no-cache
    only = sorted({rel for name in ORDER for rel in FAMILIES[name].relations})
    formats = tuple(formats)
    done: Dict[int, Tuple[CheckResult, Dict[str, str]]] = {}
    kept: Dict[int, Parcel] = {}

    # DuckDB's threads: the cores idle now, before the workers load them (duck.idle_cores)
    threads = None if engine == "spark" else idle_cores()
    received = []  # a flag per repository the workers have given back
    decls = program.program.decls
    # the workers leave each repository's facts and kept project in files of a private
    # directory (Parcel), and DuckDB offloads beyond --memory-limit into its "spill" folder
    # (never the working directory); removed with everything left in it when the fleet ends.
    # The worker processes are forked before the SQL engine starts (no engine threads in them)
    with scratch("analyze-fleet-", paths) as private, _pool(jobs, len(paths)) as pool:
        def loaded():
            # without a pool (one process) the bytes stay in memory: no file is written
            directory = None if pool is None else private
            jobs_ = [(index, path, use_cache, formats, directory, results) for index, path in enumerate(paths)]
            for item in _map(pool, extract, jobs_):
                received.append(True)
                if item.result is not None:
                    done[item.index] = (item.result, item.texts)
                else:
                    kept[item.index] = item.kept
                    yield item.index, item.tables(decls)

        stream = loaded()
        finishing = []  # each window's results, as the workers build them
        spill = None if private is None else os.path.join(private, "spill")
        if spill is not None:
            os.mkdir(spill, 0o700)
        run = new_run(program, engine, memory_limit, spark_master, spill, threads)
        try:
            # a group is evaluated while the workers still extract the next ones: only the
            # last group's evaluation waits for the last repository (docs/fleet.md)
            evaluated = 0
            while True:
                size = run.group_size(evaluated)
                run.load_stream(_group(stream, size, run.GROUP_ROWS) if size else stream)
                if not run.numbers:  # every result from the cache (or an early one)
                    break
                evaluated += len(run.numbers)
                if threads:  # while the workers extract, the cores are theirs
                    extracting = pool is not None and len(received) < len(paths)
                    run.use_threads(max(1, threads - min(jobs, len(paths))) if extracting else threads)
                run.evaluate(only, keep=only)  # intermediate tables dropped after their last reader
                finishing.extend(_finish_group(pool, run, only, paths, kept, (formats, results)))
                if not run.GROUP:
                    break
                run = run.next_group()
        finally:
            if engine != "spark":
                run.con.close()
        for window in finishing:
            for index, result, texts in window:
                done[index] = (result, texts)
    return [(path, *done[index]) for index, path in enumerate(paths)]


def _group(stream, size: int, rows: int):
    """The next group of ``stream``'s ``(number, tables)``: ``size`` repositories, or fewer
    when the one whose tables bring the group to ``rows`` tuples ends it. Nothing is taken
    from ``stream`` beyond the group's last repository."""
    held = 0
    for count, item in enumerate(stream, 1):
        yield item
        held += sum(table.num_rows for table in item[1].values())
        if count >= size or held >= rows:
            return


def _finish_group(pool, run, only, paths, kept, returns) -> list:
    """The results of the repositories ``run`` evaluated (``(index, result, texts)`` each,
    ``returns``: the formats and whether the result itself comes back, :func:`finish_one`),
    built by ``pool`` (here without one) a window of derived tuples at a time: one iterable
    per window. The pool builds them as it gets to them (after the extractions it was
    given before); a run that is the fleet's only group (Spark) waits for each window's
    results before it fetches the next, so a large fleet's derived tuples are never all held."""
    rels = [rel for rel in only if rel in run.tables]
    windows = []
    for start in range(0, len(run.numbers), WINDOW):
        window = run.numbers[start:start + WINDOW]
        run.window(window[0], window[-1] + 1)
        tasks = [(index, paths[index], kept.pop(index), {rel: run.rows(rel).get(index, set()) for rel in rels},
                  *returns) for index in window]
        results = _map(pool, finish_one, tasks)
        windows.append(list(results) if pool is None or not run.GROUP else results)
    return windows


@contextlib.contextmanager
def scratch(prefix: str, paths: Sequence[str]):
    """A private temporary directory for the fleet's own files (removed with what is left in
    it), or None where no usable temporary directory lies outside the repositories the fleet
    analyzes: the analyzer never writes into a project it analyzes (TMPDIR set inside one, or
    Python's fallback to the working directory), so the bytes then stay in memory
    (:class:`Parcel`) and DuckDB offloads nothing. The candidates are Python's (TMPDIR, TEMP,
    TMP, /tmp, /var/tmp, /usr/tmp), judged without ``tempfile.gettempdir``, which writes a
    probe file into the first it tries."""
    roots = [os.path.realpath(path).rstrip(os.sep) + os.sep for path in paths]
    for candidate in _temp_candidates():
        base = os.path.realpath(candidate)
        if not os.path.isdir(base) or not os.access(base, os.W_OK | os.X_OK):
            continue
        if any((base + os.sep).startswith(root) for root in roots):
            continue
        with tempfile.TemporaryDirectory(prefix=prefix, dir=base) as name:
            yield name
        return
    yield None


def _temp_candidates() -> List[str]:
    """Where Python looks for a temporary directory, in its order (``tempfile.tempdir`` first
    when a program set it), without the working directory."""
    named = [tempfile.tempdir] if tempfile.tempdir else []
    named += [os.environ[name] for name in ("TMPDIR", "TEMP", "TMP") if os.environ.get(name)]
    return named + ["/tmp", "/var/tmp", "/usr/tmp"]


class _Inline:
    """No pool: jobs run in this process (``--jobs 1``, or a fleet of one)."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _pool(jobs: int, count: int):
    """A pool of ``jobs`` forked processes (a context manager), or :class:`_Inline`."""
    if jobs <= 1 or count < 2:
        return _Inline()
    return worker_pool(min(jobs, count))


def _map(pool, fn, tasks):
    """``fn`` over ``tasks`` in ``pool`` (in this process without one), in order, as each is done."""
    import functools

    return map(fn, tasks) if pool is None else pool.imap(functools.partial(carried, fn), tasks, chunksize=1)


class WorkerError(Exception):
    """A worker's error that could not travel back to the main process as itself."""


def carried(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` in a worker process, its error made one the main process can
    unpickle: an exception whose pickle does not rebuild (an ``__init__`` of other arguments
    than ``args``) stops the pool's result thread, and the main process would wait forever.
    Such an error comes back as a :class:`WorkerError` naming its type and message."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:
            raise WorkerError(f"{type(exc).__name__}: {exc}") from None
        raise


def finish_one(task) -> Tuple[int, object, Dict[str, str]]:
    """One repository's result from its derived tuples: ``task = (index, path, kept, rows,
    formats, full)`` (``kept`` from :func:`extract`, ``rows``: relation -> tuples). Stored in
    the result cache as `check --all` stores it, and rendered in ``formats`` (run in a
    worker); the result itself comes back when ``full``, else its :class:`Outcome`."""
    from analyzer.engine.sql.duck import TupleDatabase
    from analyzer.query import check_cache
    from analyzer.query.check import finish

    index, path, parcel, rows, formats, full = task
    with gc_paused():  # many small acyclic objects: the collector would scan them for nothing
        request, project, facts, needed, key = pickle.loads(parcel.take())
        result, probes, git = finish(request, project, facts, needed, TupleDatabase(rows))
        if key:  # what `check --all` in that repository stores, and reuses
            check_cache.store(key, result, probes, git)
        result = _as_cli(result)  # the report family's relations are dropped here
        return (index, *_returned(path, result, formats, full))


def _returned(path: str, result: CheckResult, formats: Sequence[str], full: bool) -> tuple:
    """What a worker sends back of a repository's ``result``: the result (``full``) or its
    :class:`Outcome`, and its rendered ``formats``."""
    return (result if full else Outcome.of(result)), rendered(path, result, formats)


@dataclass(frozen=True)
class Outcome:
    """What ``analyze fleet check`` says of a repository beside its rendered documents: its
    status, exit status, number of findings and why its check stopped (``failure``'s
    message, or None). The CLI asks for this instead of the result: a result of 941 findings
    (a 1,000-entry repository with stale Evidence) took the main process about 11 ms to
    unpickle, one in ten repositories of the benchmark's fleet."""

    status: str
    exit_code: int
    findings: int
    failure: Optional[str] = None

    @classmethod
    def of(cls, result: CheckResult) -> "Outcome":
        """The outcome of ``result``."""
        return cls(result.status, result.exit_code, sum(len(f.findings) for f in result.families),
                   None if result.failure is None else result.failure.message)


def rendered(path: str, result: CheckResult, formats: Sequence[str]) -> Dict[str, str]:
    """``result`` rendered by check's renderer of each of ``formats``, as in that repository."""
    from analyzer.commands.check_formats import Context, render

    return {fmt: render(fmt, result, Context(os.path.abspath(path)))[0] for fmt in formats}


#: Repositories whose derived tuples are fetched at once to build their results.
WINDOW = 50


def new_run(program, engine: str = "duckdb", memory_limit=None, spark_master: str = "local[*]",
            spill: Optional[str] = None, threads: Optional[int] = None):
    """An empty run of ``program`` on ``engine`` (DuckDB on ``threads``, offloading to the
    directory ``spill`` beyond ``memory_limit``, or Spark on ``spark_master``)."""
    if engine == "spark":
        from analyzer.engine.sql.spark import SparkRun, session

        return SparkRun(program, session(spark_master))
    from analyzer.engine.sql.duck import DuckRun, connect

    return DuckRun(program, connect(memory_limit, threads, spill=spill))


def evaluate(program, fleet, only, engine: str = "duckdb", memory_limit=None, spark_master: str = "local[*]"):
    """The program evaluated over ``fleet`` (a list of per-repository facts) by ``engine``
    (DuckDB, or Spark on ``spark_master``)."""
    run = new_run(program, engine, memory_limit, spark_master)
    run.load(fleet)
    return run.evaluate(only)


def _as_cli(result: CheckResult) -> CheckResult:
    """What ``analyze check --all`` prints of a result: the report family split off and the
    default gate applied (analyzer/commands/check.py)."""
    from analyzer.commands.gating import Gate, apply
    from analyzer.query.report import report_of

    return apply(report_of(result).check, Gate(None, [], [], None))


def prepare_all(paths: List[str], families, use_cache: bool = True, jobs: int = 1) -> List[Prepared]:
    """:func:`prepare` for every path, in ``jobs`` processes (extraction is per repository
    and independent; a prepared repository travels back pickled), in the order of ``paths``."""
    if jobs <= 1 or len(paths) < 2:
        return [prepare(p, families, use_cache) for p in paths]
    import functools

    with worker_pool(min(jobs, len(paths))) as pool:
        return pool.map(functools.partial(carried, prepare, families=families, use_cache=use_cache), paths,
                        chunksize=max(1, len(paths) // (jobs * 8)))


def result_document(path: str, result: CheckResult) -> dict:
    """``{"path", "result"}``: the ``check.result`` (or ``check.error``) document that
    ``analyze check --all --format json`` prints in that repository."""
    import json

    return {"path": path, "result": json.loads(rendered(path, result, ("json",))["json"])}


# -- streaming: one repository at a time ------------------------------------------------

#: The relations whose spans a result locates its findings with (check_families.Locator).
LOCATED = ("entry_unit", "subject_unit", "rec_unit", "module_decl", "route", "manifest_error")
#: The relations a result reads as sets (Locator.module, scans.outside_probe).
KEPT_SETS = ("memory_file", "overlay_dir")


class KeptFacts:
    """The part of a fact base a check result is built from: the spans of :data:`LOCATED`
    and the sets of :data:`KEPT_SETS`. Asking for another relation is an error, not an
    empty answer: a result that needed more would otherwise lose its locations silently."""

    def __init__(self, facts) -> None:
        # each relation's {fact: (path, line, col)} as marshal bytes, read back only when the
        # result locates something there: marshal writes and reads plain tuples faster than
        # pickle (0.24 against 0.6 ms for a 1,000-entry repository), and bytes pickle as a copy
        self._packed = {rel: marshal.dumps(facts.places_of(rel)) for rel in LOCATED}
        self._sets = {rel: set(rows) for rel, rows in facts.relation_sets(KEPT_SETS).items()}

    def spans_of(self, relation: str):
        """The span of every fact of ``relation`` (one of :data:`LOCATED`), read back from its
        bytes on each call: check_families.Locator, the one caller, indexes each relation once
        (all but manifest_error, a few facts, read again for each manifest error it locates)."""
        return {fact: Span(*place) for fact, place in marshal.loads(self._packed[relation]).items()}

    def relation_sets(self, names=None):
        """The kept relations' sets (of :data:`KEPT_SETS`)."""
        unknown = set(names or ()) - set(KEPT_SETS)
        if unknown:
            raise KeyError(f"relations not kept for the fleet's results: {sorted(unknown)}")
        return dict(self._sets) if names is None else {n: s for n, s in self._sets.items() if n in names}


class KeptProject:
    """What :func:`analyzer.query.check.finish` reads of a loaded project for ``check --all``
    (its root, memory dir and :class:`KeptFacts`): a few spans per entry instead of the
    whole project (about 10 MB per 1,000-entry repository)."""

    def __init__(self, project) -> None:
        self.root = project.root
        self.memory_dir = project.memory_dir
        self.facts = KeptFacts(project.facts)


class Parcel:
    """Bytes a worker leaves for another process: a file of the fleet's private directory,
    whose name alone travels through the pool's pipe (or, without a directory, the bytes).
    A repository's facts are about 1 MB of Arrow buffers (1,000 entries): through the pipe,
    the main process's thread reading them and unpickling them took about 1 ms a
    repository, and the worker's pickling and writing 0.5 ms more; a file is one write and
    one read. The kept project goes the same way, uncompressed (zlib took 0.85 ms a
    repository, both ways), from the worker that extracted it to the one that finishes it:
    the main process never reads it."""

    __slots__ = ("path", "data")

    def __init__(self, data, directory: Optional[str] = None, name: str = "") -> None:
        self.path, self.data = None, None
        if directory is not None:
            self.path = os.path.join(directory, name)
            try:
                with open(self.path, "wb") as handle:
                    handle.write(data)
                return
            except OSError:  # a full or unwritable temporary directory: the pipe carries the bytes
                self._drop_file()
        self.data = bytes(data)

    def _drop_file(self) -> None:
        """Remove the file (what was read of it stays readable) and forget it."""
        try:
            os.unlink(self.path)
        except OSError:  # a write that failed may have left none
            pass
        self.path = None

    def __getstate__(self):
        return self.path, self.data

    def __setstate__(self, state) -> None:
        self.path, self.data = state

    def take(self) -> bytes:
        """The bytes, once (the file is removed as it is read)."""
        if self.path is None:
            data, self.data = self.data, None
            return data
        with open(self.path, "rb") as handle:
            data = handle.read()
        self._drop_file()
        return data

    def take_mapped(self):
        """The bytes as an Arrow buffer, once: the file mapped into memory (and removed: the
        mapping keeps its pages until the last buffer sharing them is freed). A group's
        facts are held until they are inserted; read into fresh memory they cost the main
        process a copy and a page fault per page (about 0.5 ms a repository)."""
        import pyarrow as pa

        if self.path is None:
            return pa.py_buffer(self.take())
        with pa.memory_map(self.path) as source:
            data = source.read_buffer()
        self._drop_file()
        return data


@dataclass
class Extracted:
    """One repository after extraction: its early result, or its facts as Arrow record
    batches in a :class:`Parcel` (``spans``: where each relation's are,
    :func:`~analyzer.engine.sql.duck.packed_tables`) and its ``(request, KeptProject, ...)``
    pickled in another."""

    index: int
    result: object = None  # a CheckResult, or its Outcome (:func:`extract`'s ``full``)
    facts: Optional[Parcel] = None
    spans: Optional[Dict[str, list]] = None
    kept: Optional[Parcel] = None
    texts: Optional[Dict[str, str]] = None  # the (early or cached) result rendered

    def tables(self, decls) -> Dict[str, object]:
        """The facts as Arrow tables of the relations ``decls`` declares (read once: the
        parcel is gone afterwards)."""
        from analyzer.engine.sql.duck import unpacked_tables

        tables = unpacked_tables(decls, self.facts.take_mapped(), self.spans)
        self.facts = self.spans = None
        return tables


#: The facts :func:`~analyzer.query.check.finish` reads besides the derived relations: the
#: result cache's probes (source files' states) and Git state.
PROBED = ("source_path", "git_head", "git_unavailable")


def extract(job: Tuple[int, str, bool, Sequence[str], Optional[str], bool]) -> Extracted:
    """Repository ``job = (index, path, use_cache, formats, directory, full)`` extracted and reduced
    to what the fleet keeps of it (run in a worker process: the Arrow tables are built and
    serialized there, and left in files of ``directory`` when given: :class:`Parcel`). With the cache, a result ``check --all`` (or an earlier fleet) stored for the
    repository as it is now is reused: nothing is extracted or evaluated for it. A result
    decided here (cached, or a check that stops early) is rendered in ``formats`` here, and
    comes back itself when ``full``, else its :class:`Outcome`."""
    from analyzer.project.config import ConfigError

    index, path, use_cache, formats, directory, full = job
    try:
        with gc_paused():  # extraction makes many acyclic objects: the collector would scan them for nothing
            item = _extract(index, path, use_cache, directory)
    except ConfigError as exc:  # named by the repository's path: the fleet refuses it (analyze fleet)
        raise ConfigError(exc.code, exc.message, os.path.join(path, exc.path), exc.line, exc.col) from None
    if item.result is not None:
        item.result, item.texts = _returned(path, _as_cli(item.result), formats, full)
    return item


def _extract(index: int, path: str, use_cache: bool, directory: Optional[str]) -> Extracted:
    from dataclasses import replace

    from analyzer.engine.sql.duck import arrow_tables, packed_tables
    from analyzer.query.check import CheckRequest, check_program, lookup
    from analyzer.query.check_families import ORDER

    # opened, keyed and looked up in the result cache as `check --all` does
    request, key, done = lookup(CheckRequest(list(ORDER), Path(path), "docs/memory", use_cache))
    if done is not None:
        return Extracted(index, done)
    item = prepare_opened(request, path)
    if item.result is not None:
        return Extracted(index, item.result)
    decls = check_program(True).program.decls
    data, spans = packed_tables(arrow_tables(decls, index, {rel: rows for rel, rows in item.facts.items()
                                                          if rel in item.needed}))
    # the file listing was for the facts and the key: finish does not read it
    kept = ((replace(item.request, repo_files=None), KeptProject(item.project),
             {rel: item.facts[rel] for rel in PROBED if rel in item.facts}, item.needed & set(PROBED), key))
    # about 110 KB for a 1,000-entry repository, until a worker finishes it
    return Extracted(index, None, Parcel(data, directory, f"{index}.arrow"), spans,
                     Parcel(pickle.dumps(kept, pickle.HIGHEST_PROTOCOL), directory, f"{index}.kept"))


def worker_pool(processes: int):
    """A pool of ``processes`` forked extraction workers that stop quietly with the main
    process (:func:`_worker_start`).

    The garbage of this process is collected before the fork, here: a DuckDB connection a
    caller left in a reference cycle (with Python functions registered) would otherwise be
    inherited as garbage, and a worker's collector finalizing it hung (or crashed) without
    the parent's threads. No DuckDB or Arrow object exists when the pool forks (the main
    process connects afterwards), so a worker drops none (tests/fleet/test_fleet_stops.py)."""
    import gc
    import multiprocessing

    _preload()
    gc.collect()  # after _preload: whatever it left in cycles is not inherited
    return _Pool(processes, initializer=_worker_start, initargs=(os.getpid(),),
                 context=multiprocessing.get_context("fork"))


class _Pool(multiprocessing.pool.Pool):
    """The standard pool, whose worker-watching thread sleeps until a worker ends or the pool
    changes. The standard one also wakes whenever a result is waiting in its queue, and spins
    while it stays there: a large result (a repository's facts before they went through
    files, about 1 MB; a rendered document of many findings still) takes the result thread
    many reads, and the watching thread spun through them, about 4.4 ms of the main
    process's CPU a repository (more than its load into DuckDB). It watches nothing there a worker's own
    sentinel and the pool's change notifier (an emptied cache, close, terminate) do not say."""

    def _get_sentinels(self):
        return [self._change_notifier._reader]


def _preload() -> None:
    """What every worker needs for its first repository, made here, before the fork, once:
    each worker made it again (the extractors' patterns, the entries' judgement program, the
    scans' expressions, pyarrow and numpy: ~0.15 s of CPU per worker, ~0.13 s once here)."""
    import numpy  # noqa: F401  (the Arrow tables' repo column, analyzer/engine/sql/duck.py)
    import pyarrow  # noqa: F401

    from analyzer.project import extraction
    from analyzer.project.extract import secrets

    extraction.prepare({"entries", "subjects"})
    list(secrets.scan_text(""))  # compiles its expressions


def _worker_start(parent: int) -> None:
    """A worker ignores Ctrl-C: the terminal sends SIGINT to every process of the command,
    and a worker's KeyboardInterrupt was a traceback on stderr (and a lost task); the main
    process decides, and ends the pool. On Linux a worker also ends when the main process
    dies (``PR_SET_PDEATHSIG``): killed outright, it cannot end the pool itself."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the command's SIGTERM handler (analyze fleet) is the main process's: the pool ends a
    # worker with SIGTERM, and a worker simply ends
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            return
    if os.getppid() != parent:  # the main process died before the request took effect
        os._exit(1)
