"""Load the shipped rule programs once per process (and from the on-disk cache when the
shipped files have not changed), so that requests do not re-parse or re-stratify rules."""

from __future__ import annotations

from functools import lru_cache

from analyzer.resources import data_file


@lru_cache(maxsize=None)
def read_program():
    """The engine for rules/read/read.dl, parsed, checked and stratified once."""
    from analyzer.engine import Engine, load_program

    return Engine(load_program(str(data_file("rules", "read/read.dl"))))
