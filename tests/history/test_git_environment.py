"""The environment every Git command of analyzer/history/git.py runs in.

Git's `log -p` inflates each blob version it diffs and frees it before the next; with
glibc's default trimming that cost most of its system time on a first readiness reading
(docs/performance.md, seventh round). The Git environment keeps freed memory; a user's own
allocator settings win, and Git never sees the caller's GIT_* variables."""

from analyzer.history import git


def test_git_keeps_freed_memory_and_never_sees_the_callers_git_variables(monkeypatch):
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    monkeypatch.setenv("GIT_DIR", "/elsewhere")
    env = git._environment()
    assert int(env["MALLOC_TRIM_THRESHOLD_"]) >= 1 << 30
    # 32 MiB is glibc's largest mmap threshold: a larger value would be ignored
    assert int(env["MALLOC_MMAP_THRESHOLD_"]) == 32 << 20
    assert "GIT_DIR" not in env and env["LC_ALL"] == "C"


def test_a_users_own_allocator_settings_are_kept(monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "131072")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "65536")
    env = git._environment()
    assert env["MALLOC_TRIM_THRESHOLD_"] == "131072" and env["MALLOC_MMAP_THRESHOLD_"] == "65536"


def test_git_runs_with_that_environment(tmp_path, monkeypatch):
    """The variables reach the Git process itself (a `!` alias runs a shell command in the
    environment Git was given)."""
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    out = git._call(str(tmp_path), ["-c", "alias.showenv=!printenv MALLOC_TRIM_THRESHOLD_", "showenv"])
    assert out.decode().strip() == str(1 << 30)
