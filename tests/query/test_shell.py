"""``analyze shell``: lines in, answers out; driven through a pseudo-terminal like a user."""

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "acme-shop"


def test_lines_goals_rules_and_commands_in_process():
    from analyzer.commands.shell_session import Shell

    shell = Shell(EXAMPLE)
    out = shell.handle('owner(I, M, _, _, _), M = "constraints.md"')
    assert out.splitlines()[0].split() == ["I", "M"] and "(2 tuples)" in out
    assert "depends on a request" in shell.handle('disposition(M, "loaded")')
    assert shell.handle(".task implementation") == "request: task implementation\n"
    assert "brief.md" in shell.handle('disposition(M, "loaded")')
    assert shell.handle("heavy(M, T) :- budget(M, T), T >= 500.") == "added: heavy\n"
    assert "(0 tuples)" not in shell.handle("heavy(M, T)")
    assert "added" in shell.handle(".schema heavy")
    assert "declared at rules/read/modules.dl:" in shell.handle(".schema disposition")
    assert "nearest known relation is disposition" in shell.handle(".schema dispositon")
    assert "DL915" in shell.handle("nope(X)")
    # the rules survive a request change, and the project is never read again
    assert "paths web/app.ts" in shell.handle(".path web/app.ts")
    assert "(0 tuples)" not in shell.handle("heavy(M, T)")
    proof = shell.handle('.why disposition("areas/web.md", D)')
    assert 'answer D = "loaded":' in proof and "manifest.md:" in proof
    whynot = shell.handle('.whynot disposition("areas/api.md", "loaded")')
    assert whynot.startswith('disposition("areas/api.md", "loaded") does not hold: ')
    assert "closest: " in whynot
    assert shell.reads == 1
    assert "unknown command" in shell.handle(".bogus")
    assert ".whynot GOAL" in shell.handle(".help")


def test_why_is_bounded_like_query_why():
    """.why proves at most WHY_MAX_PROOFS answers and says what it left out."""
    from analyzer.commands.query import WHY_MAX_PROOFS
    from analyzer.commands.shell_session import Shell

    shell = Shell(EXAMPLE)
    many = WHY_MAX_PROOFS + 20
    facts = " ".join(f"k({i})." for i in range(many))  # shallow proofs: the proof cap binds
    assert shell.handle(f"{facts} n(X) :- k(X).") == "added: k, n\n"
    out = shell.handle(".why n(X)")
    assert f"({many} tuples)" in out
    assert out.count("answer X = ") == WHY_MAX_PROOFS
    assert f".why: proofs of {WHY_MAX_PROOFS} of {many} answers shown" in out
    # deep proofs: the line cap binds first, and the note says so too
    assert shell.handle(f"d(0). d(X + 1) :- d(X), X < {many - 1}.") == "added: d\n"
    deep = shell.handle(".why d(X)")
    assert deep.count("answer X = ") < WHY_MAX_PROOFS and "the output stops at" in deep


@pytest.mark.parametrize("make,why", [
    (lambda p: None, "No such file or directory"),
    (os.mkdir, "a directory, not a regular file"),
    (os.mkfifo, "a FIFO (named pipe), not a regular file"),  # opening it would block the shell
    (lambda p: Path(p).write_bytes(b"p(1).\n\xff"), "not UTF-8 (byte 0xff at offset 6)"),
], ids=["missing", "directory", "fifo", "latin1"])
def test_load_of_an_unusable_file_is_a_diagnostic_not_a_crash(tmp_path, make, why):
    from analyzer.commands.shell_session import Shell

    path = str(tmp_path / "rules.dl")
    make(path)
    shell = Shell(EXAMPLE)
    assert shell.handle(f".load {path}") == f"{path}:1:1: DL914 cannot read program: {why}\n"
    assert "(0 tuples)" not in shell.handle("subject(S, _, _, _)")  # the shell goes on


def test_a_second_query_does_not_read_the_project_again(monkeypatch):
    import analyzer.project.loader as project
    from analyzer.commands.shell_session import Shell

    calls = []
    real = project.load_project

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    shell = Shell(EXAMPLE, load=counting)
    monkeypatch.setattr(project, "load_project", counting)
    shell.handle("memory_file(M)")
    shell.handle(".task implementation")
    shell.handle('disposition(M, "loaded")')
    assert len(calls) == 1


def _read_until(fd, marker: bytes, timeout: float = 60.0) -> bytes:
    out = b""
    deadline = time.monotonic() + timeout
    while marker not in out:
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {marker!r}; got {out[-500:]!r}")
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_prompt_history_and_completion_through_a_pty(tmp_path):
    pytest.importorskip("readline")
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(tmp_path / "cache"), TERM="dumb")
    proc = subprocess.Popen([sys.executable, "-m", "analyzer", "shell", "--project-root", str(EXAMPLE)],
                            stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    try:
        _read_until(master, b"?- ")
        os.write(master, b"memory_fi\t(M)\r")  # Tab completes the relation name
        out = _read_until(master, b"?- ")
        assert b"memory_file(M)" in out and b"manifest.md" in out
        os.write(master, b"\x1b[A\r")  # Up arrow recalls the previous line from history
        out = _read_until(master, b"?- ")
        assert b"manifest.md" in out
        os.write(master, b".quit\r")
        proc.wait(timeout=60)
        assert proc.returncode == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert (tmp_path / "cache" / "memory-analyzer" / "shell_history").is_file()
