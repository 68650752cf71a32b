"""The fleet's own files and processes where the machine is hostile: its private temporary
directory is never inside an analyzed repository and a full one costs no result; SIGTERM
removes it on the way out."""

from __future__ import annotations

import pytest

pytest.importorskip("duckdb")  # the [fleet] extra (in [test]: CI runs these)
pytest.importorskip("pyarrow")

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"

#: runs `analyze fleet check` with fleet_check.extract wrapped: DO(job) runs first in the worker
_RUN = textwrap.dedent("""
    import os, signal, sys, time
    import analyzer.commands.fleet_check as fleet_check

    real = fleet_check.extract

    def extract(job):
        if job[0] == 1:
            {action}
        return real(job)

    extract.__module__, extract.__qualname__ = fleet_check.__name__, "extract"
    fleet_check.extract = extract
    from analyzer.commands.cli import console

    sys.argv = ["analyze", "fleet", "check", "--jobs", "2", "--no-cache", *sys.argv[1:]]
    sys.exit(console())
""")


def _fleet(tmp_path: Path, count: int) -> list:
    paths = []
    for i in range(count):
        target = tmp_path / "fleet" / f"repo{i}"
        shutil.copytree(EXAMPLE, target)
        paths.append(str(target))
    return paths


def _run(tmp_path: Path, action: str, paths, tmpdir: Path):
    script = tmp_path / "run.py"
    script.write_text(_RUN.replace("{action}", action), encoding="utf-8")
    tmpdir.mkdir(exist_ok=True)
    proc = subprocess.Popen([sys.executable, str(script), *paths], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=str(tmp_path), start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmpdir),
                                 "XDG_CACHE_HOME": str(tmp_path / "cache")})
    try:
        out, err = proc.communicate(timeout=240)  # a run that waits forever fails here
    except subprocess.TimeoutExpired:
        os.system(f"ps -o pid,ppid,stat,wchan:20,cmd --forest -g {proc.pid} > /tmp/kt_ps.txt; py-spy dump --pid {proc.pid} >> /tmp/kt_ps.txt 2>&1")
        raise
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return proc.returncode, out, err


def test_sigterm_removes_the_private_directory_and_ends_the_workers(tmp_path):
    # the facts of the repositories extracted so far are files of the private directory
    code, out, err = _run(tmp_path, "time.sleep(0.5); os.kill(os.getppid(), signal.SIGTERM)",
                          _fleet(tmp_path, 6), tmp_path / "tmp")
    assert code == 128 + signal.SIGTERM and "Traceback" not in err, (code, err)
    assert os.listdir(tmp_path / "tmp") == []


def _tree(root: Path) -> list:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_a_temporary_directory_inside_an_analyzed_repository_is_not_written(tmp_path):
    paths = _fleet(tmp_path, 3)
    inside = Path(paths[0]) / "scratch"
    inside.mkdir()
    before, touched = _tree(Path(paths[0])), inside.stat().st_mtime_ns
    code, out, err = _run(tmp_path, "pass", [*paths, "--format", "json"], inside)
    # a directory made and removed there leaves no file, but changes the folder's mtime
    assert (_tree(Path(paths[0])), inside.stat().st_mtime_ns) == (before, touched), \
        "the fleet wrote into a repository it analyzes"
    code_elsewhere, out_elsewhere, _ = _run(tmp_path, "pass", [*paths, "--format", "json"], tmp_path / "tmp")
    assert (code, json.loads(out)) == (code_elsewhere, json.loads(out_elsewhere)), err
    assert len(json.loads(out)["repositories"]) == 3


def test_a_parcel_that_cannot_be_written_keeps_its_bytes(tmp_path):
    from analyzer.commands.fleet_check import Parcel

    parcel = Parcel(b"facts", str(tmp_path / "gone"), "0.arrow")  # the directory is not there
    assert parcel.path is None and parcel.take() == b"facts"
    written = Parcel(b"facts", str(tmp_path), "1.arrow")
    assert written.path == str(tmp_path / "1.arrow") and written.take() == b"facts"
    assert not (tmp_path / "1.arrow").exists()
