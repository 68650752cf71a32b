"""Load the shipped rule programs once per process (and from the on-disk cache when the
shipped files have not changed), so that requests do not re-parse or re-stratify rules."""

from __future__ import annotations

from functools import lru_cache

from analyzer.resources import data_file


@lru_cache(maxsize=None)
def read_program(use_cache: bool = True):
    """The engine for rules/read/read.dl, parsed, checked, stratified and compiled once
    (per process, and across processes through the program cache)."""
    from analyzer.engine.cache import load_engine

    return load_engine(data_file("rules", "read/read.dl"), use_cache=use_cache)


@lru_cache(maxsize=None)
def merge_program(use_cache: bool = True):
    """The engine for rules/merge/merge.dl (merge review over the Git facts of three revisions)."""
    from analyzer.engine.cache import load_engine

    return load_engine(data_file("rules", "merge/merge.dl"), use_cache=use_cache)


@lru_cache(maxsize=None)
def revision_program(use_cache: bool = True):
    """The engine for rules/merge/revision.dl (the integrity of one revision of a merge review)."""
    from analyzer.engine.cache import load_engine

    return load_engine(data_file("rules", "merge/revision.dl"), use_cache=use_cache)


@lru_cache(maxsize=None)
def index_program(use_cache: bool = True):
    """The engine for rules/index/index.dl (`list`, `show`, `subject`), loaded like
    :func:`read_program`."""
    from analyzer.engine.cache import load_engine

    return load_engine(data_file("rules", "index/index.dl"), use_cache=use_cache)


@lru_cache(maxsize=None)
def diff_program(use_cache: bool = True):
    """The engine for rules/diff/diff.dl (change classes between two revisions)."""
    from analyzer.engine.cache import load_engine

    return load_engine(data_file("rules", "diff/diff.dl"), use_cache=use_cache)


@lru_cache(maxsize=None)
def readiness_program(use_cache: bool = True):
    """The engine for rules/history/readiness.dl (readings R1-R4 over a window of commits)."""
    from analyzer.engine.cache import load_engine

    return load_engine(data_file("rules", "history/readiness.dl"), use_cache=use_cache)


@lru_cache(maxsize=None)
def autonomy_program(use_cache: bool = True):
    """The engine for rules/autonomy/autonomy.dl (the plan/confirm/full matrix over a diff)."""
    from analyzer.engine.cache import load_engine

    return load_engine(data_file("rules", "autonomy/autonomy.dl"), use_cache=use_cache)


@lru_cache(maxsize=None)
def restore_program(use_cache: bool = True):
    """The engine for rules/restore/restore.dl (a restore preview over a diff)."""
    from analyzer.engine.cache import load_engine

    return load_engine(data_file("rules", "restore/restore.dl"), use_cache=use_cache)
