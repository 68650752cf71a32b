"""A history reading loads 2,000 snippet revisions that mostly share one manifest text: the
manifest's extraction is looked up once per text (analyzer/history.py keeps it across its
load_texts calls), not once per revision."""

from histrepo import MEM, Repo


def test_snippet_revisions_look_their_manifest_up_once(tmp_path, monkeypatch):
    """load_texts with a dict kept by the caller (history's loader) looks a manifest text up
    in the facts cache once, not once per revision, and gives the same facts."""
    from analyzer import extraction
    from analyzer.project import load_texts

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
