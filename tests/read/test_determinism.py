"""Same request, same bytes: argument order, hash seed and caches never change read output."""

from __future__ import annotations

import itertools

import pytest

PATHS = ["web/src/cart.ts", "api/orders.py", "./api/orders.py", "docs/notes.md"]
AREAS = ["infra", "search"]


def _argv(root, paths, areas, fmt):
    argv = ["read", "--project-root", str(root), "--task", "implementation", "--explain", "--format", fmt]
    for p in paths:
        argv += ["--path", p]
    for a in areas:
        argv += ["--area", a]
    return argv


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_argument_order_and_hash_seed_do_not_change_output(acme, analyze, fmt):
    outputs = set()
    orders = list(itertools.permutations(PATHS))[:4]
    for i, (paths, seed) in enumerate(zip(orders, ["0", "1", "42", "4242"])):
        areas = AREAS if i % 2 == 0 else list(reversed(AREAS))
        run = analyze(*_argv(acme, paths, areas, fmt), seed=seed)
        assert run.returncode == 2, run.stderr  # the example's deliberate conflicts
        outputs.add(run.stdout)
    assert len(outputs) == 1


def test_cold_and_warm_caches_give_identical_output(acme, analyze):
    argv = _argv(acme, PATHS, AREAS, "text")
    cold = analyze(*argv, cache="cold")
    warm = analyze(*argv, cache="cold")
    uncached = analyze(*argv, "--no-cache", cache="none")
    assert cold.stdout == warm.stdout == uncached.stdout
    assert cold.returncode == warm.returncode == uncached.returncode


def test_duplicate_and_dot_slash_paths_are_one_path(acme, analyze):
    run = analyze("read", "--project-root", str(acme), "--task", "implementation", "--names-only",
                  "--path", "api/orders.py", "--path", "./api/orders.py", "--path", "api\\orders.py")
    paths = run.stdout.split("Paths:\n", 1)[1].split("Explicit scope:", 1)[0]
    assert paths == "- api/orders.py\n"
