"""repo_file and repo_listing in the query world: listed lazily (only for a goal that reads
them), once per session, and answering the report's glob relations."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"


def test_the_repository_is_listed_only_when_a_goal_needs_it(monkeypatch):
    import analyzer.history.repofiles as repofiles
    from analyzer.query.world import project_session

    calls = []
    real = repofiles.list_files

    def counting(root, *args, **kwargs):
        calls.append(root)
        return real(root, *args, **kwargs)

    monkeypatch.setattr(repofiles, "list_files", counting)
    session = project_session(None, EXAMPLE)
    assert session.ask('entry(I, "inbox.md", _, _, _)').rows
    assert calls == []  # a goal that does not read the repository does not list it
    answer = session.ask('report_module_match(M, "no"), module_decl(M, "areas", _)')
    assert answer.rows == [("areas/search.md",)]
    files = session.ask('repo_file(P), starts_with(P, "api/")').rows
    assert ("api/orders.py",) in files
    assert len(calls) == 1  # listed once for the session


def test_an_empty_listing_is_an_answer_not_an_error(tmp_path, monkeypatch):
    import analyzer.history.repofiles as repofiles
    from analyzer.query.world import project_session

    monkeypatch.setattr(repofiles, "list_files", lambda root, *a, **k: ([], "walk", True))
    session = project_session(None, EXAMPLE)
    assert session.ask("repo_file(P)").rows == []
    rows = session.ask('report_module_match(M, Matched), module_decl(M, "areas", _)').rows
    assert {matched for _, matched in rows} == {"no"}


def test_a_later_goal_reads_base_relations_the_first_did_not():
    """A session keeps its base evaluation; a base relation the first goal did not read was
    not given to it and must not read as empty later (it once did)."""
    from analyzer.query.world import project_session

    session = project_session(None, EXAMPLE)
    assert len(session.ask('entry(I, "inbox.md", _, _, _)').rows) == 1
    assert ("areas/search.md",) in session.ask('module_decl(M, "areas", _)').rows
    assert session.ask('entry(I, "inbox.md", _, _, _)').rows  # and the first still answers
