"""Why-not: the first failing body literal per candidate rule, with the closest facts."""

import random
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


def test_a_relation_without_facts_or_rules_fails_there_not_as_an_internal_error(session):
    # no --rule/--profile/--area: req_explicit is empty and nothing derives it, which the query
    # layer refuses as a goal that can never match (DL917); why-not reported that as exit 3
    from analyzer.query.whynot import why_not

    text = why_not(session, 'disposition("nope.md", "missing-optional")').render()
    assert "fails at req_explicit(F, R): no tuple matches" in text


# ---- ad hoc goals are stratified over their own rules ----------------------------------------
# A why-not asks dozens of goals; each used to order every relation of the read rules (about
# 0.1 s a goal). The strata must stay exactly those of the whole program.

def _record(monkeypatch):
    """Record the number of relations each stratification sees; check each layered one
    against the whole program's."""
    import analyzer.engine.evaluate as evaluate
    import analyzer.engine.stratify as stratify

    seen, compared = [], []
    whole, layered = stratify.stratify, stratify.stratify_over

    def counting(program, builtins):
        seen.append(len(program.decls))
        return whole(program, builtins)

    def checked(program, builtins, below):
        strata = layered(program, builtins, below)
        assert strata == whole(program, builtins)
        compared.append(program)
        return strata

    monkeypatch.setattr(stratify, "stratify", counting)
    monkeypatch.setattr(evaluate, "stratify", counting)
    monkeypatch.setattr(evaluate, "stratify_over", checked)
    return seen, compared


def test_a_why_not_stratifies_only_the_goals_rules(session, monkeypatch):
    from analyzer.query.whynot import why_not

    base = len(session.base_decls)
    assert base > 200
    seen, compared = _record(monkeypatch)
    answer = why_not(session, 'disposition("nope.md", "loaded")')
    assert not answer.holds
    assert len(compared) > 20  # one per goal asked, each the same strata as the whole program's
    # the calls the check above makes see the whole program; the engine's own see a few relations
    layered = [n for n in seen if n < base]
    assert len(layered) == len(compared) and max(layered) < 20


def test_added_recursive_and_negated_rules_keep_the_whole_programs_strata(session, monkeypatch):
    _seen, compared = _record(monkeypatch)
    session.add("reach(A, B) :- memory_file(A), memory_file(B), A < B.\n"
                "reach(A, C) :- reach(A, B), reach(B, C).\n"
                "lonely(M) :- memory_file(M), !reach(M, _), !reach(_, M).")
    assert session.ask("lonely(M), !routed(M)").columns == ["M"]
    assert session.ask("reach(A, B), A = B").rows == []
    assert len(compared) >= 2


def test_layered_strata_equal_whole_strata_on_random_programs():
    from analyzer.engine.builtins import BUILTINS
    from analyzer.engine.stratify import stratify, stratify_over
    from analyzer.engine.syntax import parse_program

    rng = random.Random(7)
    names = [f"{c}{i}" for c in "abcxyzABQ_" for i in range(3)]
    for _ in range(200):
        upper = rng.sample(names, rng.randint(1, 6))
        below = [n for n in names if n not in upper]
        lines = [f".decl {n}(x: symbol)" for n in names]
        for head in upper:
            for _ in range(rng.randint(1, 2)):
                reads = rng.sample(below + upper, rng.randint(1, 3))
                body = ", ".join(f"{r}(X)" for r in reads)
                # negate only relations of the base: the program stays stratifiable
                neg = [r for r in rng.sample(below, rng.randint(0, 2))]
                body += "".join(f", !{r}(X)" for r in neg)
                lines.append(f"{head}(X) :- {body}.")
        program = parse_program("\n".join(lines))
        assert stratify_over(program, BUILTINS, below) == stratify(program, BUILTINS), "\n".join(lines)
