"""Programs, includes and facts files must be regular files: a FIFO never blocks the run and
a directory is named as one (docs/reliability.md)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.engine import sourcefile

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ".decl e(x: number)\n.decl p(x: number)\np(X) :- e(X).\n"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def query(cwd, *args):
    # the timeout turns a regression (a blocking read) into a failure instead of a hang
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "analyzer", "query", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120)


def test_fifo_as_program(tmp_path):
    os.mkfifo(tmp_path / "p.dl")
    res = query(tmp_path, "p.dl", "p(X)")
    assert res.returncode == 2
    assert "p.dl:1:1: DL914 cannot read program: a FIFO (named pipe), not a regular file" in res.stderr


def test_directory_as_program(tmp_path):
    (tmp_path / "p.dl").mkdir()
    res = query(tmp_path, "p.dl", "p(X)")
    assert res.returncode == 2
    assert "DL914 cannot read program: a directory, not a regular file" in res.stderr


def test_fifo_as_include(tmp_path):
    os.mkfifo(tmp_path / "inc.dl")
    (tmp_path / "p.dl").write_text('.include "inc.dl"\n' + PROGRAM)
    res = query(tmp_path, "p.dl", "p(X)")
    assert res.returncode == 2
    assert "p.dl:1:1: DL017 cannot include 'inc.dl': a FIFO (named pipe), not a regular file" in res.stderr


@pytest.mark.parametrize("make", [os.mkfifo, os.mkdir], ids=["fifo", "directory"])
def test_non_regular_facts_file(tmp_path, make):
    (tmp_path / "p.dl").write_text(PROGRAM)
    (tmp_path / "facts").mkdir()
    make(tmp_path / "facts" / "e.facts")
    res = query(tmp_path, "p.dl", "p(X)", "--facts", "facts")
    assert res.returncode == 2
    what = "a FIFO (named pipe)" if make is os.mkfifo else "a directory"
    assert f"facts/e.facts:1:1: DL903 cannot read facts file: {what}, not a regular file" in res.stderr


def test_reader_names_the_kind(tmp_path):
    os.mkfifo(tmp_path / "f")
    with pytest.raises(sourcefile.NotRegularFile, match="FIFO"):
        sourcefile.read_text(tmp_path / "f")
    with pytest.raises(FileNotFoundError):
        sourcefile.read_text(tmp_path / "missing")
    (tmp_path / "ok").write_text("é\n", encoding="utf-8")
    assert sourcefile.read_text(tmp_path / "ok") == "é\n"
