"""CI runs exactly the README's test command, and fails when pytest fails or tests nothing."""

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CI = REPO / ".ci" / "run"


def readme_pytest_args() -> str:
    """The arguments of the README's test command (`.venv/bin/python -m pytest ARGS`)."""
    found = re.search(r"\.venv/bin/python -m pytest([^\n`]*)\n", (REPO / "README.md").read_text(encoding="utf-8"))
    assert found, "the README has no test command"
    return found.group(1).strip()


def test_ci_runs_the_readme_command():
    """.ci/run calls pytest with the README's arguments, and those use parallel workers."""
    ci = CI.read_text(encoding="utf-8")
    args = readme_pytest_args()
    assert f'"$venv/bin/python" -m pytest {args}\n' in ci
    assert "-n " in f"{args} "


@pytest.mark.parametrize("pytest_exit,ci_exit", [(0, 0), (1, 1), (5, 1)])
def test_ci_status_follows_pytest_and_refuses_an_empty_run(tmp_path, pytest_exit, ci_exit):
    """.ci/run's exit status: pytest's, except that 'no tests collected' (5) fails."""
    # run the script's tail (after the venv is made) with a stand-in for the venv's python
    ci = CI.read_text(encoding="utf-8")
    tail = ci[ci.index("set +e"):]
    fake = tmp_path / "venv" / "bin"
    fake.mkdir(parents=True)
    (fake / "python").write_text(f"#!/bin/sh\nexit {pytest_exit}\n", encoding="utf-8")
    (fake / "python").chmod(0o755)
    script = f'set -euo pipefail\nvenv="{tmp_path / "venv"}"\n{tail}'
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    assert run.returncode == ci_exit, run.stderr
