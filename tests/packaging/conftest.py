"""What the packaging tests share, built once per test run: a clean copy of the source tree,
one wheel built from it, and one virtual environment with that wheel installed.

Each module built its own wheel (test_recipes per module, test_wheel per test) and test_wheel
its own environment: a wheel build compiles every shipped rule program and a venv with pip
costs seconds of CPU, so the builds were most of tests/packaging's time. Under xdist every
worker has its own session; the first worker to ask builds into the run's shared temporary
folder under a lock, and the others use what it built."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# what a clean tree lacks even where Git cannot list it (an unpacked sdist): build outputs,
# caches and the checkout's own compiled rules (analyzer/_data, ignored by Git)
_NOT_SOURCE = ("build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".venv", ".ci-venv", ".bench-venv",
               ".git", ".pytest_cache", ".hypothesis", "_data")


def run(cmd, **kw):
    """``subprocess.run`` with text output captured and a timeout a wheel build fits in."""
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)


def copy_clean_tree(dest: Path) -> Path:
    """Copy the files Git would commit (tracked, and new files not ignored, as they are in the
    working tree) to ``dest``: no build folder, egg-info or compiled rules of the checkout."""
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO)
    if listed.returncode != 0:  # not a Git checkout
        shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(*_NOT_SOURCE))
        return dest
    for name in listed.stdout.split("\0"):
        source = REPO / name
        if name and source.is_file():  # a deleted file is still listed until it is committed
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def _shared_dir(tmp_path_factory, name: str, build) -> Path:
    """A folder ``build(folder)`` filled once per test run, across xdist workers."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    root = tmp_path_factory.getbasetemp().parent  # the run's folder, above every worker's own
    folder, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # left by a worker whose build failed
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


def _build_wheel(folder: Path) -> None:
    tree = copy_clean_tree(folder / "src")
    assert not (tree / "analyzer" / "_data").exists() and not (tree / "build").exists()
    dist = folder / "dist"
    built = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist),
                 str(tree)])
    if built.returncode != 0:  # an isolated build needs setuptools from the index
        built = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(dist), str(tree)])
    assert built.returncode == 0, built.stderr


def fresh_venv_with_pip(env_dir: Path) -> None:
    """A fresh virtual environment with pip (and setuptools where the interpreter bundles it),
    as ``venv.EnvBuilder(with_pip=True)`` makes one, without compiling pip's bytecode up front.

    ensurepip installs its bundled wheels and compiles every module of them (about 4 s of CPU
    per environment, most of a recipe's set-up); this run's pip installs the same bundled
    wheels with ``--no-compile`` (about 1 s), and the environment's Python compiles what pip
    imports when it runs. Where the bundled wheels or pip's ``--python`` are missing,
    ensurepip makes it."""
    import ensurepip

    bundled = Path(ensurepip.__file__).parent / "_bundled"
    wheels = sorted(bundled.glob("*.whl")) if bundled.is_dir() else []
    if wheels:
        venv.EnvBuilder(with_pip=False).create(env_dir)
        names = [w.name.split("-", 1)[0] for w in wheels]
        done = run([sys.executable, "-m", "pip", "--python", str(env_dir / "bin" / "python"), "install", "-q",
                    "--no-compile", "--no-index", "--find-links", str(bundled), *names])
        if done.returncode == 0:
            return
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)


@pytest.fixture
def venv_with_pip(tmp_path) -> Path:
    """A fresh virtual environment with pip of the test's own (see fresh_venv_with_pip)."""
    env_dir = tmp_path / "venv"
    fresh_venv_with_pip(env_dir)
    return env_dir


@pytest.fixture
def clean_tree(tmp_path) -> Path:
    """A clean copy of the source tree of the test's own (see copy_clean_tree)."""
    return copy_clean_tree(tmp_path / "tree")


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """The project's wheel, built once per run from a clean copy of the tree."""
    folder = _shared_dir(tmp_path_factory, "packaging-wheel", _build_wheel)
    [path] = (folder / "dist").glob("memory_custodian_analyzer-*.whl")
    return path


@pytest.fixture(scope="session")
def installed(tmp_path_factory, wheel) -> Path:
    """A fresh virtual environment with the wheel installed (not editable). Tests only run
    what it installed; none may install into it or change it."""

    def build(folder: Path) -> None:
        env_dir = folder / "venv"
        # no pip of its own (no test runs it; installing pip is seconds of CPU): this run's pip
        # installs into it (pip's --python, pip 22.3 and later)
        venv.EnvBuilder(with_pip=False).create(env_dir)
        done = run([sys.executable, "-m", "pip", "--python", str(env_dir / "bin" / "python"), "install", "-q",
                    str(wheel)], cwd=folder)
        if done.returncode != 0 and "no such option: --python" in done.stderr:  # an older pip
            venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
            done = run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], cwd=folder)
        assert done.returncode == 0, done.stderr

    return _shared_dir(tmp_path_factory, "packaging-venv", build) / "venv"
