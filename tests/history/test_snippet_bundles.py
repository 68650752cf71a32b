"""A readiness window keeps its snippet extractions in one facts-cache entry per chunk of
commits (analyzer/history/window.py ``_chunks``), not one per snippet revision: creating 2,002 entry
files cost a first reading more than extracting the snippets. Each file is still found by
its own facts key, so a later comparison of the same commits extracts nothing and gets the
same facts, and one whose chunks changed extracts only what is not stored."""

from histrepo import MEM, Repo, entry

from analyzer.core import cache
from analyzer.project import facts_cache
from analyzer.history import commit_cache
from analyzer.project import extraction
from analyzer.history.git import Commit, Repo as GitRepo
from analyzer.history.unit_digests import READ
from analyzer.history.window import _chunks, window_facts
from analyzer.query.program import readiness_program

IDS = [f"MC-DEC-20260101-{n:08x}" for n in range(4)]


def _commit(sha: str) -> Commit:
    return Commit(sha, (), 0, "A <a@example.org>", "s", (), "")


def test_chunks_end_after_each_marked_commit_and_are_named_by_their_commits(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shas = ["a1", "01", "b2", "c3", "02", "d4"]
    chunks = [([c.sha for c in chunk], bundle.digest) for chunk, bundle in _chunks(MEM, [_commit(s) for s in shas], True)]
    assert [names for names, _ in chunks] == [["a1", "01"], ["b2", "c3", "02"], ["d4"]]
    # the same commits make the same chunk in another window; other commits another one
    def named(window):
        return [([c.sha for c in chunk], bundle.digest) for chunk, bundle in _chunks(MEM, [_commit(s) for s in window], True)]

    assert named(shas[2:]) == chunks[1:]
    assert named(shas[3:])[0][1] != chunks[1][1]  # c3, 02: other commits, another entry
    assert len({digest for _, digest in chunks}) == 3
    assert [bundle for _, bundle in _chunks(MEM, [_commit(s) for s in shas], False)] == [None, None, None]


def _history(root):
    repo = Repo(root)
    bodies = {i: f"Body {n}." for n, i in enumerate(IDS)}
    for step in range(6):
        bodies[IDS[step % len(IDS)]] = f"Body rewritten at step {step}."
        repo.write("decisions.md", "# Decisions\n\n" + "\n".join(entry(i, f"Entry {i[-2:]}", bodies[i]) for i in IDS))
        repo.commit(f"step {step}")
    return repo


def test_a_window_keeps_one_snippet_entry_per_chunk_and_reads_them_back(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cache._forget()
    repo = _history(tmp_path / "p")
    git, program = GitRepo(str(repo.root)), readiness_program(False)
    since = int(repo.git("log", "-1", "--format=%ct", "HEAD~5").strip())
    shas = repo.git("rev-list", "--reverse", "HEAD~6..HEAD").split()
    # two chunks whatever the ids: the third commit ends one
    monkeypatch.setattr(commit_cache, "CHUNK_MARK", shas[2][:12])
    reference = window_facts(git, MEM, "HEAD", since, 2**40, False, program).facts

    puts = []
    real_put = facts_cache.FACTS.put
    monkeypatch.setattr(facts_cache.FACTS, "put", lambda key, payload: (puts.append(key), real_put(key, payload))[1])
    first = window_facts(git, MEM, "HEAD", since, 2**40, True, program).facts
    bundles = [key for key in puts if facts_cache.load_bundle(key) is not None]
    assert len(bundles) == 2  # one per chunk, not one per revision (12 of them)
    assert first == reference
    # a bundle keeps only the relations the history code reads (not titles, fields, routes)
    kept = {rel for key in bundles for sink in facts_cache.load_bundle(key).values() for rel in sink.columns}
    assert "entry_unit" in kept and kept <= set(READ)

    # the same commits compared again: every snippet comes from the two entries
    monkeypatch.setattr(extraction, "extractor", lambda *a: (_ for _ in ()).throw(AssertionError("extracted")))
    puts.clear()
    assert window_facts(git, MEM, "HEAD", since, 2**40, True, program).facts == reference
    assert [key for key in puts if key in bundles] == []  # nothing written again
    cache._forget()


def test_a_bundle_shared_by_loads_hands_each_stored_extraction_out_once(tmp_path, monkeypatch):
    """Two loads of one bundle asking for the same file: the first takes the stored sink, the
    second extracts its own (a sink is merged into one fact base only); same facts."""
    from analyzer.project.loader import load_texts

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cache._forget()
    repo = Repo(tmp_path / "p")
    texts = {m: repo.read(m) for m in ("manifest.md", "decisions.md", "constraints.md")}
    alone = load_texts(repo.root, MEM, texts, use_cache=False)
    bundle = facts_cache.Bundle("0" * 64)
    loads = [load_texts(repo.root, MEM, texts, bundled=bundle) for _ in range(2)]
    bundle.store()
    again = facts_cache.Bundle("0" * 64)
    reread = [load_texts(repo.root, MEM, texts, bundled=again) for _ in range(2)]
    assert not again.changed  # the second load's files are stored: nothing to write
    for project in loads + reread:
        assert project.facts.relations() == alone.facts.relations() and project.diagnostics == alone.diagnostics
    sinks = [project.facts._located for project in reread]
    assert all(a[1] is not b[1] for a, b in zip(*sinks))  # no sink shared by the two fact bases
    cache._forget()
