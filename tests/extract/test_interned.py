"""The columns of analyzer/project/extract/sink.py ``INTERNED`` hold interned strings, however the
facts arrive: written by the fast or the general path, read back from the facts cache, or
extracted by the prefetch helper and merged into the parent's fact base. Equal values of
those columns are then one object across files and relations (what evaluation relies on for
speed, docs/performance.md; never for meaning: the values are equal either way)."""

from __future__ import annotations

import marshal
import os
import shutil
import sys
from pathlib import Path

import pytest

from analyzer.project.extract.entries import extract_entries
from analyzer.project.extract.sink import INTERNED, Sink
from analyzer.project.extract.subjects import extract_subjects
from analyzer.project.loader import load_project

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"


def interned(value) -> bool:
    """Whether ``value`` is the interned string of its value (an equal string built anew
    interns to ``value`` itself), without interning anything that was not."""
    return sys.intern((value + "\0")[:-1]) is value


def not_interned(columns) -> list:
    """``(relation, column, value)`` of every string in an INTERNED column that is not."""
    return [(rel, col, t[col]) for rel, (values, _, _) in columns.items() for col in INTERNED.get(rel, ())
            for t in values if isinstance(t[col], str) and not interned(t[col])]


def _sinks(root: Path, fast: bool):
    for path in sorted(root.rglob("*.md")):
        module = path.relative_to(root).as_posix()
        if module == "manifest.md" or module.startswith("local/"):
            continue
        sink = Sink(module)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a corpus case's file that is not UTF-8 (MA-FILE-ENCODING): never extracted
        if module == "subjects.md":
            extract_subjects(text, module, sink, fast=fast)
        else:
            extract_entries(text, module, 2, sink, fast=fast)
        yield sink


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "general"])
def test_both_paths_intern_the_declared_columns(fast):
    roots = [EXAMPLE / "docs" / "memory", *sorted((REPO / "tests" / "corpus").glob("*/*/docs/memory"))]
    assert len(roots) > 10
    seen = set()
    for root in roots:
        for sink in _sinks(root, fast):
            assert not_interned(sink.columns) == [], sink.path
            seen.update((rel, col) for rel, cols in INTERNED.items() if sink.columns.get(rel, ([],))[0]
                        for col in cols)
    # every declared column was written at least once (overlay_entry comes from local files)
    assert {(rel, col) for rel, cols in INTERNED.items() if rel != "overlay_entry" for col in cols} <= seen


def test_a_non_interned_value_is_told_apart():
    fresh = "".join(["act", "ive-but-not-interned-", str(os.getpid())])
    assert not interned(fresh)
    assert not_interned({"entry": ([("e", "m", "DEC", fresh, "project")], [1], [1])})
    assert interned(sys.intern(fresh))


def test_values_read_back_from_the_facts_cache_stay_interned():
    sink = next(s for s in _sinks(EXAMPLE / "docs" / "memory", True) if s.columns.get("entry"))
    back = Sink.from_plain(marshal.loads(marshal.dumps(sink.to_plain())))
    assert back is not None and back.columns["entry"][0] == sink.columns["entry"][0]
    assert not_interned(back.columns) == []
    # a column outside INTERNED is not interned by the round trip (the test can tell)
    titles = [title for _, title in back.columns["entry_title"][0]]
    assert titles and not all(interned(title) for title in titles)


def test_the_helpers_files_reach_the_fact_base_interned(tmp_path, force_helpers):
    if (os.cpu_count() or 1) < 2:
        pytest.skip("the helper needs fork and a second core")
    helpers = []
    force_helpers(lambda jobs, schema, helper: helpers.append(helper))
    root = tmp_path / "acme-shop"
    shutil.copytree(EXAMPLE, root)
    facts = load_project(root).facts
    assert any(helper is not None for helper in helpers)
    sets = facts.relation_sets()
    columns = {rel: (list(sets.get(rel, ())), [], []) for rel in INTERNED}
    assert columns["entry"][0] and columns["subject"][0]
    assert not_interned(columns) == []
    # a Subject reference and the Subject's ID are one object (entries and subjects.md are
    # extracted by different processes here, or loaded from the cache)
    ids = {sid: sid for sid, *_ in sets["subject"]}
    referenced = [s for _, s in sets["entry_subject"] if s in ids]
    assert referenced and all(ids[s] is s for s in referenced)
