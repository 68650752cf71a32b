"""Bad input to the history commands names its place and code: a plan.md line
(`path:line:col: MA-PLAN: ...`), a configured agent-author pattern (the configuration's
file and line, MA-CONFIG-VALUE); autonomy options given without --base are refused, never
dropped by the plain check; an empty --head, a --memory-dir outside docs/ or missing at
--head are exit 2, never an empty memory read as UNCHANGED or CLEAR."""

import re

import pytest

import inprocess
from classes import CENTS
from histrepo import Repo


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    repo = Repo(tmp_path_factory.mktemp("usage") / "p")
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#44\n")
    repo.commit("evidence")
    return repo


def analyze(repo, *args):
    return inprocess.run([*args, "--no-cache", "--project-root", str(repo.root)],
                         capture_output=True, text=True)


@pytest.mark.parametrize("extra", [["--reviewer", "alice"], ["--head", "HEAD"], ["--agent-author", "bot"]])
def test_autonomy_options_without_base_are_refused(repo, extra):
    run = analyze(repo, "check", *extra)
    assert run.returncode == 2 and run.stdout == ""
    assert f"{extra[0]} given without --base" in run.stderr


def test_plan_error_names_line_and_code(repo):
    repo.write("plan.md", "# Plan\n\n## Step 1 \u2014 Go\nAllow: A, F\n")
    try:
        run = analyze(repo, "check", "--autonomy", "plan", "--base", "HEAD~1")
    finally:
        repo.write("plan.md", None)
    assert run.returncode == 2
    assert re.search(r"error: docs/memory/plan\.md:4:1: MA-PLAN:? malformed Allow line", run.stderr), run.stderr


@pytest.mark.parametrize("argv", [["readiness"], ["check", "--autonomy", "full", "--base", "HEAD~1"]])
def test_configured_agent_pattern_names_the_file(repo, argv):
    config = repo.root / ".memory-analyzer.toml"
    config.write_text('# agents\nagent-authors = ["bot", "("]\n', encoding="utf-8")
    try:
        run = analyze(repo, *argv)
    finally:
        config.unlink()
    assert run.returncode == 2
    assert re.search(r"\.memory-analyzer\.toml:2:1: MA-CONFIG-VALUE:? agent-authors: '\(' is not a regular expression",
                     run.stderr), run.stderr


@pytest.mark.parametrize("argv", [["diff", "--base", "HEAD~1", "--head", "HEAD"],
                                  ["restore", "--preview", "MC-DEC-20260910-1b2c3d4e", "--base", "HEAD~1", "--head", "HEAD"],
                                  ["check", "--autonomy", "confirm", "--base", "HEAD~1", "--head", "HEAD"],
                                  ["readiness"]])
def test_memory_dir_missing_at_head_is_an_error(repo, argv):
    # a mistyped --memory-dir read as an empty memory: UNCHANGED, CLEAR (exit 0) before
    run = analyze(repo, *argv, "--memory-dir", "docs/nomem")
    assert run.returncode == 2 and run.stdout == ""
    assert "HEAD: memory dir is missing or unusable: docs/nomem" in run.stderr


@pytest.mark.parametrize("memory_dir", ["../outside", "/abs", "docs"])
@pytest.mark.parametrize("argv", [["diff", "--base", "HEAD~1"], ["readiness"],
                                  ["check", "--autonomy", "confirm", "--base", "HEAD~1", "--head", "HEAD"]])
def test_memory_dir_outside_docs_is_refused(repo, argv, memory_dir):
    # as --help says and `check` does; Git's own "outside repository" or a missing dir before
    run = analyze(repo, *argv, "--memory-dir", memory_dir)
    assert run.returncode == 2 and run.stdout == ""
    assert f"memory dir must be a strict subdirectory of docs/: {memory_dir}" in run.stderr


@pytest.mark.parametrize("argv", [["diff", "--base", "HEAD~1"], ["restore", "--preview", CENTS, "--base", "HEAD~1"],
                                  ["check", "--autonomy", "confirm", "--base", "HEAD~1"]])
@pytest.mark.parametrize("head", ["", " "])
def test_empty_head_is_refused(repo, argv, head):
    # an empty --head (`--head "$SHA"` with SHA unset) is not the default work tree
    run = analyze(repo, *argv, "--head", head)
    assert run.returncode == 2 and run.stdout == ""
    assert "invalid revision" in run.stderr and "Traceback" not in run.stderr


def test_readiness_names_the_column_of_a_configuration_error(repo):
    """readiness said `:1:1` for every configuration error; check says the column, so must it."""
    config = repo.root / ".memory-analyzer.toml"
    config.write_text('# agents\nagent-authors = ["bot"] junk\n', encoding="utf-8")
    try:
        readiness, check = analyze(repo, "readiness"), analyze(repo, "check")
    finally:
        config.unlink()
    where = re.search(r"\.memory-analyzer\.toml:(\d+):(\d+): MA-CONFIG-TOML", check.stderr)
    assert where and where.group(2) != "1", check.stderr
    assert readiness.returncode == 2 and f".memory-analyzer.toml:{where.group(1)}:{where.group(2)}: MA-CONFIG-TOML" \
        in readiness.stderr, readiness.stderr


def test_empty_reviewer_name_is_refused(tmp_path):
    # an empty reviewer confirmed a commit whose `Memory-Confirmed-By:` trailer is empty
    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "Order totals are integers in cents", "Order totals are integers in minor units")
    repo.commit("reword", trailers=("Memory-Confirmed-By: ",))
    argv = ["check", "--autonomy", "confirm", "--base", "HEAD~1", "--head", "HEAD"]
    run = analyze(repo, *argv, "--reviewer", "")
    assert run.returncode == 2 and run.stdout == "" and "--reviewer needs a name" in run.stderr
    (repo.root / ".memory-analyzer.toml").write_text('reviewers = ["alice", " "]\n', encoding="utf-8")
    run = analyze(repo, *argv)
    assert run.returncode == 2
    assert ".memory-analyzer.toml:1:1: MA-CONFIG-VALUE reviewers must not hold an empty name" in run.stderr


@pytest.mark.parametrize("fmt, text", [("github", "title=MA-AUTONOMY-002::MC-DEC-20260910-1b2c3d4e: E change"),
                                       ("junit", 'message="MC-DEC-20260910-1b2c3d4e: E change')])
def test_ci_formats_name_the_id(repo, fmt, text):
    # the text output names the ID of each finding; the CI formats showed only the message
    run = analyze(repo, "check", "--autonomy", "plan", "--base", "HEAD~1", "--head", "HEAD", "--format", fmt)
    assert run.returncode == 1 and text in run.stdout, run.stdout
