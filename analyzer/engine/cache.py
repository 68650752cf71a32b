"""An on-disk cache of compiled rule programs, so a request never re-parses, re-checks,
re-stratifies or re-generates code for the shipped rules.

The key covers what the compiled form depends on: the Python version, the engine's own
source files, the shipped rule and fact files (the rule-set fingerprint) and the entry
path. The value records the content hash of every file the program read (entry and
includes), checked again on load, and holds the checked program, its strata and one code
object with the plain (no provenance) variant functions of every rule. The cache lives under
``$XDG_CACHE_HOME/memory-analyzer/programs`` (never in an analysed project); any problem
reading or writing it silently falls back to compiling, which is always correct.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import pickle
import sys
from functools import lru_cache
from pathlib import Path
from typing import Optional

from analyzer.engine.compile import PLAIN, RUNTIME
from analyzer.engine.evaluate import Engine
from analyzer.engine.variants import Variant

FORMAT = b"memory-analyzer-program-cache-1"


def cache_dir() -> Path:
    """Where compiled programs are kept."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "memory-analyzer" / "programs"


@lru_cache(maxsize=None)
def engine_digest() -> bytes:
    h = hashlib.sha256(sys.version.encode())
    here = Path(__file__).resolve().parent
    for path in sorted(here.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.digest()


def cache_key(entry: Path) -> str:
    """The key of a compiled program: engine sources, Python, shipped rules, entry file."""
    from analyzer.fingerprint import ruleset_fingerprint

    h = hashlib.sha256(FORMAT + engine_digest())
    h.update(ruleset_fingerprint().encode() + b"\0" + str(entry.resolve()).encode())
    return h.hexdigest()


def is_cached(entry: Path) -> bool:
    """Whether a compiled program for ``entry`` is shipped or stored (it is still checked
    on load)."""
    from analyzer.engine.shipped import shipped_path

    shipped = shipped_path(entry)
    return (shipped is not None and shipped.is_file()) or (cache_dir() / f"{cache_key(entry)}.pickle").is_file()


def load_engine(entry: Path, use_cache: bool = True) -> Engine:
    """The engine for the rule program at ``entry``: the compiled form shipped in the wheel
    for the built-in programs, else from the cache when possible, else compiled."""
    from analyzer.engine.shipped import load_shipped

    engine = load_shipped(entry)
    if engine is not None:
        return engine
    path = cache_dir() / f"{cache_key(entry)}.pickle" if use_cache else None
    if path is not None:
        engine = _read(path)
        if engine is not None:
            return engine
    from analyzer.engine.check import load_program  # the parser (lark) only on a cache miss

    engine = Engine(load_program(str(entry)))
    if path is not None:
        _write(path, engine)
    return engine


def _read(path: Path) -> Optional[Engine]:
    try:
        with open(path, "rb") as handle:
            if handle.read(len(FORMAT)) != FORMAT:
                return None
            state = pickle.load(handle)
    except (OSError, EOFError, ValueError, TypeError, pickle.UnpicklingError, AttributeError, ImportError):
        return None
    return engine_from_state(state)


def engine_from_state(state: dict) -> Optional[Engine]:
    """The engine stored by :func:`engine_state`, or None when a program file changed since
    (or the state is unusable)."""
    try:
        code = marshal.loads(state.pop("code"))
    except (KeyError, EOFError, ValueError, TypeError):
        return None
    if any(_digest(Path(name)) != digest for name, digest in state.pop("files")):
        return None  # a program file changed since it was compiled
    namespace = dict(RUNTIME)
    exec(code, namespace)  # noqa: S102 - code we generated and cached ourselves
    compiled = [
        ([_variant(meta, namespace) for meta in base], [_variant(meta, namespace) for meta in delta])
        for base, delta in state.pop("plain")
    ]
    return Engine.from_state(state, {PLAIN: compiled})


def _variant(meta: tuple, namespace: dict) -> Variant:
    rule, delta, delta_rel, fname, params, source, steps = meta
    return Variant(rule, delta, delta_rel, namespace[fname], params, source, steps)


def _digest(path: Path) -> Optional[str]:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _write(path: Path, engine: Engine) -> None:
    state = engine_state(engine)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as handle:
            handle.write(FORMAT)
            pickle.dump(state, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)  # atomic: concurrent runs never see half a file
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        pass


def engine_state(engine: Engine) -> dict:
    """A picklable state of ``engine`` with its plain variants compiled (one code object),
    and the content digest of every program file (checked by :func:`engine_from_state`)."""
    plain = engine.compiled(PLAIN)
    sources, metas = [], []
    for base, delta in plain:
        group = []
        for part in (base, delta):
            rows = []
            for v in part:
                sources.append(v.source)
                rows.append((v.rule, v.delta, v.delta_rel, v.fn.__name__, v.params, v.source, v.steps))
            group.append(rows)
        metas.append(tuple(group))
    state = engine.state()
    state["files"] = [(name, _digest(Path(name))) for name in engine.program.files]
    state["plain"] = metas
    # the engine compiled all variants as one module already (the same text as joined here)
    code = engine.code(PLAIN) or compile("\n\n".join(sources), "<datalog program>", "exec")
    state["code"] = marshal.dumps(code)
    return state
