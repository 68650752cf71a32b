"""A project read from disk keeps its files' extractions in one facts-cache entry
(analyzer/project/facts_cache.py ``ProjectFiles``), each file found in it by its own content
key: a file is extracted again exactly when it changed, as with an entry per file; a copy of
the project elsewhere finds the entry; and the entries written one per file (a prefetch
helper's, an older run's) are still read."""

from __future__ import annotations

import marshal
import shutil
from pathlib import Path

import pytest

from analyzer.core import cache
from analyzer.project import extraction, facts_cache
from analyzer.project.loader import load_project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLE, root)
    return root


@pytest.fixture
def extracted(monkeypatch):
    """The modules extracted (not taken from the cache) by each load, in a list."""
    seen = []
    real = extraction.extractor

    def counting(kind, module, schema, text):
        seen.append(module)
        return real(kind, module, schema, text)

    monkeypatch.setattr(extraction, "extractor", counting)
    return seen


def _entries():
    return sorted((cache.cache_root() / "facts").rglob("*.marshal"))


def _same(loaded, fresh) -> bool:
    return (loaded.facts.relations() == fresh.facts.relations() and loaded.facts.spans() == fresh.facts.spans()
            and loaded.diagnostics == fresh.diagnostics)


def test_a_cold_load_writes_one_entry_for_its_files(project, extracted):
    load_project(project)
    modules = len(extracted)
    assert modules > 5
    # the manifest's own entry, the project's files' and the name of that at the project's place
    assert len(_entries()) == 3
    held = facts_cache.ProjectFiles(str(project), "docs/memory", ()).held  # found by the place's name
    assert len(held) == modules


def test_only_a_changed_file_is_extracted_again(project, extracted):
    load_project(project)
    extracted.clear()
    assert _same(load_project(project), load_project(project, use_cache=False))
    extracted.clear()
    warm = load_project(project)
    assert extracted == []  # every file from the project's entry
    decisions = project / "docs" / "memory" / "decisions.md"
    decisions.write_text(decisions.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    changed = load_project(project)
    assert extracted == ["decisions.md"]
    assert _same(changed, load_project(project, use_cache=False))
    assert not _same(changed, warm) or changed.texts != warm.texts
    extracted.clear()
    load_project(project)
    assert extracted == []  # the entry was written again with the changed file
    # a change undone: the files' first entry is still there
    decisions.write_text(decisions.read_text(encoding="utf-8")[:-1], encoding="utf-8")
    assert _same(load_project(project), warm) and extracted == []
    # an edit after that takes the other files from the entry the place names
    decisions.write_text(decisions.read_text(encoding="utf-8") + "\n\n", encoding="utf-8")
    edited = load_project(project)
    assert extracted == ["decisions.md"]
    assert _same(edited, load_project(project, use_cache=False))


def test_entries_of_one_file_each_are_read_and_then_gathered(project, extracted):
    load_project(project)
    key = facts_cache.ProjectFiles(str(project), "docs/memory", ()).named
    plain = marshal.loads(facts_cache.FACTS.get(key))
    # as a prefetch helper (or a run before the project's entry) leaves them: one per file
    for digest, sink in plain.items():
        assert facts_cache.FACTS.put(digest, marshal.dumps(sink))
    facts_cache.FACTS.discard(key, "removed by the test")
    fresh = load_project(project, use_cache=False)
    extracted.clear()
    assert _same(load_project(project), fresh) and extracted == []
    # that load wrote the project's entry: the next reads nothing else
    for digest in plain:
        facts_cache.FACTS.discard(digest, "removed by the test")
    extracted.clear()
    assert _same(load_project(project), fresh) and extracted == []


def test_a_copy_elsewhere_finds_the_entry_and_then_its_own(project, tmp_path, extracted):
    load_project(project)
    other = tmp_path / "elsewhere"
    shutil.copytree(project, other)
    fresh = load_project(other, use_cache=False)
    extracted.clear()
    assert _same(load_project(other), fresh)
    assert extracted == []  # the same files: the same entry
    # the copy's place now names that entry too: an edit there extracts the edited file only
    decisions = other / "docs" / "memory" / "decisions.md"
    decisions.write_text(decisions.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    extracted.clear()
    edited = load_project(other)
    assert extracted == ["decisions.md"]
    assert _same(edited, load_project(other, use_cache=False))


def test_no_cache_reads_and_writes_no_entry(project, extracted):
    load_project(project, use_cache=False)
    assert _entries() == []


def test_facts_too_large_for_one_entry_are_kept_one_entry_per_file(project, extracted, monkeypatch):
    """An entry over the size the cache reads back would be discarded on every load: the
    files are then stored one entry per file, as before, and found there."""
    monkeypatch.setattr(facts_cache, "MAX_ENTRY_BYTES", 10_000)
    load_project(project)
    modules = len(extracted)
    entries = _entries()
    assert len(entries) == modules + 1  # each file's, and the manifest's
    fresh = load_project(project, use_cache=False)
    extracted.clear()
    assert _same(load_project(project), fresh)
    assert extracted == [] and _entries() == entries
