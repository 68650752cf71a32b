"""Load the shipped rule programs once per process (and from the on-disk cache when the
shipped files have not changed), so that requests do not re-parse or re-stratify rules."""

from __future__ import annotations

from analyzer.core.resources import data_file

_loaded: dict = {}  # (rel, use_cache) -> the engine this process loaded or compiled


def shipped_program(rel: str, use_cache: bool = True):
    """The engine of ``rules/<rel>``, parsed, checked, stratified and compiled once per
    process (and across processes through the shipped compiled form or the program cache)."""
    engine = stored_program(rel, use_cache)
    if engine is None:
        from analyzer.engine.cache import load_engine

        engine = _loaded[(rel, use_cache)] = load_engine(data_file("rules", rel), use_cache=use_cache)
    return engine


def stored_program(rel: str, use_cache: bool = True):
    """The engine of ``rules/<rel>`` when this process has it already or its compiled form is
    shipped or (with ``use_cache``) in the program cache for its current files, else None;
    compiles nothing. What it loads is kept for :func:`shipped_program`, so that asking
    whether a program is compiled (a cold read's warmer, analyzer/query/read.py) loads it once."""
    key = (rel, use_cache)
    engine = _loaded.get(key)
    if engine is None:
        from analyzer.engine.cache import cached_engine

        engine = cached_engine(data_file("rules", rel), use_cache)
        if engine is not None:
            _loaded[key] = engine
    return engine


def read_program(use_cache: bool = True):
    """The engine for rules/read/read.dl, parsed, checked, stratified and compiled once
    (per process, and across processes through the program cache)."""
    return shipped_program("read/read.dl", use_cache)


def merge_program(use_cache: bool = True):
    """The engine for rules/merge/merge.dl (merge review over the Git facts of three revisions)."""
    return shipped_program("merge/merge.dl", use_cache)


def revision_program(use_cache: bool = True):
    """The engine for rules/merge/revision.dl (the integrity of one revision of a merge review)."""
    return shipped_program("merge/revision.dl", use_cache)


def index_program(use_cache: bool = True):
    """The engine for rules/index/index.dl (`list`, `show`, `subject`), loaded like
    :func:`read_program`."""
    return shipped_program("index/index.dl", use_cache)


def diff_program(use_cache: bool = True):
    """The engine for rules/diff/diff.dl (change classes between two revisions)."""
    return shipped_program("diff/diff.dl", use_cache)


def readiness_program(use_cache: bool = True):
    """The engine for rules/history/readiness.dl (readings R1-R4 over a window of commits)."""
    return shipped_program("history/readiness.dl", use_cache)


def autonomy_program(use_cache: bool = True):
    """The engine for rules/autonomy/autonomy.dl (the plan/confirm/full matrix over a diff)."""
    return shipped_program("autonomy/autonomy.dl", use_cache)


def restore_program(use_cache: bool = True):
    """The engine for rules/restore/restore.dl (a restore preview over a diff)."""
    return shipped_program("restore/restore.dl", use_cache)


def extracted(engine, facts, project) -> list:
    """The relations of ``facts`` (relation -> tuples, for ``engine``) that are ``project``'s
    own extracted fact sets, for ``Engine.evaluate(checked=...)``.

    The extractors emit every fact as facts/schema.dl declares it (exact ``str`` and ``int``
    values, the declared arity): tests/extract/test_fact_types.py holds them to it on the
    example, the spec's scenarios, the corpus, generated projects and fuzzed text. So a
    command's evaluation takes these sets without type-checking them again (about 160,000
    facts, a fifth of a cold 10,000-entry read's evaluation). Only a relation whose facts are
    the fact base's own set object and whose declaration in ``engine`` is facts/schema.dl's
    counts: facts a caller added or replaced, and relations a program declares itself (a
    rule pack, ``analyze query``), are checked as before."""
    own = project.facts.relation_sets(facts)
    schema = str(data_file("facts", "schema.dl"))
    decls = engine.program.decls
    out = []
    for rel, tuples in facts.items():
        decl = decls.get(rel)
        if own.get(rel) is tuples and decl is not None and decl.span is not None and decl.span.path == schema:
            out.append(rel)
    return out
