"""An on-disk cache of compiled rule programs, so a request never re-parses, re-checks,
re-stratifies or re-generates code for the shipped rules.

The key covers what the compiled form depends on besides the program's own files: the
Python version, the engine's own source files and grammar (:func:`engine_digest`) and the
entry path. The value records the content hash of every file the program read (entry and
includes), checked again on load (a changed one is compiled again under the same key: no
other rule file is read to load a program), and holds the checked program, its strata and one code
object with the plain (no provenance) variant functions of every rule. What evaluating does
not need (the rules, the plans and sources of the variants) is encoded apart and decoded on
first use (:class:`StoredProgram`, :class:`StoredVariant`). Entries go through
the verified store (analyzer/core/cache.py, area ``programs``): they hold pickled objects and a
marshalled code object that is executed, so they are used only from a private directory and
only after their digest matches. A payload that verifies but does not have the expected
shape is discarded (one warning) and the program recompiled; an unusable cache means
compiling, which is always correct.
"""

from __future__ import annotations

import hashlib
import itertools
import marshal
import pickle
from pathlib import Path
from typing import Optional

from analyzer.core.cache import Area, cache_root
import analyzer.engine.ast as ast
import analyzer.engine.sourcefile as sourcefile
# the key of a program (imported from here too); its own module: the check result cache's key needs it without the engine
from analyzer.engine.keys import FORMAT, cache_key, engine_digest
from analyzer.engine.compile import PLAIN
from analyzer.engine.runtime import RUNTIME
from analyzer.engine.evaluate import Engine
from analyzer.engine.variants import Variant

PROGRAMS = Area("programs", ".pickle")
_STATE_KEYS = {"decls", "program_files", "facts", "strata", "maps", "files", "plain", "code", "rest"}


def cache_dir() -> Path:
    """Where compiled programs are kept."""
    return cache_root() / PROGRAMS.name


def cached_engine(entry: Path, use_cache: bool = True) -> Optional[Engine]:
    """The engine for the rule program at ``entry`` without compiling: its compiled form
    shipped in the wheel, else (with ``use_cache``) the program cache's entry under
    :func:`cache_key`, each only when it was made from the program's current files; None
    when there is neither (:func:`load_engine` then compiles)."""
    from analyzer.engine.shipped import load_shipped

    engine = load_shipped(entry)
    if engine is None and use_cache:
        engine = _read(cache_key(entry))
    return engine


def load_engine(entry: Path, use_cache: bool = True) -> Engine:
    """The engine for the rule program at ``entry``: the compiled form shipped in the wheel
    for the built-in programs, else from the cache when possible, else compiled."""
    engine = cached_engine(entry, use_cache)
    if engine is not None:
        return engine
    from analyzer.engine.check import load_program  # the parser (lark) only on a cache miss

    engine = Engine(load_program(str(entry)))
    if use_cache:
        _write(cache_key(entry), engine)
    return engine


def _read(key: str) -> Optional[Engine]:
    payload = PROGRAMS.get(key)  # verified: the digest matched before anything is unpickled
    if payload is None:
        return None
    try:
        return _decode(payload)
    except Exception:  # noqa: BLE001 - our own entry of the wrong shape (another version, a bug)
        PROGRAMS.discard(key, "holds data of the wrong shape")
        return None


def _decode(payload: bytes) -> Optional[Engine]:
    if not payload.startswith(FORMAT):
        raise ValueError("not a program-cache payload")
    state = pickle.loads(payload[len(FORMAT):])
    if not isinstance(state, dict) or set(state) != _STATE_KEYS:
        raise ValueError("not a compiled program")
    return engine_from_state(state)


class StoredProgram(ast.Program):
    """The program of a stored engine: its declarations and files at once, the rest (rules,
    every declaration as written, file texts, directives) read on first use. Evaluating
    needs only the declarations (a cold read's program load was mostly unpickling rules it
    never looked at). Pickles and copies as a plain :class:`~analyzer.engine.ast.Program`."""

    def __init__(self, decls: dict, files: list, rest):  # noqa: D107 - not the dataclass's __init__
        self.decls, self.files, self._rest = decls, files, rest

    def __getattr__(self, name: str):
        if name not in _LAZY_FIELDS:  # called only for attributes not set yet
            raise AttributeError(name)
        program = self._rest()["program"]
        for field_name in _LAZY_FIELDS:
            self.__dict__[field_name] = getattr(program, field_name)
        return self.__dict__[name]

    def __reduce__(self):
        return ast.Program, (self.decls, self.rules, self.files, self.all_decls, self.sources, self.directives)


_LAZY_FIELDS = ("rules", "all_decls", "sources", "directives")


def _once(loads, payload: bytes):
    """A function returning ``loads(payload)``, decoded on its first call only."""
    box: list = []

    def rest():
        if not box:
            box.append(loads(payload))
        return box[0]
    return rest


def engine_from_state(state: dict, loads=pickle.loads, unchanged=lambda name: False) -> Optional[Engine]:
    """The engine stored by :func:`engine_state`, or None when a program file changed since
    it was compiled (raises on a state of the wrong shape). ``loads`` decodes the part read
    on first use (the rules, the plans and sources of the variants): as it was encoded.
    ``unchanged(name)``: whether a program file is known to be as it was compiled without
    reading it (a shipped program's files under the rule-set fingerprint it was built with)."""
    code = marshal.loads(state.pop("code"))
    if any(not unchanged(name) and _digest(Path(name)) != digest for name, digest in state.pop("files")):
        return None  # a program file changed since it was compiled: recompiled and replaced
    namespace = dict(RUNTIME)
    exec(code, namespace)  # noqa: S102 - code we generated and cached ourselves
    rest = _once(loads, state.pop("rest"))
    count = itertools.count()  # each variant's place in the deferred texts
    compiled = [
        ([_variant(meta, namespace, rest, next(count)) for meta in base],
         [_variant(meta, namespace, rest, next(count)) for meta in delta])
        for base, delta in state.pop("plain")
    ]
    state["program"] = StoredProgram(state.pop("decls"), state.pop("program_files"), rest)
    return Engine.from_state(state, {PLAIN: compiled}, rest=rest)


class StoredVariant(Variant):
    """A variant of a stored engine: its plan and sources (``steps``, ``source``,
    ``unique_source``), which evaluating never reads, are decoded on first use."""

    def __getattr__(self, name: str):
        if name not in ("source", "steps", "unique_source"):  # called only for attributes not set
            raise AttributeError(name)
        self.source, self.steps, self.unique_source = self._rest()["text"][self._position]
        return getattr(self, name)


def _variant(meta: tuple, namespace: dict, rest, position: int) -> Variant:
    rule, delta, delta_rel, fname, params, uname, head, empty_if, filtered_if = meta
    variant = StoredVariant.__new__(StoredVariant)  # not __init__: the texts come later
    variant.__dict__.update(rule=rule, delta=delta, delta_rel=delta_rel, fn=namespace[fname], params=params,
                            name=fname, unique_fn=namespace[uname] if uname else None, unique_name=uname,
                            head=head, empty_if=empty_if, filtered_if=filtered_if, _rest=rest,
                            _position=position)
    return variant


def _digest(path: Path) -> Optional[str]:
    try:
        return hashlib.sha256(sourcefile.read_bytes(path)).hexdigest()
    except OSError:
        return None


def _write(key: str, engine: Engine) -> None:
    try:
        payload = FORMAT + pickle.dumps(engine_state(engine), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return
    PROGRAMS.put(key, payload)


def engine_state(engine: Engine, dumps=None) -> dict:
    """A picklable state of ``engine`` with its plain variants compiled (one code object),
    and the content digest of every program file (checked by :func:`engine_from_state`).

    What evaluating needs (declarations, facts, strata, dependency maps, the variants'
    names, resources and empty checks, the code) is kept apart from what it does not (the
    rules, every declaration as written, file texts, the variants' plans and sources):
    that part is encoded by ``dumps`` (default: :func:`pickle.dumps`) into ``rest``, which
    a loaded engine decodes on first use."""
    if dumps is None:
        dumps = _dumps
    rules = engine.rules
    plain = engine.compiled(PLAIN)
    sources, metas, text = [], [], []
    for base, delta in plain:
        group = []
        for part in (base, delta):
            rows = []
            for v in part:
                sources.extend(t for t in (v.source, v.unique_source) if t)
                rows.append((v.rule, v.delta, v.delta_rel, v.fn.__name__, v.params, v.unique_name, v.head,
                             v.empty_if, v.filtered_if))
                text.append((v.source, v.steps, v.unique_source))
            group.append(rows)
        metas.append(tuple(group))
    state = engine.state()
    program = state.pop("program")
    del state["rules"]
    state["decls"], state["program_files"] = program.decls, program.files
    state["files"] = [(name, _digest(Path(name))) for name in program.files]
    state["plain"] = metas
    # the engine compiled all variants as one module already (the same text as joined here)
    code = engine.code(PLAIN) or compile("\n\n".join(sources), "<datalog program>", "exec")
    state["code"] = marshal.dumps(code)
    state["rest"] = dumps({"program": program, "rules": rules, "text": text})
    return state


def _dumps(value) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
