"""Why-not: the first failing body literal per candidate rule, with the closest facts."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "acme-shop"


@pytest.fixture(scope="module")
def session():
    from analyzer.query.read import ReadRequest
    from analyzer.query.world import project_session

    request = ReadRequest(task="implementation", project_root=EXAMPLE)
    return project_session(request, EXAMPLE)


def test_an_unrouted_area_fails_where_its_path_glob_has_no_touched_path(session):
    from analyzer.query.whynot import why_not

    answer = why_not(session, 'disposition("areas/web.md", "loaded")')
    text = answer.render()
    assert text.splitlines()[0] == ('disposition("areas/web.md", "loaded") does not hold: routed(M) no tuple '
                                    'matches under M = "areas/web.md" (rules/read/modules.dl:66:1)')
    # the path rule binds the area's glob and stops at the missing touched path
    assert 'with M = "areas/web.md", G = "web/**", O = 1' in text
    assert "fails at touched_path(P): no tuple matches" in text
    # the task rule shows the closest routes of the task
    assert 'closest: route("implementation", "decisions.md", "required", 1)' in text


def test_a_tuple_that_holds_and_a_base_fact_that_is_absent(session):
    from analyzer.query.whynot import why_not

    assert why_not(session, 'disposition("brief.md", "loaded")').holds
    answer = why_not(session, 'memory_file("areas/billing.md")')
    assert answer.base and answer.summary().startswith('memory_file("areas/billing.md") is not a fact')


def test_a_comparison_and_a_negation_that_fail_are_named(session):
    from analyzer.query.whynot import why_not

    session.add("small(M) :- budget(M, T), T < 0.")
    text = why_not(session, 'small("brief.md")').render()
    assert "fails at T < 0: is false under" in text
    session.add('unrouted(M) :- memory_file(M), !routed(M).')
    text = why_not(session, 'unrouted("brief.md")').render()
    assert "fails at !routed(M): the negated atom holds" in text


def test_why_not_takes_one_atom(session):
    from analyzer.core.diagnostics import DiagnosticError
    from analyzer.query.whynot import why_not

    with pytest.raises(DiagnosticError):
        why_not(session, "memory_file(M), memory_file(N)")
