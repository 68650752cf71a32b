"""How a fleet run stops early: a limit (``--timeout``) reached inside the SQL engine is DL902
as natively, not an engine failure (DL941); Ctrl-C is "interrupted"; and the extraction
workers end with the main process, quietly (no traceback of theirs, none left running)."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from analyzer.engine.errors import EngineError, EvaluationLimitError
from analyzer.engine.evaluate import Engine
from analyzer.engine.limits import Limits
from analyzer.engine.syntax import parse_program
from analyzer.engine.limits import Watchdog

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"
NOTEBOOK = REPO / "tests" / "golden" / "fixtures" / "notebook"
#: a rule that calls a builtin DuckDB runs as a Python UDF (casefold) once per distinct row
FOLD = ".decl a(x: symbol)\n.decl p(x: symbol)\np(Y) :- a(X), casefold(X, Y).\n"


def _folding_run(rows: int):
    from analyzer.engine.sql.duck import DuckRun

    run = DuckRun(Engine(parse_program(FOLD, "<test>")))
    run.load([{"a": [(f"Straße {i}",) for i in range(rows)]}])
    return run


def test_a_limit_reached_inside_a_udf_is_dl902_as_natively():
    # the watchdog's timer raises in whatever Python runs: here inside DuckDB's call of the
    # UDF, which DuckDB reported as its own failure ("Python exception occurred while
    # executing the UDF"): DL941 instead of the limit's DL902
    run = _folding_run(400_000)
    dog = Watchdog(Limits(max_tuples=1 << 62, timeout_s=0.05, max_memory=None))
    with pytest.raises(EngineError) as err:
        with dog.watching("evaluating the fleet"):
            run.evaluate()
    assert isinstance(err.value, EvaluationLimitError) and err.value.code == "DL902"
    assert "limit timeout=0.05s exceeded" in err.value.message


def test_ctrl_c_inside_a_udf_is_an_interruption_not_an_engine_failure(monkeypatch):
    from analyzer.engine.sql import functions

    def interrupted(_text):
        raise KeyboardInterrupt

    monkeypatch.setitem(functions.FUNCTIONS, "ma_casefold", (interrupted, ("VARCHAR",), "VARCHAR"))
    run = _folding_run(10)
    with pytest.raises(KeyboardInterrupt):
        run.evaluate()


def _fleet(tmp_path: Path, count: int):
    paths = []
    for i in range(count):
        target = tmp_path / f"repo{i}"
        shutil.copytree(EXAMPLE if i % 2 else NOTEBOOK, target)
        paths.append(str(target))
    return paths


def test_a_limit_during_extraction_ends_the_workers(tmp_path, monkeypatch):
    # the limit fires in the main process while the workers still extract; the CLI then leaves
    # with os._exit, so workers left running waited forever (holding the command's stdout)
    from analyzer.commands import fleet_check

    class Stopping:
        GROUP = None

        def __init__(self, *_args):
            self.con = self

        def group_size(self, _evaluated):
            return None

        def load_stream(self, repositories):
            next(iter(repositories))
            raise EvaluationLimitError("limit timeout=1s exceeded")

        def close(self):
            pass

    monkeypatch.setattr(fleet_check, "new_run", Stopping)
    with pytest.raises(EvaluationLimitError) as err:
        fleet_check.fleet_check(_fleet(tmp_path, 6), use_cache=False, jobs=2)
    assert multiprocessing.active_children() == [], "extraction workers outlived the stopped fleet"
    del err


_CTRL_C = textwrap.dedent("""
    import os, signal, sys
    import analyzer.commands.fleet_check as fleet_check

    real = fleet_check.extract

    def extract(job):
        if job[0] == 1:  # Ctrl-C at a terminal: SIGINT to every process of the command
            os.killpg(0, signal.SIGINT)
        return real(job)

    extract.__module__, extract.__qualname__ = fleet_check.__name__, "extract"
    fleet_check.extract = extract
    from analyzer.commands.cli import console

    sys.argv = ["analyze", "fleet", "check", "--jobs", "2", "--no-cache", *sys.argv[1:]]
    console()
""")


def test_ctrl_c_during_extraction_is_one_line_and_no_worker_traceback(tmp_path):
    script = tmp_path / "ctrl_c.py"
    script.write_text(_CTRL_C, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script), *_fleet(tmp_path, 4)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=str(tmp_path), start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        out, err = proc.communicate(timeout=300)  # reaches end of file only when no worker holds the pipes
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert "Traceback" not in err and "ForkPoolWorker" not in err, err
    assert (proc.returncode, err, out) == (3, "interrupted\n", "")


_INHERITED_GARBAGE = textwrap.dedent("""
    import gc
    import pyarrow as pa
    from analyzer.commands.fleet_check import worker_pool
    from analyzer.engine.sql.duck import connect

    class Holder:
        pass

    def litter():  # connections in reference cycles
        made = []
        for _ in range(5):
            held = Holder()
            held.me = held
            held.con = connect(threads=2)
            held.con.execute("SELECT ma_casefold('A')").fetchall()  # a registered Python function
            held.con.register("t", pa.table({"a": list(range(1000))}))
            held.rel = held.con.sql("SELECT a * 2 AS b FROM t")
            made.append(held)
        return made

    def collect(_):
        return gc.collect()

    if __name__ == "__main__":
        made = litter()
        gc.collect()  # they survive into the oldest generation,
        del made  # and are garbage there: only a full collection finds them
        with worker_pool(2) as pool:
            pool.map(collect, range(4))
        print("done")
""")


def test_workers_inherit_no_duckdb_garbage(tmp_path):
    # a forked worker whose collector finalized the parent's DuckDB connections hung here (a
    # segfault in a pytest process, before): worker_pool collects them in the parent first
    script = tmp_path / "inherited.py"
    script.write_text(_INHERITED_GARBAGE, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert (proc.returncode, out) == (0, "done\n"), err
