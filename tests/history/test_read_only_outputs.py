"""Read-only against an untrusted project (issue 32, item 1): nothing from the repository
directs a write, and no output flag writes into the memory dir, into .git, through a symlink
or into a FIFO, device or directory. Every case leaves the whole tree, .git included,
byte for byte as it was (tree_state: path, mode, size, mtime, content), exits 2 with an
MA- code, and returns at once (a FIFO blocked forever before)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import inprocess
from histrepo import MEM, Repo, tree_state

REPO_ROOT = Path(__file__).resolve().parents[2]


def _analyze(repo, *argv, env=None, cwd=None):
    full = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    full.update(PYTHONPATH=str(REPO_ROOT), **(env or {}))
    return inprocess.run([*argv], cwd=cwd or repo.root, env=full,
                         capture_output=True, text=True, timeout=60)


@pytest.fixture
def repo(tmp_path):
    repo = Repo(tmp_path / "p")
    os.mkfifo(repo.root / "pipe")
    os.symlink(repo.root / MEM / "manifest.md", repo.root / "link.json")
    (repo.root / "out-dir").mkdir()
    return repo


# every way the probe wrote into the project, and the other targets to refuse
TARGETS = [f"{MEM}/manifest.md", f"{MEM}/new.md", ".git/config", ".git/hooks/pre-commit", "link.json",
           "pipe", "out-dir"] + (["/dev/null"] if os.path.exists("/dev/null") else [])
OUTPUT_COMMANDS = {
    "check": ["check", "--all"],
    "report": ["report"],
    "autonomy": ["check", "--autonomy", "confirm", "--base", "HEAD"],
}


@pytest.mark.parametrize("command", sorted(OUTPUT_COMMANDS))
def test_output_flags_refuse_the_project_and_special_files(repo, command):
    before = tree_state(repo.root)
    for target in TARGETS:
        for spec in (target, f"json:{target}"):
            run = _analyze(repo, *OUTPUT_COMMANDS[command], "--no-cache", "--output", spec)
            assert run.returncode == 2, (spec, run.stderr)
            assert f"MA-OUTPUT refused to write {target}" in run.stderr, run.stderr
            assert tree_state(repo.root) == before, spec


def test_outputs_are_judged_before_any_is_written(repo, tmp_path):
    good = tmp_path / "good.json"
    run = _analyze(repo, "check", "--no-cache", "--output", f"json:{good}", "--output", f"sarif:{MEM}/x.sarif")
    assert run.returncode == 2 and not good.exists()


def test_a_regular_file_outside_is_written(repo, tmp_path):
    out = tmp_path / "out.sarif"
    run = _analyze(repo, "check", "--no-cache", "--output", f"sarif:{out}")
    assert run.returncode in (0, 1), run.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["version"] == "2.1.0"


@pytest.mark.parametrize("target", [f"{MEM}/summary.md", ".git/summary.md", "link.json", "pipe"])
def test_the_step_summary_is_refused_there_too(repo, target):
    before = tree_state(repo.root)
    run = _analyze(repo, "check", "--no-cache", "--format", "github",
                   env={"GITHUB_STEP_SUMMARY": str(repo.root / target)})
    assert run.returncode == 2 and "MA-OUTPUT $GITHUB_STEP_SUMMARY" in run.stderr, run.stderr
    assert tree_state(repo.root) == before


@pytest.mark.parametrize("target", [f"{MEM}/facts", ".git/facts", f"{MEM}/manifest.md", "link.json"])
def test_facts_out_refuses_the_project(repo, target):
    before = tree_state(repo.root)
    run = _analyze(repo, "facts", "--no-cache", "--format", "souffle", "--out", target)
    assert run.returncode == 2 and "MA-OUTPUT" in run.stderr, run.stderr
    assert tree_state(repo.root) == before


@pytest.mark.parametrize("name, table", [(".memory-analyzer.toml", ""), ("pyproject.toml", "[tool.memory-analyzer]\n")])
@pytest.mark.parametrize("command", ["check", "report", "autonomy"])
def test_the_project_configuration_cannot_name_outputs(repo, tmp_path, name, table, command):
    # the probe: a plain `analyze check` overwrote the manifest, .git/config and a
    # file outside the project
    outside = tmp_path / "outside.md"
    (repo.root / name).write_text(f'{table}output = ["{MEM}/manifest.md", "json:.git/config", '
                                  f'"markdown:{outside}"]\n', encoding="utf-8")
    before = tree_state(repo.root)
    run = _analyze(repo, *OUTPUT_COMMANDS[command], "--no-cache")
    assert run.returncode == 2, run.stderr
    assert f"{name}:{2 if table else 1}:1: MA-CONFIG-OUTPUT" in run.stderr, run.stderr
    assert tree_state(repo.root) == before and not outside.exists()


@pytest.mark.parametrize("baseline", ["pipe", "/dev/zero", "link.json", f"{MEM}/manifest.md"])
def test_a_configured_baseline_is_read_safely(repo, baseline):
    # a FIFO blocked, /dev/zero ran out of memory; neither may hang or write
    (repo.root / ".memory-analyzer.toml").write_text(f'baseline = "{baseline}"\n', encoding="utf-8")
    before = tree_state(repo.root)
    run = _analyze(repo, "check", "--no-cache")
    assert run.returncode == 2 and "MA-BASELINE" in run.stderr, run.stderr
    assert tree_state(repo.root) == before


@pytest.mark.parametrize("kind", ["fifo", "directory", "symlink-outside"])
def test_a_configuration_file_that_is_no_regular_file_is_refused(repo, tmp_path, kind):
    own = repo.root / ".memory-analyzer.toml"
    if kind == "fifo":
        os.mkfifo(own)
    elif kind == "directory":
        own.mkdir()
    else:
        (tmp_path / "elsewhere.toml").write_text('format = "json"\n', encoding="utf-8")
        os.symlink(tmp_path / "elsewhere.toml", own)
    before = tree_state(repo.root)
    run = _analyze(repo, "check", "--no-cache")
    assert run.returncode == 2 and "MA-CONFIG-READ" in run.stderr, run.stderr
    assert tree_state(repo.root) == before
