"""`analyze check` end to end on small projects: dispatch, output format, statuses, exit
codes, locations, bad input (§9) and `--all` agreeing with the per-family runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import inprocess
from analyzer.query.check_legacy import SCAN_CODES

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"


def run(root: Path, *argv: str, env=None):
    """``analyze check ARGV --project-root ROOT`` in a subprocess (private cache)."""
    proc = inprocess.run(["check", *argv, "--project-root", str(root)],
                         capture_output=True, text=True, env=env or _env(root.parent), timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def _env(tmp: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(XDG_CACHE_HOME=str(tmp / "cache"), PYTHONPATH=str(REPO))
    return env


@pytest.fixture()
def example(tmp_path):
    root = tmp_path / "acme"
    shutil.copytree(EXAMPLE, root)
    return root


def test_dispatch_follows_the_reference_priority(example):
    both = run(example, "--routing", "--conflicts")
    assert both.stdout.startswith("Conflict status: ")
    assert run(example, "--freshness", "--routing").stdout.startswith("MemoryCustodian routing check: ")
    assert run(example, "--freshness", "--reachability").stdout.startswith("MemoryCustodian reachability check: ")
    assert run(example).stdout.startswith("MemoryCustodian check: ")


def test_all_agrees_with_the_per_family_runs(example):
    """`--all` prints each family's block exactly as its own run does; the exit is the worst.
    Its legacy block is plain `check` without the scans (their own families under `--all`)."""
    single = {f: run(example, f"--{f}") for f in ("routing", "reachability", "freshness", "conflicts")}
    together = run(example, "--all")
    # the scan families have no flag of their own (--security/--privacy belong to plain check);
    # the bundled example holds no secret and no hidden text; the legacy block sits before them
    scans = "".join(f"\nMemoryCustodian {name} check: OK\n- no findings\n" for name in ("security", "privacy", "hidden-text"))
    assert together.stdout.startswith("\n".join(p.stdout for p in single.values()) + "\nMemoryCustodian check: ")
    # the agents family (rules/agents/) closes --all, exactly as `check --agents` prints it
    agents = run(example, "--agents")
    assert together.stdout.endswith(scans + "\n" + agents.stdout)
    data = json.loads(run(example, "--all", "--format", "json").stdout)
    for family, proc in single.items():
        one = json.loads(run(example, f"--{family}", "--format", "json").stdout)
        assert data["families"][family] == one["families"][family]
        assert [f for f in data["findings"] if f["family"] == family] == one["findings"]
    plain = json.loads(run(example, "--format", "json").stdout)
    assert [f for f in data["findings"] if f["family"] == "legacy"] == [
        f for f in plain["findings"] if f["code"] not in SCAN_CODES]
    assert data["exit_code"] == together.returncode == max(
        [p.returncode for p in single.values()] + [data["families"]["legacy"]["exit_code"]])


def test_every_finding_is_located(example):
    data = json.loads(run(example, "--all", "--format", "json").stdout)
    assert data["findings"]
    for finding in data["findings"]:
        assert finding["locations"], finding
        for loc in finding["locations"]:
            assert (example / loc["path"]).is_file() and loc["line"] >= 1 and loc["col"] >= 1


def test_missing_memory_dir(tmp_path):
    root = tmp_path / "empty"
    (root / "docs").mkdir(parents=True)
    proc = run(root, "--routing")
    assert proc.returncode == 1
    assert proc.stdout == f"Memory directory missing: {root}/docs/memory\n"
    data = json.loads(run(root, "--conflicts", "--format", "json").stdout)
    assert data["ok"] is False and data["exit_code"] == 1 and data["schema"]["name"] == "check.error"


def test_contract_failure_reports_only_mc_routing_007(example):
    manifest = example / "docs" / "memory" / "manifest.md"
    manifest.write_text(manifest.read_text().replace("protocol_version: 0.7", "protocol_version: 0.7.0"))
    for family in ("routing", "reachability", "freshness"):
        proc = run(example, f"--{family}")
        lines = proc.stdout.splitlines()
        assert proc.returncode == 1
        assert lines[0] == f"MemoryCustodian {family} check: FAILED"
        assert len(lines) == 2 and lines[1].startswith("- MC-ROUTING-007 ERROR: "), lines
    proc = run(example, "--conflicts")
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == "Conflict status: INVALID"
    assert proc.stdout.splitlines()[1].startswith("- MC-ROUTING-007 ERROR: ")
    assert len(proc.stdout.splitlines()) == 2


def test_missing_manifest_is_routing_001_in_routing_and_reachability(example):
    (example / "docs" / "memory" / "manifest.md").unlink()
    for family in ("routing", "reachability"):
        assert run(example, f"--{family}").stdout.splitlines()[1] == "- MC-ROUTING-001 ERROR: manifest.md is missing."
    assert run(example, "--freshness").stdout.splitlines()[1] == "- MC-ROUTING-007 ERROR: manifest.md is missing."


@pytest.mark.parametrize("flag", ["--routing", "--conflicts", "--all", ""])
def test_managed_symlink_is_an_error(example, flag):
    memory = example / "docs" / "memory"
    (memory / "extra.md").symlink_to(memory / "brief.md")
    proc = run(example, *([flag] if flag else []))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("Error: ") and "symlink" in proc.stderr
    data = json.loads(run(example, *([flag] if flag else []), "--format", "json").stdout)
    assert data["schema"]["name"] == "check.error" and data["exit_code"] == 2


def test_undecodable_file_is_an_error(example):
    (example / "docs" / "memory" / "decisions.md").write_bytes(b"# Decisions\n\n\xff\xfe broken\n")
    proc = run(example, "--conflicts")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("Error: docs/memory/decisions.md")


def test_file_over_the_size_cap_is_an_error_and_the_cap_is_part_of_the_result_key(example):
    """--max-file-bytes as read has it: a managed file over the cap is refused (exit 2), a
    higher cap reads it, and a result cached under one cap never answers for another."""
    size = (example / "docs" / "memory" / "decisions.md").stat().st_size
    assert run(example, "--conflicts").returncode in (0, 1, 2)  # default cap: result cached
    small = run(example, "--conflicts", "--max-file-bytes", str(size - 1))
    assert small.returncode == 2 and small.stdout == ""
    assert small.stderr.startswith("Error: docs/memory/") and "--max-file-bytes" in small.stderr
    assert run(example, "--conflicts", "--max-file-bytes", str(20 * size)).stdout == run(example, "--conflicts").stdout


def test_freshness_revision_against_git_head(tmp_path, example):
    decisions = example / "docs" / "memory" / "decisions.md"
    text = decisions.read_text()
    assert "- repo:api/orders.py\n" in text  # Evidence of an active decision
    decisions.write_text(text.replace("- repo:api/orders.py\n", "- repo:api/orders.py@abc1234\n"))
    no_git = run(example, "--freshness")
    assert "- MC-FRESH-003 INFO: Git is unavailable; revision-backed Evidence was not freshness-checked." in no_git.stdout
    env = {**_env(tmp_path), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=example, env=env, check=True, capture_output=True)
    git_dir = sorted((p.relative_to(example), p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else b"")
                     for p in (example / ".git").rglob("*"))
    with_git = run(example, "--freshness")
    assert "MC-FRESH-003" not in with_git.stdout
    assert "Evidence revision differs from current Git HEAD." in with_git.stdout
    after = sorted((p.relative_to(example), p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else b"")
                   for p in (example / ".git").rglob("*"))
    assert after == git_dir, "check wrote into .git"


@pytest.mark.parametrize("extra", [[], ["--help-uri", "docs/rules"]])
def test_a_command_line_that_cannot_run_prints_the_check_error_document(tmp_path, extra):
    """A missing project root (or a relative --help-uri) in JSON is the ``check.error``
    document with its exit code, not an internal error about the output's shape."""
    root = tmp_path / "missing" if not extra else EXAMPLE
    proc = run(root, "--format", "json", *extra, env=_env(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert "internal error" not in proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"]["name"] == "check.error" and doc["exit_code"] == 2
    assert [d["code"] for d in doc["diagnostics"]] == ["MA-USAGE"]
