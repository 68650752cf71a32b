"""The console script exits without freeing what a command built (analyzer/core/lifetime.py):
every byte of output must still arrive, exit statuses must be the command's, a reader that
goes away early must not turn into an error, and in-process callers keep nothing."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

from analyzer.commands import cli
from analyzer.core import lifetime

REPO = Path(__file__).resolve().parents[2]


def _in_process(*args: str):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(list(args))
    return status, out.getvalue()


def test_subprocess_output_equals_in_process(acme, analyze, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "inproc-cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # as `analyze` sets it: --explain names it
    for args in (["read", "--project-root", str(acme), "--task", "implementation", "--path", "src/x.py", "--explain"],
                 ["read", "--project-root", str(acme), "--task", "implementation", "--format", "json"],
                 ["check", "--all", "--project-root", str(acme), "--format", "json"],
                 ["read", "--project-root", str(acme), "--task", "no-such-task"]):
        status, text = _in_process(*args)
        run = analyze(*args, process=True)
        assert (run.returncode, run.stdout) == (status, text), args


def test_in_process_runs_keep_nothing(acme, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    before = len(lifetime._KEPT)
    _in_process("read", "--project-root", str(acme), "--task", "implementation")
    _in_process("check", "--conflicts", "--project-root", str(acme), "--no-cache")
    assert len(lifetime._KEPT) == before


def _many_entries(root, count: int) -> None:
    memory = root / "docs" / "memory"
    units = [f"## DEC-20260101-{i:04d} — decision {i}\n\nStatus: active\nScope: project\n"
             f"Subject: MC-SUBJ-20260101-{i:08x}\nFacet: behavior\nDecision: use approach {i} for part {i} "
             + "of the system, as agreed " * 8 + "\nEvidence:\n- user-confirmed\n\n" for i in range(count)]
    (memory / "decisions.md").write_text("# Decisions\n\n" + "".join(units), encoding="utf-8")


def test_reader_closing_early_is_not_an_error(acme, tmp_path):
    _many_entries(acme, 2000)  # a listing of over 100 KB: more than a pipe holds
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "analyzer", "list", "--project-root", str(acme)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout.read(100)
    proc.stdout.close()  # the reader goes away, as `analyze read ... | head` does
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 0
    assert b"Traceback" not in err and b"Exception ignored" not in err, err
