"""The merge review's Git side (spec §9.5): read-only, and fail-closed when Git cannot answer.

Every way Git can fail (no git binary, not a repository, a bad or option-like ref, no merge
base, a shallow clone, a managed file that cannot be read at a revision) must give "Merge
review unavailable" with exit 1, never a status; and no run may change anything in .git.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path
from typing import Optional

import pytest

import gitsteps
import inprocess
from corpus_project import build_project
from analyzer.query.merge import UNAVAILABLE_NOTE, run_merge_review

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")
DECISIONS = "docs/memory/decisions.md"


def _project(tmp_path: Path, right=None, left=None) -> Path:
    root = build_project(tmp_path / "no-case", tmp_path / "project")
    gitsteps.run_steps(root, gitsteps.two_sided_steps({"right": right or {}, "left": left or {}}), dict(os.environ))
    return root


def _unavailable(result, *words):
    assert result.status is None and not result.available
    assert result.exit_code == 1
    assert result.text_lines() == [f"Merge review unavailable: {result.failure.message}", UNAVAILABLE_NOTE]
    for word in words:
        assert word in result.failure.message, result.failure


def git_state(root: Path) -> str:
    """A digest of every file under .git: path, size, mode, mtime and content."""
    h = hashlib.sha256()
    for path in sorted((root / ".git").rglob("*")):
        info = path.lstat()
        h.update(f"{path.relative_to(root)}|{info.st_mode}|{info.st_size}|{info.st_mtime_ns}\n".encode())
        if path.is_file() and not path.is_symlink():
            h.update(path.read_bytes())
    return h.hexdigest()


def test_review_never_writes_into_git(tmp_path):
    root = _project(tmp_path, right={DECISIONS: "# Decisions\n\nChanged on the right.\n"})
    before = git_state(root)
    for ref in ("right", "base", "does-not-exist"):
        run_merge_review(root, "docs/memory", ref, use_cache=False)
    assert git_state(root) == before


def test_not_a_repository(tmp_path):
    root = build_project(tmp_path / "no-case", tmp_path / "project")
    _unavailable(run_merge_review(root, "docs/memory", "main", use_cache=False), "not a git repository")


def test_no_git_binary(tmp_path, monkeypatch):
    root = _project(tmp_path)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    _unavailable(run_merge_review(root, "docs/memory", "right", use_cache=False), "git is not installed")


@pytest.mark.parametrize("ref", ["does-not-exist", "--output=/tmp/x", "", "right^^^^^^"])
def test_bad_ref(tmp_path, ref):
    root = _project(tmp_path)
    _unavailable(run_merge_review(root, "docs/memory", ref, use_cache=False))


def test_no_merge_base(tmp_path):
    root = _project(tmp_path)
    env = dict(os.environ)
    gitsteps.git(root, env, "checkout", "-q", "--orphan", "island")
    gitsteps.git(root, env, "commit", "-q", "-m", "unrelated")
    gitsteps.git(root, env, "checkout", "-q", "right")
    _unavailable(run_merge_review(root, "docs/memory", "island", use_cache=False), "no merge base")


def test_shallow_clone(tmp_path):
    origin = _project(tmp_path, right={DECISIONS: "# Decisions\n\nRight.\n"}, left={DECISIONS: "# Decisions\n\nLeft.\n"})
    clone = tmp_path / "clone"
    gitsteps.git(tmp_path, dict(os.environ), "clone", "-q", "--depth", "1", "--no-single-branch",
                 f"file://{origin}", str(clone))
    _unavailable(run_merge_review(clone, "docs/memory", "origin/right", use_cache=False), "shallow")


def test_undecodable_file_at_a_revision(tmp_path):
    root = _project(tmp_path)
    env = dict(os.environ)
    gitsteps.git(root, env, "checkout", "-q", "right")
    (root / DECISIONS).write_bytes(b"# Decisions\n\n\xff\xfe broken\n")
    gitsteps.git(root, env, "commit", "-qam", "bad bytes")
    gitsteps.git(root, env, "checkout", "-q", "-")
    _unavailable(run_merge_review(root, "docs/memory", "right", use_cache=False), "docs/memory/decisions.md",
                 "UTF-8")


def test_symlinked_managed_file_at_a_revision(tmp_path):
    root = _project(tmp_path)
    env = dict(os.environ)
    gitsteps.git(root, env, "checkout", "-q", "right")
    (root / "docs/memory/preferences.md").symlink_to("brief.md")
    gitsteps.git(root, env, "add", "-A")
    gitsteps.git(root, env, "commit", "-qm", "symlink")
    gitsteps.git(root, env, "checkout", "-q", "-")
    _unavailable(run_merge_review(root, "docs/memory", "right", use_cache=False), "symlink")


def test_project_below_the_top_level(tmp_path):
    """A project root inside a larger repository: paths are taken relative to the project."""
    top = tmp_path / "top"
    root = build_project(tmp_path / "no-case", top / "sub" / "project")
    env = dict(os.environ)
    gitsteps.git(top, env, "init", "-q")
    gitsteps.git(top, env, "add", "-A")
    gitsteps.git(top, env, "commit", "-qm", "base")
    gitsteps.git(top, env, "checkout", "-q", "-b", "right")
    (root / "src").mkdir()
    (root / "src" / "x.py").write_text("X = 1\n")
    gitsteps.git(top, env, "add", "-A")
    gitsteps.git(top, env, "commit", "-qm", "right")
    gitsteps.git(top, env, "checkout", "-q", "-")
    result = run_merge_review(root, "docs/memory", "right", use_cache=False)
    assert result.status == "CLEAR", result.failure


def test_clear_when_nothing_changed(tmp_path):
    root = _project(tmp_path)
    result = run_merge_review(root, "docs/memory", "right", use_cache=False)
    assert (result.status, result.exit_code, result.findings) == ("CLEAR", 0, [])
    assert result.base == result.head


def test_reusing_the_work_tree_for_head_changes_nothing(tmp_path):
    """HEAD's files equal the work tree's: reusing the loaded work tree gives the same review."""
    from analyzer.project.loader import load_project

    from corpus_project import CORPUS, write_history

    case = CORPUS / "MC-MERGE-REVIEW-001" / "fires"
    root = build_project(case, tmp_path / "project")
    write_history(case, root, dict(os.environ))
    plain = run_merge_review(root, "docs/memory", "right", use_cache=False)
    reused = run_merge_review(root, "docs/memory", "right", use_cache=False,
                              worktree=load_project(root, use_cache=False))
    assert plain.status == "REVIEW"
    assert (reused.status, reused.findings, reused.exit_code) == (plain.status, plain.findings, plain.exit_code)


@pytest.mark.parametrize("code", ["MC-MERGE-REVIEW-001", "MC-MERGE-001", "MC-MERGE-002"])
def test_first_phase_relations_given_to_the_final_evaluation_change_nothing(tmp_path, monkeypatch, code):
    """The final evaluation takes the first phase's relations (changed, deleted, duplicated
    units) as given; deriving them again instead gives the same review."""
    from analyzer.query import merge

    from corpus_project import CORPUS, write_history

    case = CORPUS / code / "fires"
    root = build_project(case, tmp_path / "project")
    write_history(case, root, dict(os.environ))
    reused = run_merge_review(root, "docs/memory", "right", use_cache=False)
    given = []
    real = merge._phase_one
    monkeypatch.setattr(merge, "_phase_one", lambda *a: given.append(real(*a)) or {})
    again = run_merge_review(root, "docs/memory", "right", use_cache=False)
    assert given and given[0]["changed"], "the first phase's relations were offered"
    assert (again.status, again.findings, again.exit_code) == (reused.status, reused.findings, reused.exit_code)
    assert reused.findings


def _cli(root: Path, *argv: str, seed: Optional[str] = None, cache: Path = None) -> subprocess.CompletedProcess:
    """``analyze check --conflicts ARGV``: in this process (tests/inprocess.py), or as a subprocess
    when a hash ``seed`` is asked for."""
    import sys

    env = dict(os.environ)
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)
    argv = ["check", "--conflicts", *argv, "--project-root", str(root)]
    if seed is None:
        return inprocess.run(argv, env=env)
    env.update(PYTHONHASHSEED=seed, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return subprocess.run([sys.executable, "-m", "analyzer", *argv], capture_output=True, text=True, env=env,
                          timeout=300)


def test_cli_never_writes_into_git_and_is_deterministic(tmp_path):
    """The whole command, text and JSON, cold and warm cache, two hash seeds: byte-identical
    output, and .git exactly as before."""
    from corpus_project import CORPUS, write_history

    case = CORPUS / "MC-MERGE-REVIEW-001" / "fires"
    root = build_project(case, tmp_path / "project")
    write_history(case, root, dict(os.environ))
    before = git_state(root)
    cache = tmp_path / "cache"
    runs = [_cli(root, "--merge-base", "right", *fmt, seed=seed, cache=cache)
            for fmt in ([], ["--format", "json"]) for seed in ("0", "4242", "7")]
    runs.append(_cli(root, "--merge-base", "right", "--no-cache"))
    assert git_state(root) == before
    text, json_runs = runs[0:3] + runs[6:], runs[3:6]
    assert {r.stdout for r in text} == {text[0].stdout} and {r.stdout for r in json_runs} == {json_runs[0].stdout}
    assert text[0].returncode == 0 and "Merge review status: REVIEW" in text[0].stdout
    assert text[0].stdout.startswith("Conflict status: CLEAR\nMerge review status: REVIEW\nMerge base: ")


def test_cli_unavailable_blocks_even_when_clear(tmp_path):
    root = _project(tmp_path)
    run = _cli(root, "--merge-base", "no-such-ref")
    assert run.returncode == 1
    assert run.stdout.splitlines() == ["Conflict status: CLEAR", "Merge review unavailable: not a valid commit: no-such-ref",
                                       UNAVAILABLE_NOTE]
    data = __import__("json").loads(_cli(root, "--merge-base", "no-such-ref", "--format", "json").stdout)
    assert (data["status"], data["exit_code"], data["merge"]["status"]) == ("UNAVAILABLE", 1, "UNAVAILABLE")


def test_cli_no_merge_review_after_a_broken_contract(tmp_path):
    """0.11 returns after the contract failure: no merge block."""
    root = _project(tmp_path)
    manifest = root / "docs/memory/manifest.md"
    manifest.write_text(manifest.read_text().replace("- protocol_version: 0.7", "- protocol_version: 9.9"))
    run = _cli(root, "--merge-base", "right")
    assert run.returncode == 1 and run.stdout.startswith("Conflict status: INVALID")
    assert "Merge review" not in run.stdout
