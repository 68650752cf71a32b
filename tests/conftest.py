"""Options shared by every test suite, and a private cache directory for the whole run."""

import os
import re
import shutil
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest

# pytest keeps each test module's assertion-rewritten bytecode in __pycache__, unless bytecode
# writing is off: where PYTHONDONTWRITEBYTECODE is set (as on our CI machine) every run, and
# every xdist worker, rewrote all ~200 test modules again (about 5 s of each worker's start).
# The tests' own modules may write it; the CLI subprocesses they start keep the environment's
# setting (their analyzer bytecode is compiled once per run below).
sys.dont_write_bytecode = False
# helpers shared by the suites (inprocess.py: the CLI run in the test's process) import by name;
# appended, so that no folder of tests hides an installed package of the same name
sys.path.append(str(Path(__file__).resolve().parent))

from ram_folders import RAM_PREFIX, sweep_dead_runs  # noqa: E402  (tests/ram_folders.py, on the path above)


def _load_shared_reference():
    """tests/shared_reference.py, importable by its plain name in every test module (the suite
    runs with --import-mode=importlib, which puts no test folder on sys.path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("shared_reference", Path(__file__).with_name("shared_reference.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["shared_reference"] = module
    spec.loader.exec_module(module)
    return module


SHARED_REFERENCE = sys.modules.get("shared_reference") or _load_shared_reference()


def _defer_rfc3987_syntax() -> None:
    """Build rfc3987_syntax's parsers when a value is first checked, not when jsonschema is imported.

    jsonschema imports rfc3987_syntax (from its format-nongpl extra) for the ``iri`` and
    ``iri-reference`` formats, and that module builds 39 Earley parsers at import: about 1.9 s
    of CPU in every xdist worker that collects a test module importing jsonschema (a fifth of a
    worker's collection), for formats none of our schemas uses. This stands in for the module
    until ``is_valid_syntax`` is first called, then imports the real one and answers with it,
    so every format is checked as before."""
    import importlib
    import importlib.util
    import types

    if "rfc3987_syntax" in sys.modules or importlib.util.find_spec("rfc3987_syntax") is None:
        return
    stand_in = types.ModuleType("rfc3987_syntax")
    real = []

    def is_valid_syntax(rule, value):
        if not real:
            del sys.modules["rfc3987_syntax"]
            real.append(importlib.import_module("rfc3987_syntax"))
        return real[0].is_valid_syntax(rule, value)

    stand_in.is_valid_syntax = is_valid_syntax
    sys.modules["rfc3987_syntax"] = stand_in


_defer_rfc3987_syntax()

# Markers given by what a test module (or a conftest.py beside it) uses, so that tests other
# branches add are sorted without a list to keep up to date: ``git`` for modules that build Git
# histories, ``cli`` for modules that run the CLI (as processes, or in process through
# tests/inprocess.py: the fast selection stays what it was). ``slow`` is given by hand (builds of
# wheels and venvs) and to the folders and tests listed here: the wheel builds, the protocol's
# own scenarios (cross-checks of ../shared; tests/conformance_corpus covers the same behaviour),
# the fleet's DuckDB back end, and the tests in _SLOW_TESTS.
_GIT_USE = re.compile(r"gitsteps|histrepo|\[\"git\"|\(\"git\"|'git',|\"git\", ")
_CLI_USE = re.compile(r"\bsubprocess\b|sys\.executable|\binprocess\b")
_SLOW_FOLDERS = ("packaging", "scenarios", "fleet")
# Tests of a second or more that the fast selection leaves to the full run: differential and
# property tests over many programs or files, runs under several hash seeds, the real-world
# trees (node ids, parameters included when a prefix is given).
_SLOW_TESTS = (
    "tests/engine_backend/test_shapes.py::test_tight_code_derives_what_general_code_derives",
    "tests/check/test_packs.py::test_pack_output_is_the_same_under_any_hash_seed",
    "tests/check/test_packs.py::test_the_result_cache_keys_on_pack_contents",
    "tests/engine_backend/test_provenance.py::test_why_heights_are_well_founded_on_a_long_chain",
    "tests/extract/test_snippet_fast_path.py::",
    "tests/query/test_whynot.py::",
    "tests/engine_frontend/test_dl_properties.py::test_printed_programs_reparse_to_the_same_ast",
    "tests/check/test_check_realworld.py::",
    "tests/engine_backend/test_shipped_program.py::test_evaluating_a_shipped_program_reads_no_rules",
    "tests/ci/test_json_fast.py::test_same_bytes_as_the_indented_encoder",
    "tests/check/test_with_proofs.py::",
    "tests/check/test_check_determinism.py::",
    "tests/fuzz/",
    "tests/engine_backend/test_bounded.py::",
    "tests/engine_backend/test_wide_rules.py::",
    "tests/engine_backend/test_wildcard_scans.py::",
    "tests/engine_frontend/test_dl_glob.py::test_matcher_agrees_with_the_reference_regex",
    "tests/contract/test_golden.py::test_golden_case[fleet/",
    "tests/check/test_packs.py::",  # each compiles a rule pack of its own
    "tests/index/",
    "tests/query/test_cookbook.py::",
)


# What the modules that cost most took (CPU seconds of their tests, subprocesses included, in
# the README's command; docs/performance.md "The test suite"). Under xdist each worker starts
# these first (see _heaviest_first); a stale figure only changes the order, but a module of a few
# long tests missing here is scheduled by its number of tests, late, and can leave the other
# worker idle at the end. Figures of 2026-12-05 22:00 (the lead's --durations run, halved: about
# the idle CPU; modules of many short tests keep their earlier figure), after branch suite6's cuts.
_HEAVY_MODULES = {
    "tests/packaging/test_recipes.py": 50,  # first for its wall: pip builds and venvs wait
    "tests/cache/test_heal.py": 45,
    "tests/fleet/test_differential.py": 36,
    "tests/fleet/test_fleet_groups.py": 28,
    "tests/extract/test_canonical.py": 26,
    "tests/mcp/test_mcp_server.py": 25,
    "tests/history/test_autonomy.py": 23,
    "tests/ci/test_consumers.py": 20,  # pre-commit's hook install and run (check-jsonschema runs in process)
    "tests/fleet/test_fleet_cli.py": 20,
    "tests/read/test_strata_reuse.py": 19,
    "tests/corpus/test_corpus.py": 15,
    "tests/history/test_hostile_git.py": 13,
    "tests/fleet/test_fleet_memory.py": 13,
    "tests/contract/test_conformance.py": 11,
    "tests/engine_frontend/test_dl_properties.py": 11,
    "tests/history/test_worktree_narrow.py": 10,
    "tests/engine_backend/test_shapes.py": 7,  # 10 before its parse once per example (suite7)
    "tests/extract/test_snippet_fast_path.py": 10,
    "tests/cache/test_no_cache_writes_nothing.py": 9,
    "tests/ci/test_locations.py": 9,
    "tests/contract/test_golden.py": 9,
    "tests/fleet/test_generated_programs.py": 8,
    "tests/fleet/test_fleet_cache.py": 8,
    "tests/history/test_window_agrees.py": 8,
    "tests/fuzz/test_grammars.py": 8,
    "tests/contract/test_no_internal_error.py": 7,
    "tests/engine_backend/test_shipped_program.py": 6,
    "tests/query/test_whynot.py": 6,
    "tests/extract/test_scan_gates.py": 5,
    "tests/fuzz/test_git_fuzz.py": 5,
    "tests/contract/test_layers.py": 5,
    "tests/history/test_unit_hunks.py": 5,
}


def pytest_addoption(parser):
    """``--update-golden`` rewrites golden files from current behaviour (review the diff!)."""
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*/*/{stdout,exit} from the current output")


@lru_cache(maxsize=None)
@lru_cache(maxsize=1)
def _folders_with_tests() -> frozenset:
    """Every folder under tests/ holding a test module at any depth (pytest's default
    ``python_files``): one walk of the tree, a few milliseconds."""
    here = Path(__file__).resolve().parent
    found = set()
    for top, _, files in os.walk(here):
        if any(f.endswith(".py") and (f.startswith("test_") or f.endswith("_test.py")) for f in files):
            folder = Path(top)
            while folder not in found and folder != here.parent:
                found.add(folder)
                folder = folder.parent
    return frozenset(found)


def pytest_ignore_collect(collection_path, config):
    """Folders under tests/ holding no test module are not walked: the corpus cases, golden
    fixtures and agent trees are about 1,000 of the 1,092 folders, and pytest's walk of them
    (a node, its conftest look-up and ignore checks each) cost about half a second of CPU in
    every xdist worker. Nothing is collected from them either way."""
    if collection_path.is_dir() and collection_path.resolve() not in _folders_with_tests():
        return True
    return None


def _source(path: Path) -> str:
    """The text of a test module or conftest.py ('' when it cannot be read)."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


@lru_cache(maxsize=None)
def _uses(pattern: "re.Pattern[str]", module: Path) -> bool:
    """Whether the module, or the conftest.py of its folder (whose fixtures it may use), matches
    (once per module: searched per test, it was a tenth of a worker's collection)."""
    conftest = module.parent / "conftest.py"
    return any(pattern.search(_source(p)) for p in (module, conftest) if p.name != "conftest.py" or
               p.parent.name != "tests")


def pytest_collection_modifyitems(config, items):
    """Mark tests ``git``, ``cli`` and ``slow`` by what their modules use (see _GIT_USE)."""
    for item in items:
        module = item.path
        if _uses(_GIT_USE, module):
            item.add_marker(pytest.mark.git)
        if _uses(_CLI_USE, module):
            item.add_marker(pytest.mark.cli)
        if module.parent.name in _SLOW_FOLDERS or item.nodeid.startswith(_SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
    _leave_out_cross_checks(config, items)
    if hasattr(config, "workerinput"):
        _heaviest_first(items)


def _heaviest_first(items) -> None:
    """Order the modules of an xdist worker's collection: those of _HEAVY_MODULES first,
    heaviest first, then the others by their number of tests (xdist's own order for
    ``--dist loadscope``, which pytest_configure turns off so that this one is kept); each
    module's tests keep their order. xdist hands a worker the next module when it is done
    with one, so the run ends with whatever modules come last: by number of tests those were
    modules of a few long tests (the wheel builds, the fleet's CLI, the consumers), and one
    worker could still be in one while the other had nothing left. Every worker orders the
    same collection the same way, as xdist requires."""
    counts: "dict[str, int]" = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        counts[module] = counts.get(module, 0) + 1
    first_seen = {module: n for n, module in enumerate(counts)}

    def key(item):
        module = item.nodeid.split("::", 1)[0]
        return (-_HEAVY_MODULES.get(module, 0), -counts[module], first_seen[module])

    items.sort(key=key)  # stable: a module's tests stay in their order


def _leave_out_cross_checks(config, items) -> None:
    """Without ../shared beside the clone, deselect the tests marked ``shared_reference``
    (cross-checks against its reference material; tests/shared_reference.py): our own tests
    cover the same behaviour, and tests/test_shared_reference.py reports them as one skip."""
    if SHARED_REFERENCE.PRESENT:
        return
    left_out = [item for item in items if item.get_closest_marker("shared_reference")]
    if left_out:
        config._shared_reference_left_out = len(left_out)
        items[:] = [item for item in items if not item.get_closest_marker("shared_reference")]
        config.hook.pytest_deselected(items=left_out)


# A run's temporary files (every tmp_path, $TMPDIR, the private caches) go to a RAM-backed
# folder when there is one with room: the README's command leaves about 165,000 files and
# folders in its tmp_path folders (Git repositories, venvs, project copies). On the ext4 disk of
# this project's machines (mounted with `discard`) removing 61,000 took 54 s of wall time for
# 2.6 s of CPU, waiting on the disk; pytest keeps its numbered folders under /tmp/pytest-of-USER
# and, at the end of every run, removes those more than three runs old, so a run paid for an
# earlier one's files. In tmpfs the same removal took 1.5 s, and the suite used 10 % less
# system time (docs/performance.md, "The test suite").
_RAM_DIR = Path("/dev/shm")
_RAM_ROOM = 4 << 30  # bytes free in it and in memory (old whole-suite folders on disk held 0.4-0.7 GB)


def _ram_temp_dir() -> "str | None":
    """A writable, executable RAM-backed folder with room for a run's files, or None (then the
    disk's temporary folders are used as before). Set MEMORY_ANALYZER_TEST_DISK_TMP to opt out."""
    if os.environ.get("MEMORY_ANALYZER_TEST_DISK_TMP"):
        return None
    try:
        stat = os.statvfs(_RAM_DIR)
    except (OSError, AttributeError):
        return None
    # venvs and Git hooks are executed from tmp_path: a noexec mount would not do
    flags = getattr(os, "ST_RDONLY", 1) | getattr(os, "ST_NOEXEC", 8)
    if stat.f_flag & flags or stat.f_bavail * stat.f_frsize < _RAM_ROOM or not os.access(_RAM_DIR, os.W_OK | os.X_OK):
        return None
    return str(_RAM_DIR) if _memory_available() >= _RAM_ROOM else None


def _memory_available() -> int:
    """Bytes of memory the system can still give (a tmpfs's own free space is only its size
    limit, often all of RAM); 0 where /proc/meminfo cannot say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


@pytest.hookimpl(tryfirst=True)  # before pytest's tmpdir plugin reads --basetemp
def pytest_configure(config):
    """Point $XDG_CACHE_HOME at a fresh directory for this run (inherited by the CLI
    subprocesses tests start), so tests never read or fill the developer's own caches; put the
    run's temporary files in RAM where it can (see _ram_temp_dir; an explicit ``--basetemp``
    is kept); and, once per run (not in each xdist worker), compile the built-in rule programs
    of this checkout as a wheel ships them (analyzer/dev/ship.py: build_checkout). Without them
    every test that starts the CLI with a fresh cache or ``--no-cache`` compiles the rules
    again, about a second of CPU each: most of the suite's time."""
    ram = _ram_temp_dir()
    if not os.environ.get("MEMORY_ANALYZER_TEST_KEEP_CACHE"):
        config._private_cache = tempfile.mkdtemp(prefix=f"{RAM_PREFIX}test-cache-{os.getpid()}-", dir=ram)
        os.environ["XDG_CACHE_HOME"] = config._private_cache
    if not hasattr(config, "workerinput"):
        if ram:
            sweep_dead_runs(ram)
        if ram and config.option.basetemp is None:
            # the run's own folder (xdist gives each worker one inside it), removed at the end
            config._ram_basetemp = config.option.basetemp = tempfile.mkdtemp(
                prefix=f"{RAM_PREFIX}pytest-{os.getpid()}-", dir=ram)
        if ram and "TMPDIR" not in os.environ:
            # and $TMPDIR (unless one is set), inherited by the workers and what they start (pip's
            # build environments, pre-commit's clones), removed at the end too
            config._ram_tmpdir = os.environ["TMPDIR"] = tempfile.mkdtemp(
                prefix=f"{RAM_PREFIX}tmpdir-{os.getpid()}-", dir=ram)
            tempfile.tempdir = None  # gettempdir() reads $TMPDIR again
        # the workers order their collection heaviest first (_heaviest_first); xdist's
        # loadscope would sort it again by the number of tests per module
        if getattr(config.option, "dist", "no") == "loadscope":
            config.option.loadscopereorder = False
        _compile_checkout()


def _compile_checkout() -> None:
    import compileall

    from analyzer.core.resources import source_root

    root = source_root()
    if root is None:
        return  # an installed package: its wheel ships the compiled programs (and pip compiled it)
    # bytecode too: where PYTHONDONTWRITEBYTECODE is set (as on our CI machine) nothing else
    # writes it, and every CLI subprocess compiled the analyzer's modules again (~0.1 s of CPU)
    compileall.compile_dir(str(root / "analyzer"), quiet=2)
    from analyzer.dev.ship import build_checkout

    try:
        build_checkout()
    except Exception as exc:  # noqa: BLE001 - a rule that does not compile: the tests say where
        print(f"conftest: the checkout's rule programs were not compiled ({exc}); tests compile them")


def pytest_sessionfinish(session, exitstatus):
    """Remember whether the run passed (pytest_unconfigure says where a failed run's files were)."""
    session.config._memory_analyzer_exit = exitstatus


def pytest_unconfigure(config):
    """Remove the run's private cache directory and its temporary files in RAM (tmp_path's and
    $TMPDIR's), whether the run passed or not: RAM is not left holding a failed run's files (a
    failed run says how to keep them, with ``--basetemp``)."""
    for made in ("_private_cache", "_ram_tmpdir", "_ram_basetemp"):
        if getattr(config, made, None):
            shutil.rmtree(getattr(config, made), ignore_errors=True)
    ram_basetemp = getattr(config, "_ram_basetemp", None)
    if ram_basetemp:
        if getattr(config, "_memory_analyzer_exit", 0) not in (0, 5):
            print(f"conftest: the tests' temporary files ({ram_basetemp}, in RAM) were removed; "
                  "to keep them, run again with --basetemp DIR", file=sys.stderr)


@pytest.fixture
def refuse_open(monkeypatch):
    """``refuse_open(path)``: from now on ``os.open`` of ``path`` raises PermissionError, as
    for a mode-000 file (simulated in process: a root test runner could read the real one)."""

    def install(path) -> None:
        target = os.fspath(path)
        real_open = os.open

        def refusing_open(name, flags, *args, **kwargs):
            if os.fspath(name) == target:
                raise PermissionError(13, "Permission denied")
            return real_open(name, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", refusing_open)

    return install
