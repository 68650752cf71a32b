"""Same project, same check, same bytes: argument order, hash seed, file creation order and
the caches (cold, warm from the result cache, none) never change `analyze check` output."""

from __future__ import annotations

import shutil

import pytest

FAMILIES = ["--routing", "--reachability", "--freshness", "--conflicts"]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_argument_order_and_hash_seed_do_not_change_output(acme, analyze, fmt):
    outputs = set()
    for seed, argv in (("0", ["--all", "--format", fmt, "--project-root", str(acme)]),
                       ("1", ["--project-root", str(acme), "--format", fmt, "--all"]),
                       ("42", ["--format", fmt, "--all", "--project-root", str(acme), "--no-cache"])):
        run = analyze("check", *argv, seed=seed)
        assert run.returncode == 1, run.stderr  # the example's deliberate problems
        outputs.add(run.stdout)
    assert len(outputs) == 1


@pytest.mark.parametrize("flag", FAMILIES + ["--all", ""])
def test_cold_warm_and_uncached_runs_are_byte_identical(acme, analyze, flag):
    argv = ["check", "--project-root", str(acme), "--format", "json"] + ([flag] if flag else [])
    cold = analyze(*argv, cache="cold")
    warm = analyze(*argv, cache="cold")  # the result cache answers this one
    uncached = analyze(*argv, "--no-cache", cache="none")
    assert cold.stdout == warm.stdout == uncached.stdout
    assert cold.returncode == warm.returncode == uncached.returncode


def test_file_creation_order_does_not_change_output(acme, analyze, tmp_path):
    """The same files written in reverse order (other inode and directory order) check the same."""
    copy = tmp_path / "reversed"
    files = sorted(p for p in acme.rglob("*") if p.is_file())
    for path in reversed(files):
        target = copy / path.relative_to(acme)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    first = analyze("check", "--all", "--format", "json", "--no-cache", "--project-root", str(acme))
    second = analyze("check", "--all", "--format", "json", "--no-cache", "--project-root", str(copy))
    assert first.stdout == second.stdout


def test_a_changed_file_is_never_answered_from_the_result_cache(acme, analyze):
    argv = ["check", "--conflicts", "--project-root", str(acme)]
    before = analyze(*argv)
    assert "MC-CONFLICT-001" in before.stdout
    constraints = acme / "docs" / "memory" / "constraints.md"
    constraints.write_text(constraints.read_text().replace("Facet: security", "Facet: performance", 1))
    after = analyze(*argv)
    assert after.stdout == analyze(*argv, "--no-cache").stdout
    assert after.stdout != before.stdout


def test_a_removed_evidence_file_is_never_answered_from_the_result_cache(acme, analyze):
    argv = ["check", "--freshness", "--project-root", str(acme)]
    before = analyze(*argv)
    (acme / "api" / "orders.py").unlink()
    after = analyze(*argv)
    assert "Evidence path does not exist: repo:api/orders.py" in after.stdout
    assert "Evidence path does not exist: repo:api/orders.py" not in before.stdout
