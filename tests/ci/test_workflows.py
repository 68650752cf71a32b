"""The ready-to-paste CI files (docs/ci/*.yml, action.yml, .pre-commit-hooks.yaml) are run
here on a copy of examples/acme-shop as a GitHub or GitLab runner would run their commands,
and the files each step uploads are checked: SARIF (schema), JUnit (junitparser), the report
(Markdown with a Mermaid graph, JSON of its shape), the step summary and the annotations.
docs/ci.md shows these files verbatim."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cihelp import REPO, copy_example, sarif_validator

yaml = pytest.importorskip("yaml")
CI = REPO / "docs" / "ci"
BIN = str(Path(sys.executable).parent)


@pytest.fixture()
def repo(tmp_path):
    """The example as the top of its own Git repository, one commit."""
    root = copy_example(tmp_path)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "HOME": str(tmp_path), "PATH": os.environ["PATH"]}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "memory"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return root


def _env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "XDG_"))}
    env.update(PATH=BIN + os.pathsep + os.environ["PATH"], XDG_CACHE_HOME=str(tmp_path / "cache"),
               PYTHONPATH=str(REPO), **extra)
    return env


def _bash(script: str, cwd: Path, env) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _installs(step) -> bool:
    return "pip install" in step.get("run", "")


def test_github_workflow_runs_and_uploads_what_it_says(repo, tmp_path):
    workflow = yaml.safe_load((CI / "github-workflow.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["memory"]["steps"]
    summary, output = tmp_path / "summary.md", tmp_path / "output"
    env = _env(tmp_path, GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(output))
    failed, ran, uploads = False, {}, {}
    for step in steps:
        if failed and step.get("if") != "always()":
            continue
        if "run" in step and not _installs(step):
            proc = _bash(step["run"], repo, env)
            assert "Traceback" not in proc.stderr, proc.stderr
            ran[step["name"]] = proc
            failed = failed or proc.returncode != 0
        elif step.get("uses", "").startswith(("github/codeql-action/upload-sarif", "actions/upload-artifact")):
            uploads[step["uses"].split("@")[0]] = step["with"]
    check = ran["Check memory"]
    assert check.returncode == 1  # the example has errors: the job fails, the always() steps still run
    assert re.search(r"^::error file=docs/memory/constraints\.md,line=\d+,col=1,title=MC-", check.stdout, re.M)
    assert summary.read_text(encoding="utf-8").startswith("# memory-analyzer check: INVALID")
    sarif = json.loads((repo / uploads["github/codeql-action/upload-sarif"]["sarif_file"]).read_text())
    validator = sarif_validator()
    if validator is not None:
        assert not list(validator.iter_errors(sarif))
    assert sarif["runs"][0]["results"] and sarif["runs"][0]["invocations"][0]["exitCode"] == 1
    paths = uploads["actions/upload-artifact"]["path"].split()
    markdown = (repo / paths[0]).read_text(encoding="utf-8")
    assert markdown.startswith("# memory-analyzer report:") and "```mermaid\nflowchart LR" in markdown
    assert json.loads((repo / paths[1]).read_text())["schema"]["name"] == "report.result"
    assert "from git ls-files" in markdown


def test_gitlab_job_writes_a_junit_report(repo, tmp_path):
    junitparser = pytest.importorskip("junitparser")
    job = yaml.safe_load((CI / "gitlab-ci.yml").read_text(encoding="utf-8"))["memory-analyzer"]
    env = _env(tmp_path, GITLAB_CI="true")
    codes = [_bash(line, repo, env).returncode for line in job["script"] if "pip install" not in line]
    assert codes == [1]
    report = repo / job["artifacts"]["reports"]["junit"]
    suites = {s.name: s for s in junitparser.JUnitXml.fromfile(str(report))}
    assert set(suites) == {"routing", "reachability", "freshness", "conflicts", "legacy", "security", "privacy",
                           "hidden-text", "agents"} and suites["freshness"].failures
    for path in job["artifacts"]["paths"]:
        assert (repo / path).is_file()


def test_pre_commit_hooks(repo, tmp_path):
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    local = yaml.safe_load((CI / "pre-commit-config.yml").read_text(encoding="utf-8"))["repos"][0]["hooks"][0]
    hook = hooks[0]
    assert hook["id"] == local["id"] and hook["entry"] == local["entry"] and hook["files"] == local["files"]
    assert hook["pass_filenames"] is False and hook["language"] == "python"
    assert re.search(hook["files"], "docs/memory/decisions.md") and not re.search(hook["files"], "src/app.py")
    proc = _bash(hook["entry"], repo, _env(tmp_path))
    assert proc.returncode == 1 and proc.stdout.startswith("MemoryCustodian routing check:")


def _run_action(repo, tmp_path, **overrides):
    """The composite action's run steps as a runner runs them: (inputs, results, $GITHUB_OUTPUT, summary)."""
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    inputs = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    inputs.update(overrides)
    output, summary = tmp_path / "output", tmp_path / "summary.md"
    summary.write_text("an earlier step\n", encoding="utf-8")
    base = _env(tmp_path, GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary))
    results = {}
    for step in action["runs"]["steps"]:
        if "run" not in step or _installs(step):
            continue
        env = dict(base)
        for key, value in step.get("env", {}).items():
            match = re.fullmatch(r"\$\{\{ (inputs|steps)\.([\w-]+)(?:\.outputs\.([\w-]+))? \}\}", value)
            assert match, value
            if match.group(1) == "inputs":
                env[key] = inputs[match.group(2)]
            else:
                env[key] = dict(line.split("=", 1) for line in output.read_text().splitlines())[match.group(3)]
        results[step["name"]] = _bash(step["run"], repo, env)
    return inputs, results, output, summary


def test_composite_action(repo, tmp_path):
    inputs, results, output, summary = _run_action(repo, tmp_path)
    assert results["Check memory"].returncode == 0  # the step records the status, the last step fails
    assert "exit-code=1" in output.read_text()
    assert results["Fail on the check's exit status"].returncode == 1
    sarif = json.loads((repo / inputs["sarif-file"]).read_text())
    assert sarif["runs"][0]["results"]
    assert sarif["runs"][0]["automationDetails"]["id"] == inputs["category"] + "/"
    # appended after what earlier steps wrote
    assert summary.read_text().startswith("an earlier step\n# memory-analyzer check:")


def test_composite_action_passes_args_without_splitting_them(repo, tmp_path):
    """One argument per line: a baseline whose name has a space stays one argument."""
    base = repo / "my base.json"
    proc = subprocess.run([sys.executable, "-m", "analyzer", "check", "--all", "--format", "json",
                           "--project-root", str(repo)], capture_output=True, text=True, env=_env(tmp_path))
    base.write_text(proc.stdout, encoding="utf-8")
    _, results, output, _ = _run_action(repo, tmp_path, args="--all\n--baseline\nmy base.json\n", category="pr")
    assert "exit-code=0" in output.read_text(), results["Check memory"].stderr  # every finding is in the baseline
    assert "hidden" in results["Check memory"].stderr


def test_gitlab_job_writes_a_code_quality_report(repo, tmp_path):
    job = yaml.safe_load((CI / "gitlab-ci.yml").read_text(encoding="utf-8"))["memory-analyzer"]
    env = _env(tmp_path, GITLAB_CI="true")
    for line in job["script"]:
        if "pip install" not in line:
            _bash(line, repo, env)
    issues = json.loads((repo / job["artifacts"]["reports"]["codequality"]).read_text(encoding="utf-8"))
    assert issues and all({"description", "check_name", "fingerprint", "severity", "location"} <= set(i) for i in issues)


def test_docs_show_the_tested_files_verbatim():
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    for path in (CI / "github-workflow.yml", CI / "github-memory-changes.yml", CI / "gitlab-ci.yml", CI / "pre-commit-config.yml",
                 REPO / ".pre-commit-hooks.yaml"):
        assert f"```yaml\n{path.read_text(encoding='utf-8')}```" in text, f"docs/ci.md does not show {path.name}"


def test_every_install_step_installs_this_project():
    """Each recipe's `pip install` names this project's distribution (pyproject.toml's name),
    never `memory-analyzer`, an unrelated project on the package index (the README says so)."""
    name = re.search(r'^name = "([^"]+)"', (REPO / "pyproject.toml").read_text(encoding="utf-8"), re.M).group(1)
    lines = [line for path in sorted(CI.glob("*.yml")) for line in path.read_text(encoding="utf-8").splitlines()
             if "pip install" in line]
    assert lines
    for line in lines:
        installed = line.split("pip install", 1)[1].split()
        assert any(word.strip('"').endswith(f":-{name}}}") or word == name for word in installed), line


def test_pull_request_memory_changes_job(repo, tmp_path):
    """docs/ci/github-memory-changes.yml on a clone made as its checkout step says (fetch-depth),
    of a base branch that moved on after the pull request's branch left it; then the same job
    on actions/checkout's default depth 1, which must fail naming what to fetch."""
    workflow = yaml.safe_load((CI / "github-memory-changes.yml").read_text(encoding="utf-8"))
    job = workflow["jobs"]["memory-changes"]
    depth = next(s["with"]["fetch-depth"] for s in job["steps"] if s.get("uses", "").startswith("actions/checkout"))
    assert depth == 0
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "HOME": str(tmp_path), "PATH": os.environ["PATH"]}

    def git(*args, cwd=repo):
        return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout

    decisions = repo / "docs" / "memory" / "decisions.md"
    git("checkout", "-q", "-b", "pr")
    decisions.write_text(decisions.read_text().replace("- issue:#42\n", "- issue:#42\n- issue:#45\n", 1))
    git("commit", "-qam", "more evidence")  # class E: allowed under confirm
    git("checkout", "-q", "-")
    (repo / "README-base.md").write_text("the base branch moved on\n")
    git("add", "-A")
    git("commit", "-qm", "base moves on")
    shas = {"base": git("rev-parse", "HEAD").strip(), "head": git("rev-parse", "pr").strip()}
    values = {f"${{{{ github.event.pull_request.{side}.sha }}}}": sha for side, sha in shas.items()}
    for depth_options, expected in (([], [0, 0]), (["--depth", "1"], [2, 2])):
        clone = tmp_path / f"clone{len(depth_options)}"
        subprocess.run(["git", "clone", "-q", "--no-single-branch", *depth_options, f"file://{repo}", str(clone)],
                       env=env, check=True, capture_output=True)
        run_env = _env(tmp_path, GITHUB_ACTIONS="true", **{k: values[v] for k, v in job["env"].items()})
        procs = [_bash(step["run"], clone, run_env) for step in job["steps"] if "run" in step and not _installs(step)]
        assert [p.returncode for p in procs] == expected, [p.stderr for p in procs]
        assert all("Traceback" not in p.stderr for p in procs)
        if not depth_options:
            assert re.search(r"^::notice file=docs/memory/decisions\.md,line=\d+,col=1,title=MA-DIFF-E::",
                             procs[0].stdout, re.M)
            assert "::notice title=memory-analyzer::check CLEAR" in procs[1].stdout
        else:  # the default checkout: the job says what to fetch
            assert "fetch-depth: 0" in procs[1].stdout + procs[1].stderr
