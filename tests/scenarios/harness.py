"""Build a project from a scenario of ../shared/spec/scenarios.jsonl and run our CLI on it.

The scenario format is described in §15 of the protocol reference. This harness only lays
out files, local-overlay state and git history, and runs the CLI; the assertions live in the
test modules. The CLI runs in the test's process (tests/inprocess.py: the argv, environment,
working directory and standard input a ``python -m analyzer`` process would get): the
scenarios ask what a command answers, and a process per run (two or three per scenario) was
most of their time. What is the process's own (streams, exit, hash seeds, signals) has tests
that start processes (tests/read/test_fast_exit.py and others).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

import gitsteps
import inprocess

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO.parent / "shared" / "spec" / "scenarios.jsonl"


def load_scenarios() -> List[dict]:
    """Every scenario, or an empty list when ../shared is absent."""
    if not SCENARIOS.is_file():
        return []
    return [json.loads(line) for line in SCENARIOS.read_text(encoding="utf-8").splitlines() if line.strip()]


@dataclass
class Run:
    """The outcome of one CLI run."""

    argv: List[str]
    exit_code: int
    stdout: str
    stderr: str


class ScenarioProject:
    """A scenario laid out on disk: project root, state dir, environment."""

    def __init__(self, scenario: dict, tmp: Path):
        self.scenario = scenario
        self.root = (tmp / "project").resolve()
        self.root.mkdir()
        self.other_root = (tmp / "other-root").resolve()
        self.other_root.mkdir()
        self.env = self._environment(tmp)
        for rel, content in scenario.get("files", {}).items():
            self._write(self.root / rel, content)
        self._state_files(scenario.get("state_files") or {})
        self._git_steps(scenario.get("git_steps") or [])

    def _environment(self, tmp: Path) -> Dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
        env["XDG_CACHE_HOME"] = str(tmp / "cache")
        self.state_dir = tmp / "state"
        self.state_dir.mkdir()
        for key, value in (self.scenario.get("env") or {}).items():
            if value in ("${EMPTY_TEMP_DIR}", "${STATE_DIR}"):
                value = str(self.state_dir)
            env[key] = value
        return env

    def _subst(self, text: str) -> str:
        return text.replace("${PROJECT_ROOT}", str(self.root)).replace(
            "${OTHER_EXISTING_ROOT}", str(self.other_root)
        )

    @staticmethod
    def _write(path: Path, content: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8"))

    def _state_files(self, files: Dict[str, Optional[str]]) -> None:
        for rel, content in sorted(files.items()):
            path = self.state_dir / rel
            # every directory the overlay uses must be 0700, every file 0600 (spec §11.1)
            for parent in reversed(path.parents):
                if str(parent).startswith(str(self.state_dir)) and parent != self.state_dir:
                    parent.mkdir(exist_ok=True)
                    if "memory-custodian" in parent.relative_to(self.state_dir).parts[:1]:
                        parent.chmod(0o700)
            if content is None:
                path.mkdir(parents=True, exist_ok=True)
                path.chmod(0o700)
            else:
                self._write(path, self._subst(content))
                path.chmod(0o600)

    def _git_steps(self, steps: List[dict]) -> None:
        if steps:
            # the analyzer's own Git calls must not depend on the developer's config either
            self.env = gitsteps.git_env(self.env)
            gitsteps.run_steps(self.root, steps, self.env)

    def run(self, argv: List[str]) -> Run:
        """Run ``analyze <argv> --project-root <root>`` (in this process: tests/inprocess.py)."""
        proc = inprocess.run([*argv, "--project-root", str(self.root)], env=self.env, cwd=str(self.root))
        return Run(argv, proc.returncode, proc.stdout, proc.stderr)


def scenario_request(scenario: dict, variant: Optional[str]):
    """The argv and expect object of a scenario, or of one of its ``*_variant`` objects
    (``command`` replaces the argv, ``extra_args`` extends it, ``also_check_X`` runs
    ``check --X``)."""
    argv, expect = list(scenario["command"]), scenario["expect"]
    if variant is None:
        return argv, expect
    spec = expect[variant]
    if variant.startswith("also_check_"):
        argv = ["check", "--" + variant[len("also_check_"):]]
    elif "command" in spec:
        argv = list(spec["command"])
    else:
        argv = argv + list(spec.get("extra_args", []))
    return argv, {k: v for k, v in spec.items() if k not in ("command", "extra_args")}


def run_and_check(scenario: dict, argv: List[str], expect: dict, tmp: Path, by_name: Dict[str, dict]) -> None:
    """Lay out ``scenario``, run ``argv`` as text and as JSON, and assert every key of ``expect``."""
    from expect import check_expect, parse_json

    project = ScenarioProject(scenario, tmp)
    run = project.run(argv)
    data = parse_json(project.run(argv + ["--format", "json"]))

    def other_scenario(name):
        other = by_name[name]
        sub = tmp / f"other-{name}"
        sub.mkdir()
        return ScenarioProject(other, sub).run(list(other["command"]))

    check_expect(expect, run, data, project.run, other_scenario)
