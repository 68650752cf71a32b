"""What each grammar's fuzz input is run through, and what counts as a failure.

:func:`run` feeds one generated text to the code that reads that kind of file and raises
:class:`InternalError` for anything outside the contract: an exception other than the
rule language's ``DiagnosticError``, or a fact or diagnostic placed outside the text.
Shared by tests/fuzz/test_grammars.py (CI-sized) and bench/fuzz_grammars.py (long run).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from analyzer.project.extract.sink import Sink

PROJECT_ID = "3f6c2a1e-9b47-4d2a-8c1e-5a7b9d0e4f12"


class InternalError(AssertionError):
    """The analyzer failed on an input instead of reporting it."""


def _check_positions(sink: Sink, text: str) -> None:
    limit = text.count("\n") + 2 + text.count("\r") + text.count("\u2028") + text.count("\x0b") + text.count("\x0c") \
        + text.count("\x1c") + text.count("\x1d") + text.count("\x1e") + text.count("\x85") + text.count("\u2029")
    for relation, _values, line, col in sink.facts:
        if not (1 <= line <= limit and col >= 1):
            raise InternalError(f"fact {relation} at line {line}:{col} outside the text ({limit} lines)")
    for code, _message, line, col, _severity in sink.diagnostics:
        if not (1 <= line <= limit and col >= 1):
            raise InternalError(f"diagnostic {code} at line {line}:{col} outside the text")


def _extract(grammar: str, text: str) -> Sink:
    from analyzer.project.extract.entries import extract_entries
    from analyzer.project.extract.manifest import extract_manifest
    from analyzer.project.extract.records import extract_records
    from analyzer.project.extract.subjects import extract_subjects

    sink = Sink(f"docs/memory/{grammar}.md")
    if grammar == "manifest":
        extract_manifest(text, sink)
    elif grammar == "entries":
        extract_entries(text, "decisions.md", 2, sink)
        extract_entries(text, "decisions.md", 1, Sink("docs/memory/decisions.md"))
    elif grammar == "subjects":
        extract_subjects(text, "subjects.md", sink)
    elif grammar == "reconciliations":
        extract_records(text, "reconciliations.md", sink)
    return sink


_LOCAL: list = []  # the overlay directory of this process, made on first use


def _local_dir() -> str:
    """One private overlay directory per process, rewritten for each input: making and removing
    a directory per input cost more than reading the manifest. In memory (/dev/shm) where there
    is one: truncating a file on a disk file system cost a millisecond an input."""
    if not _LOCAL:
        shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        _LOCAL.append(tempfile.mkdtemp(prefix="fuzz-overlay-", dir=shm))
        atexit.register(shutil.rmtree, _LOCAL[0], True)
    return _LOCAL[0]


def _local_manifest(text: str) -> Sink:
    from analyzer.project.extract.overlay import _local_manifest as read_local

    sink = Sink("local")
    local = _local_dir()
    os.chmod(local, 0o700)
    path = os.path.join(local, "manifest.md")
    with open(path + ".new", "w", encoding="utf-8", errors="surrogatepass") as handle:
        handle.write(text)
    os.chmod(path + ".new", 0o600)
    os.replace(path + ".new", path)
    read_local(local, PROJECT_ID, sink)
    return sink


def _datalog(text: str) -> None:
    from analyzer.core.diagnostics import DiagnosticError
    from analyzer.engine.check import load_program
    from analyzer.engine.compile import PLAIN
    from analyzer.engine.evaluate import Engine

    try:
        program = load_program(text=text, name="<fuzz>")
    except DiagnosticError as exc:
        for d in exc.diagnostics:
            if not d.code.startswith("DL"):
                raise InternalError(f"rule-language diagnostic with code {d.code!r}") from None
        return
    Engine(program).compiled(PLAIN)


def run(grammar: str, text: str) -> None:
    """Read ``text`` as a file of ``grammar``; raise InternalError on a contract violation."""
    try:
        if grammar == "datalog":
            _datalog(text)
            return
        sink = _local_manifest(text) if grammar == "local_manifest" else _extract(grammar, text)
    except InternalError:
        raise
    except Exception as exc:  # noqa: BLE001 - exactly what the fuzzer looks for
        raise InternalError(f"{type(exc).__name__}: {exc}") from exc
    _check_positions(sink, text)
