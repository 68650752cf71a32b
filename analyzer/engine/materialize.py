"""Request-independent strata, evaluated once per fact base and reused by later requests.

Most of a request's evaluation does not depend on the request: conflict analysis, the
registry, storage and reachability are the same for every ``read`` of one project state.
:func:`evaluate_reusing` splits a program's derived relations by the dependency graph
(:meth:`Engine.dependent_on` the request's input relations); the independent ones are
stored after the first evaluation, keyed by the fact base's digest, and handed to later
evaluations as ``given`` relations, whose strata then do not run.

The key covers everything the independent relations depend on: the engine sources and
Python version, the shipped rule set, the program's entry file and content digests, the
input relation names and the digest of every other fact (:meth:`FactBase.digest`).
Entries go through the verified store (analyzer/core/cache.py, area ``strata``: private
directory, digest checked before decoding, atomic writes); an unusable, corrupt or
mismatched entry is a miss (the evaluation then runs in full, which is always correct).

An entry holds each relation column by column, ``(tuple count, [column, ...])``: writing
its ten thousands of tuples one by one was most of the store's time on a cold 10,000-entry
read (the tuples lie scattered in a large heap), and rebuilding the tuples from columns
with ``zip`` is faster on a warm read than decoding them one by one.
"""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path
from typing import Iterable, Mapping, Optional

from analyzer.core.cache import Area
from analyzer.core.fingerprint import covers, ruleset_fingerprint
from analyzer.core.resources import data_dir

FORMAT = b"memory-analyzer-strata-4\n"
STRATA = Area("strata", ".marshal")


def independent_relations(engine, inputs: Iterable[str]) -> list:
    """The derived relations of ``engine`` that no relation of ``inputs`` can change, sorted."""
    dependent = engine.dependent_on(inputs)
    return sorted(rel for s in engine.strata if s.rules for rel in s.relations if rel not in dependent)


def strata_key(engine, inputs: Iterable[str], fact_digest: str, stored: Iterable[str] = ()) -> str:
    """The key of the ``stored`` independent relations of one program over one fact base."""
    from analyzer.engine.keys import engine_digest

    h = hashlib.sha256(FORMAT + engine_digest())
    h.update(ruleset_fingerprint().encode() + b"\0")
    root = str(data_dir("rules").parent).rstrip("/") + "/"
    for name in engine.program.files:  # the program itself, as the program cache checks it
        # a file the fingerprint hashes is in the key already (a rule pack's is read here)
        covered = name.startswith(root) and covers(name[len(root):])
        h.update(name.encode() + b"\0" + (b"fingerprinted" if covered else _file_digest(name)) + b"\0")
    h.update("\0".join(sorted(inputs)).encode() + b"\0" + "\0".join(stored).encode() + b"\0")
    h.update(fact_digest.encode())
    return h.hexdigest()


def _file_digest(name: str) -> bytes:
    try:
        return hashlib.sha256(Path(name).read_bytes()).digest()
    except OSError:
        return b"unreadable"


def stored_relations(engine, inputs: Iterable[str], outputs: Iterable[str] = ()) -> list:
    """The independent relations worth storing, sorted: those a dependent rule reads (the
    frontier), those nothing reads (results), and the independent ``outputs`` a caller
    reads. The rest only feed these and need neither storing nor evaluating again."""
    dependent = engine.dependent_on(inputs)
    readers = engine.maps()[1]
    outputs = set(outputs)
    return [rel for rel in independent_relations(engine, inputs)
            if rel in outputs or not readers.get(rel) or readers[rel] & dependent]


def evaluate_reusing(engine, facts: Mapping, inputs: Iterable[str], fact_digest: str, *,
                     outputs: Iterable[str] = (), use_cache: bool = True, checked: Iterable[str] = ()):
    """``engine.evaluate(facts)``, reusing the relations that do not depend on ``inputs``.

    ``fact_digest`` must determine every fact of ``facts`` outside ``inputs`` (a caller
    passing a digest that does not would get another fact base's results). On reuse the
    result holds every relation that depends on the inputs, the stored ones
    (:func:`stored_relations`, including ``outputs``) and the base facts these read; any
    other relation raises DL909 when read. Without ``use_cache``: a plain evaluation.
    ``checked``: as for ``Engine.evaluate``.
    """
    checked = list(checked)
    if not use_cache:
        return engine.evaluate(facts, checked=checked)
    inputs = sorted(set(inputs))
    stored = stored_relations(engine, inputs, outputs)
    key = strata_key(engine, inputs, fact_digest, stored)
    given = _read(key, stored)
    if given is not None:
        dependent = engine.dependent_on(inputs)
        wanted = [rel for s in engine.strata if s.rules for rel in s.relations if rel in dependent]
        # The stored strata were written after a full evaluation of these very facts (the key
        # holds their digest), which checked them against the declarations: the facts outside
        # the inputs need no second check (a tenth of a warm 10,000-entry read).
        checked = sorted(set(checked) | {rel for rel in facts if rel not in inputs})
        return engine.evaluate(facts, given=given, only=wanted + stored, checked=checked)
    db = engine.evaluate(facts, checked=checked)
    _write(key, {rel: columns(db.tuples(rel)) for rel in stored})
    return db


def columns(tuples) -> tuple:
    """A relation's tuples (all of one arity) as ``(count, [column, ...])``, in one order."""
    return len(tuples), [list(column) for column in zip(*tuples)]


def rows(stored) -> Optional[set]:
    """The tuples :func:`columns` stored, or None when ``stored`` does not have that shape."""
    if not (isinstance(stored, tuple) and len(stored) == 2 and isinstance(stored[1], list)):
        return None
    count, cols = stored
    if not isinstance(count, int) or not all(isinstance(c, list) and len(c) == count for c in cols):
        return None
    if not cols:  # a nullary relation: holds () or nothing
        return {()} if count == 1 else (set() if count == 0 else None)
    return set(zip(*cols))


def _read(key: str, relations: list) -> Optional[dict]:
    stored = STRATA.get_marshal(key, lambda value: isinstance(value, dict) and sorted(value) == relations)
    if stored is None:
        return None
    given = {rel: rows(value) for rel, value in stored.items()}
    if any(tuples is None for tuples in given.values()):
        STRATA.discard(key, "holds data of the wrong shape")
        return None
    return given


def _write(key: str, relations: dict) -> None:
    try:
        payload = marshal.dumps(relations)
    except ValueError:  # a value marshal cannot write (never expected)
        return
    STRATA.put(key, payload)
