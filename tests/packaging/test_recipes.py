"""Every CI recipe installs exactly this project: the install step of the GitHub workflow,
the GitLab job and the composite action (docs/ci/*.yml, action.yml) runs in a fresh virtual
environment, with ``MEMORY_ANALYZER`` naming a wheel built from the checkout (the recipes'
documented way to install before the package is published), and ``analyze --version`` then
answers as this project. ``memory-analyzer`` on the package index is an unrelated project:
no recipe may install it."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
REPO = Path(__file__).resolve().parents[2]
DIST = "memory-custodian-analyzer"


def _run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)


def _install_steps():
    """(recipe, shell script, extra environment) of every recipe's install step."""
    workflow = yaml.safe_load((REPO / "docs" / "ci" / "github-workflow.yml").read_text(encoding="utf-8"))
    [gh] = [s for s in workflow["jobs"]["memory"]["steps"] if "pip install" in s.get("run", "")]
    job = yaml.safe_load((REPO / "docs" / "ci" / "gitlab-ci.yml").read_text(encoding="utf-8"))["memory-analyzer"]
    gl = [line for line in job["script"] if "pip install" in line]
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    [act] = [s for s in action["runs"]["steps"] if "pip install" in s.get("run", "")]
    return [("github-workflow", gh["run"], {}), ("gitlab-ci", "\n".join(gl), {}),
            ("action", act["run"], {"ACTION_PATH": str(REPO)})]


def test_every_recipe_names_this_project_and_pins_its_actions():
    texts = {p.name: p.read_text(encoding="utf-8") for p in
             [REPO / "action.yml", REPO / "docs" / "ci" / "github-workflow.yml", REPO / "docs" / "ci" / "gitlab-ci.yml"]}
    for name, text in texts.items():
        assert not re.search(r"pip install[^\n]*\bmemory-analyzer\b", text), name
        for ref in re.findall(r"uses: ([^\s#]+)", text):
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), f"{name}: {ref} is not pinned by SHA"
    for recipe, script, _ in _install_steps():
        assert DIST in script or "ACTION_PATH" in script, recipe


def _assert_installs(recipe, env_dir, tmp_path, **given):
    """Run ``recipe``'s install step in the fresh venv ``env_dir`` (with pip) with ``given`` in
    its environment; the project it installed answers ``analyze --version`` and ``pip show``."""
    [(_, script, extra)] = [s for s in _install_steps() if s[0] == recipe]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env.update(PATH=f"{env_dir / 'bin'}{os.pathsep}{os.environ['PATH']}", **{**extra, **given})
    installed = _run(["bash", "-e", "-c", script], env=env, cwd=tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    version = _run(["analyze", "--version"], env=env, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("memory-analyzer "), version
    shown = _run([str(env_dir / "bin" / "python"), "-m", "pip", "show", DIST], env=env)
    assert shown.returncode == 0 and f"Name: {DIST}" in shown.stdout


@pytest.mark.slow
@pytest.mark.parametrize("recipe", ["github-workflow", "gitlab-ci"])
def test_each_recipe_installs_this_project(recipe, wheel, venv_with_pip, tmp_path):
    _assert_installs(recipe, venv_with_pip, tmp_path, MEMORY_ANALYZER=str(wheel))


@pytest.mark.slow
class TestAction:
    """A class of its own: ``--dist loadscope`` schedules by module or class, so the action's
    build (this module's longest test, which needs no shared wheel) runs on one worker while
    the other builds the wheel the recipes install (the module was one worker's 150 s)."""

    def test_the_action_installs_this_project_from_its_checkout(self, clean_tree, venv_with_pip, tmp_path):
        # the action installs from its own checkout (ACTION_PATH): a clean one, as a runner's
        _assert_installs("action", venv_with_pip, tmp_path, ACTION_PATH=str(clean_tree))
