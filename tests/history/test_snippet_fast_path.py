"""A readiness window's snippet revisions are extracted by the file-level fast path.

Each commit's snippets (analyzer/history/unit_hunks.py) end without a ``\\n`` after their last line;
the fast path's section patterns used to miss that last section, so nearly every snippet
went to the general path (about 2.6 of a first reading's 11 s of CPU on the 10,000-entry
bench history). Here a window of commits rewriting canonical entries must write every
changed entry straight from the fast path's match, on both sides of every commit, with no
section left to the general path, and see each rewrite as one change
(tests/extract/test_snippet_fast_path.py checks that both paths give the same facts)."""

from histrepo import MEM, Repo, entry

from analyzer.project.extract import canonical, fast_entries
from analyzer.history.git import Repo as GitRepo
from analyzer.history.window import window_facts
from analyzer.query.program import readiness_program

IDS = [f"MC-DEC-20260101-{n:08x}" for n in range(6)]
STEPS = ([IDS[1], IDS[4]], [IDS[5]], [IDS[0], IDS[2], IDS[3]])  # the entries each commit rewrites


def test_every_changed_entry_of_a_window_is_matched_by_the_fast_path(tmp_path, monkeypatch):
    repo = Repo(tmp_path / "p")
    bodies = {i: f"Body {n}." for n, i in enumerate(IDS)}

    def write():
        repo.write("decisions.md", "# Decisions\n\n" + "\n".join(entry(i, f"Entry {i[-2:]}", bodies[i]) for i in IDS))

    write()
    repo.commit("six entries")
    shas = []
    for step, picked in enumerate(STEPS):
        for i in picked:
            bodies[i] = f"Body of {i[-2:]}, rewrite {step}."
        write()
        shas.append(repo.commit(f"rewrite {step}"))
    since = int(repo.git("log", "-1", "--format=%ct", shas[0]).strip())
    add_entry, real_units = fast_entries._Entries.add, canonical.General.section_units
    matched, missed = [], []
    monkeypatch.setattr(fast_entries._Entries, "add", lambda self, *a: matched.append(a) or add_entry(self, *a))
    monkeypatch.setattr(canonical.General, "section_units", lambda self, *a: missed.append(a) or real_units(self, *a))
    program = readiness_program(False)
    window = window_facts(GitRepo(str(repo.root)), MEM, "HEAD", since, 2**40, False, program)
    assert [c.sha for c in window.commits] == shas
    rewritten = sum(len(picked) for picked in STEPS)
    # each rewritten entry once in its commit's parent side and once in its own side
    # (the fast path matched it; none went to the general path)
    assert len(matched) == 2 * rewritten and missed == []
    db = window.facts.evaluate(program)
    changed = sorted((pair, ident.casefold()) for pair, _k, ident, _c, _s in db.relation("change"))
    assert changed == sorted((sha, i.casefold()) for sha, picked in zip(shas, STEPS) for i in picked)
