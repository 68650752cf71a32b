"""The built-in rule programs in compiled form, generated when the wheel is built.

The rules are part of the release, so their compiled form is too (as Soufflé ships compiled
programs): the build step (``python -m analyzer.dev.ship``, run by setup.py in the build tree)
parses, checks, stratifies and compiles each program of :data:`PROGRAMS` from the copies in
the build tree and writes ``analyzer/_data/compiled/<name>.program`` next to them. An
installed wheel's first ``read`` therefore compiles nothing and writes no program cache.

A shipped file is used only when everything it was made from is what runs now: the same
Python (``sys.version``: marshal and code objects are version-specific), the same engine
sources, the same shipped rule set (fingerprint) and, as for the cache, the same content of
every program file. Anything else (a source checkout, an edited install, another Python)
falls back to the program cache (analyzer/engine/cache.py), which is always correct. User
rule packs and ``analyze query`` programs always go through that cache.

File paths inside the program (spans, included files) are stored relative to the data root
(``analyzer/_data``) and resolved against the installed one on load, so proofs and errors
name the installed rule files, not the build tree.
"""

from __future__ import annotations

import io
import pickle
import sys
from pathlib import Path
from typing import Optional

from analyzer.core.fingerprint import covers, ruleset_fingerprint
from analyzer.engine.keys import engine_digest
from analyzer.core.resources import data_dir, shipped_ignored

FORMAT = b"memory-analyzer-shipped-program-2\n"
PROGRAMS = ("rules/read/read.dl", "rules/check/check.dl", "rules/index/index.dl", "rules/query.dl", "facts/schema.dl",
            "rules/agents/read.dl", "rules/entries/entries.dl", "rules/vocab/vocab.dl",
            "rules/check/shown.dl", "rules/check/run.dl")


def _data_root() -> Path:
    return data_dir("rules").parent


def _name(rel: str) -> str:
    return rel.replace("/", "__").removesuffix(".dl") + ".program"


def shipped_path(entry: Path) -> Optional[Path]:
    """Where the shipped compiled form of ``entry`` would be (None: not a built-in program,
    or shipped files are ignored: :func:`analyzer.core.resources.shipped_ignored`)."""
    if shipped_ignored():
        return None
    root = _data_root()
    try:
        rel = Path(entry).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    if rel not in PROGRAMS:
        return None
    return compiled_path(rel)


def compiled_path(rel: str) -> Path:
    """Where this package keeps the compiled form of the built-in program ``rel``
    (``rules/read/read.dl``): ``analyzer/_data/compiled/<name>.program``."""
    return Path(__file__).resolve().parents[1] / "_data" / "compiled" / _name(rel)


def compile_program(root: Path, rel: str) -> bytes:
    """The shipped encoding (header, then :func:`dump`) of the program ``rel`` under the data
    root ``root``, parsed, checked and compiled now (build steps only: analyzer/dev/ship.py)."""
    from analyzer.engine.cache import engine_state
    from analyzer.engine.check import load_program
    from analyzer.engine.evaluate import Engine

    engine = Engine(load_program(str(root / rel)))
    return _header() + dump(lambda dumps: engine_state(engine, dumps), str(root))


def _header() -> bytes:
    return b"\0".join([FORMAT, sys.version.encode(), engine_digest(), ruleset_fingerprint().encode()]) + b"\n"


class _Pickler(pickle.Pickler):
    """Writes every string under the data root as a reference relative to it."""

    def __init__(self, handle, root: str):
        super().__init__(handle, protocol=pickle.HIGHEST_PROTOCOL)
        self.prefix = root.rstrip("/") + "/"

    def persistent_id(self, obj):
        if type(obj) is str and obj.startswith(self.prefix):
            return obj[len(self.prefix):]
        return None


class _Unpickler(pickle.Unpickler):
    """Resolves the references of :class:`_Pickler` against the installed data root."""

    def __init__(self, handle, root: str):
        super().__init__(handle)
        self.prefix = root.rstrip("/") + "/"
        self.seen: dict = {}

    def persistent_load(self, pid):
        path = self.seen.get(pid)
        if path is None:
            path = self.seen[pid] = self.prefix + pid
        return path


def load_shipped(entry: Path):
    """The engine of a built-in program from its shipped compiled form, or None."""
    state = _state(entry)
    if state is None:
        return None
    from analyzer.engine.cache import engine_from_state

    root = str(_data_root())
    return engine_from_state(state, loads=lambda payload: _Unpickler(io.BytesIO(payload), root).load(),
                             unchanged=_unchanged)


def load_shipped_facts(entry: Path) -> Optional[dict]:
    """The facts of a built-in program (``Engine.facts``: relation -> rows) from its shipped
    compiled form, without building the engine (the vocabularies read facts only: a
    ``check --format json`` answered from the result cache reads them to check its document),
    or None: not shipped, or a program file the rule-set fingerprint does not cover (its
    content is checked when :func:`load_shipped` builds the engine)."""
    state = _state(entry)
    if state is None or not all(_unchanged(name) for name, _ in state["files"]):
        return None
    return state["facts"]


def _unchanged(name: str) -> bool:
    # the rules and variant texts, read on first use, name the installed files too; a file
    # the rule-set fingerprint hashes is as it was built (the header's fingerprint matched):
    # not read and hashed again (the entry files' judgement program has 13)
    prefix = str(_data_root()).rstrip("/") + "/"
    return name.startswith(prefix) and covers(name[len(prefix):])


def _state(entry: Path) -> Optional[dict]:
    """The unpickled state of the shipped compiled form of ``entry``, or None (not shipped,
    or built by another Python, engine or rule set)."""
    path = shipped_path(entry)
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    header = _header()
    if not data.startswith(header):
        return None  # built by another Python, engine or rule set
    stream = io.BytesIO(data)  # shares the bytes: no copy of the (megabyte) program
    stream.seek(len(header))
    try:
        return _Unpickler(stream, str(_data_root())).load()
    except (EOFError, ValueError, TypeError, pickle.UnpicklingError, AttributeError, ImportError):
        return None


def dump(state_of, root: str) -> bytes:
    """The shipped encoding of an engine: ``state_of(dumps)`` (:func:`engine_state` with its
    ``dumps``) pickled with every path under ``root`` made relative, its deferred part too."""
    def dumps(value) -> bytes:
        buffer = io.BytesIO()
        _Pickler(buffer, root).dump(value)
        return buffer.getvalue()
    return dumps(state_of(dumps))


def build(package_dir: Path) -> list:
    """Compile every program of :data:`PROGRAMS` found under ``package_dir/_data`` (this
    package's copy in a build tree) into ``package_dir/_data/compiled``; returns the files."""
    root = (Path(package_dir) / "_data").resolve()
    if root != _data_root().resolve():
        raise SystemExit(f"run with {package_dir.parent} first on sys.path (the copy being built)")
    out_dir = root / "compiled"
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for rel in PROGRAMS:
        target = out_dir / _name(rel)
        target.write_bytes(compile_program(root, rel))
        written.append(target)
    return written
