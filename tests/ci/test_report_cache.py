"""`analyze report` (and `check --format markdown`) answer from the check result cache, whose
key then holds a digest of the repository's file list: a new file, a file added to Git or a
changed memory file is a miss; cold, warm and --no-cache runs print the same bytes."""

from __future__ import annotations

import os
import subprocess

import pytest

from cihelp import copy_example, count_evaluations, run_inproc, run_cli


@pytest.fixture()
def env(monkeypatch, tmp_path):
    for key in ("GITHUB_STEP_SUMMARY", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _report(root, calls, *argv):
    """(stdout, evaluations it took)."""
    before = len(calls)
    out, err, _ = run_inproc(["report", "--project-root", str(root), *argv])
    assert "Traceback" not in err
    return out, len(calls) - before


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_cold_warm_and_no_cache_print_the_same_bytes(fmt, tmp_path, env, monkeypatch):
    from analyzer.query import check as check_query

    overall: list = []
    calls = count_evaluations(monkeypatch, overall)
    root = copy_example(tmp_path)
    check_query._judged.cache_clear()  # the run's judgement is memoized per shape in the process
    cold, n_cold = _report(root, calls, "--format", fmt)
    combined = len(overall)
    check_query._judged.cache_clear()  # a warm run that judged the run again would evaluate
    warm, n_warm = _report(root, calls, "--format", fmt)
    assert (combined, len(overall)) == (1, 1)  # the warm run does not judge the run again either
    fresh, n_fresh = _report(root, calls, "--format", fmt, "--no-cache")
    assert (n_cold, n_warm, n_fresh) == (1, 0, 1)  # the warm run is answered by the result cache
    assert cold == warm == fresh


def test_a_changed_file_list_or_memory_is_a_miss(tmp_path, env, monkeypatch):
    calls = count_evaluations(monkeypatch)
    root = copy_example(tmp_path)  # outside Git: the walk lists the files
    first, _ = _report(root, calls)
    assert "| areas/search.md | areas | path | present | `api/search/**` (0) | **no** |" in first
    assert _report(root, calls)[1] == 0
    (root / "api" / "search").mkdir(parents=True)
    (root / "api" / "search" / "index.py").write_text("", encoding="utf-8")
    second, evaluations = _report(root, calls)
    assert evaluations == 1 and "`api/search/**` (1) | yes |" in second
    assert _report(root, calls)[1] == 0
    decisions = root / "docs" / "memory" / "decisions.md"
    decisions.write_text(decisions.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert _report(root, calls)[1] == 1
    # check's Markdown report is a separate key (other families, same listing) and is cached too
    out, err, _ = run_inproc(["check", "--all", "--format", "markdown", "--project-root", str(root)])
    before = len(calls)
    again, _, _ = run_inproc(["check", "--all", "--format", "markdown", "--project-root", str(root)])
    assert len(calls) == before and again == out and "`api/search/**` (1) | yes |" in out


def test_in_git_the_key_is_the_ls_files_list(tmp_path, env, monkeypatch):
    calls = count_evaluations(monkeypatch)
    root = copy_example(tmp_path)
    git_env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@example.invalid", HOME=str(tmp_path))
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "memory"]):
        subprocess.run(["git", *args], cwd=root, env=git_env, check=True, capture_output=True)
    first, _ = _report(root, calls)
    assert "from git ls-files" in first
    (root / "api" / "search").mkdir(parents=True)
    (root / "api" / "search" / "index.py").write_text("", encoding="utf-8")
    untracked, evaluations = _report(root, calls)
    assert evaluations == 0 and untracked == first  # git ls-files does not list an untracked file
    subprocess.run(["git", "add", "api/search/index.py"], cwd=root, env=git_env, check=True)
    tracked, evaluations = _report(root, calls)
    assert evaluations == 1 and "`api/search/**` (1) | yes |" in tracked


def test_same_bytes_from_a_process_with_a_warm_cache(tmp_path):
    root = copy_example(tmp_path)
    outs = [run_cli(["report", "--project-root", str(root), *extra], tmp_path, process=True).stdout
            for extra in ((), (), ("--no-cache",))]
    assert outs[0] and outs[0] == outs[1] == outs[2]
