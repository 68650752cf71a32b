"""A history reading loads 2,000 snippet revisions that mostly share one manifest text: the
manifest's extraction is looked up once per text (analyzer/history/window.py keeps it across its
load_texts calls), not once per revision."""

from histrepo import MEM, Repo


def test_snippet_revisions_look_their_manifest_up_once(tmp_path, monkeypatch):
    """load_texts with a dict kept by the caller (history's loader) looks a manifest text up
    in the facts cache once, not once per revision, and gives the same facts."""
    from analyzer.project import extraction
    from analyzer.project.loader import load_texts

    repo = Repo(tmp_path / "p")
    texts = {m: repo.read(m) for m in ("manifest.md", "decisions.md")}
    seen = []
    real = extraction.cached_sink
    monkeypatch.setattr(extraction, "cached_sink", lambda loader, module, *a, **k: (
        seen.append(module), real(loader, module, *a, **k))[1])
    alone = [load_texts(repo.root, MEM, texts) for _ in range(3)]
    assert seen.count("manifest.md") == 3
    kept: dict = {}
    shared = [load_texts(repo.root, MEM, texts, manifests=kept) for _ in range(3)]
    assert seen.count("manifest.md") == 4
    for one, other in zip(alone, shared):
        assert one.facts.relations() == other.facts.relations() and one.diagnostics == other.diagnostics
    load_texts(repo.root, MEM, {**texts, "manifest.md": texts["manifest.md"] + "\n"}, manifests=kept)
    assert seen.count("manifest.md") == 5  # another text is looked up


def test_a_bundled_revision_is_one_cache_entry(tmp_path, monkeypatch):
    """load_texts(bundled=True) keeps its files' extractions as one facts-cache entry: the
    same facts as file by file, nothing extracted when the bundle is stored, and a bad
    bundle entry is discarded and written again."""
    from analyzer.core import cache
    from analyzer.project import facts_cache
    from analyzer.project import extraction
    from analyzer.project.loader import load_texts

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cache._forget()
    repo = Repo(tmp_path / "p")
    texts = {m: repo.read(m) for m in ("manifest.md", "decisions.md", "constraints.md", "subjects.md")}
    alone = load_texts(repo.root, MEM, texts, use_cache=False)

    def snapshot(project):
        return (project.facts.relations(), project.facts.spans(), project.diagnostics, project.unit_ranges,
                project.titled, project.texts, project.facts.digest())

    puts = []
    real_put = facts_cache.FACTS.put
    monkeypatch.setattr(facts_cache.FACTS, "put", lambda key, payload: (puts.append(key), real_put(key, payload))[1])
    first = load_texts(repo.root, MEM, texts, bundled=True)
    assert snapshot(first) == snapshot(alone)
    assert len(puts) == 2  # the manifest's entry and one bundle for the three other files
    real_extractor = extraction.extractor
    monkeypatch.setattr(extraction, "extractor", lambda *a: (_ for _ in ()).throw(AssertionError("extracted")))
    assert snapshot(load_texts(repo.root, MEM, texts, bundled=True)) == snapshot(alone)
    assert len(puts) == 2
    monkeypatch.setattr(extraction, "extractor", real_extractor)
    bundle = puts[1]
    assert facts_cache.FACTS.put(bundle, b"\x00not marshal")  # a bad entry under the bundle's key
    assert snapshot(load_texts(repo.root, MEM, texts, bundled=True)) == snapshot(alone)
    assert facts_cache.load_bundle(bundle) is not None  # written again
    cache._forget()
