"""Invariants of read results over random requests (hypothesis), evaluated in process on the
bundled example: whatever the task, paths and explicit modules, the result is well formed."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.project.loader import load_project
from analyzer.query.read import ReadRequest, UnknownTask, run_read

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
TASKS = ["default", "general", "planning", "architecture", "refactoring", "implementation", "execution",
         "debugging", "review", "artifact", "output", "preferences", "history", "recap", "status",
         "maintenance", "compact", "forget"]
PATHS = ["web/src/cart.ts", "api/orders.py", "./api/orders.py", "api\\payments\\x.py", "search/index.py",
         "infra/main.tf", "README.md", "docs/x.md", "", "/abs.py", "C:/x.py", "../up.py", "a//b.py", "a/./b.py"]
NAMES = ["web", "api", "infra", "search", "payments", "nope", "oncall", "reviewer", "release", "copy",
         "../x", "readme", " web ", "a b"]
DISPOSITIONS = {"loaded", "skipped", "missing-required", "missing-optional", "invalid"}
PROJECT = load_project(EXAMPLE, use_cache=False)

requests = st.builds(
    lambda task, paths, rules, profiles, areas, strict: ReadRequest(
        task=task, paths=paths, rules=rules, profiles=profiles, areas=areas, strict=strict, no_local=True,
        project_root=EXAMPLE, use_cache=False),
    st.sampled_from(TASKS), st.lists(st.sampled_from(PATHS), max_size=4), st.lists(st.sampled_from(NAMES), max_size=2),
    st.lists(st.sampled_from(NAMES), max_size=2), st.lists(st.sampled_from(NAMES), max_size=2), st.booleans())


def _read(request):
    result, _, _ = run_read(request, project=PROJECT)
    return result


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_every_result_is_well_formed(request):
    result = _read(request)
    paths = [m.path for m in result.modules]
    assert len(paths) == len(set(paths)), "a module listed twice"
    assert all(m.disposition in DISPOSITIONS for m in result.modules)
    assert result.approved == (result.exit_code == 0)
    if result.completeness == "INVALID":
        assert [(m.path, m.disposition) for m in result.modules] == [("manifest.md", "invalid")]
        assert result.exit_code == 2 and result.conflict_status == "INVALID"
        failure = result.failure  # one Failure: the rules' code, the first error, the exit status
        assert (failure.code, failure.exit_code) == ("MC-ROUTE-INVALID", 2) and failure.message
        assert [m.primary_reason for m in result.modules] == [failure.code]
        assert not result.sections
    else:
        assert result.failure is None
        for m in result.modules:
            assert m.primary_reason in m.reasons
            on_disk = (EXAMPLE / "docs" / "memory" / m.path).is_file()
            if m.disposition == "loaded":
                assert on_disk
            if m.disposition == "missing-required":
                assert m.required and not on_disk
        if result.completeness == "COMPLETE":
            assert not result.incomplete_dimensions
        if not request.strict and result.conflict_status in ("CLEAR", "REVIEW"):
            assert result.exit_code == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests, st.randoms(use_true_random=False))
def test_argument_order_never_matters(request, rnd):
    shuffled = ReadRequest(**{**request.__dict__})
    for name in ("paths", "rules", "profiles", "areas"):
        values = list(getattr(request, name))
        rnd.shuffle(values)
        setattr(shuffled, name, values + values[:1])  # order and repeats are irrelevant
    assert _read(request) == _read(shuffled)


def test_unknown_task_is_refused():
    try:
        _read(ReadRequest(task="bogus", project_root=EXAMPLE, no_local=True))
    except UnknownTask as exc:
        assert str(exc) == "bogus"
    else:
        raise AssertionError("an unknown task was accepted")
