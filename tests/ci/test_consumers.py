"""Real consumers installed from the package index read what we write: pre-commit runs our
hook for a project in a subfolder whose name has a space, check-jsonschema validates the
workflow, action and GitLab job against their published schemas, and the bundled example
inside such a Git repository gives SARIF (jsonschema with format checks), JUnit (our XSD,
xunitparser, junitparser) and Code Quality that each accept."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cihelp import EXAMPLE, REPO, sarif_validator

BIN = Path(sys.executable).parent
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def _git(cwd, *args, env=None):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          env={**os.environ, **GIT_ENV, **(env or {})}).stdout


@pytest.fixture()
def spaced(tmp_path):
    """A Git repository whose folder has a space, the example in the subfolder `my shop/`."""
    top = tmp_path / "work tree"
    shutil.copytree(EXAMPLE, top / "my shop")
    _git(top.parent, "init", "-q", str(top))
    _git(top, "add", "-A")
    _git(top, "commit", "-qm", "memory")
    return top


@pytest.mark.parametrize("schema,path", [("vendor.github-workflows", "docs/ci/github-workflow.yml"),
                                         ("vendor.github-actions", "action.yml"),
                                         ("vendor.gitlab-ci", "docs/ci/gitlab-ci.yml")])
def test_check_jsonschema_accepts_the_recipes(schema, path):
    # its command in this process (click's runner, as its console script calls it): a process
    # of its own spent 1.5 of its 2 s importing rfc3987_syntax, whose 39 parsers
    # tests/conftest.py builds only when an IRI format is checked (none of these schemas has one)
    check_jsonschema = pytest.importorskip("check_jsonschema", reason="check-jsonschema is not installed")
    from click.testing import CliRunner

    result = CliRunner().invoke(check_jsonschema.main, ["--builtin-schema", schema, str(REPO / path)])
    assert result.exit_code == 0, result.output


def test_ci_formats_of_the_example_in_a_spaced_repository(spaced, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "XDG_"))}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "analyzer", "check", "--all", "--project-root", "my shop",
                           "--output", f"sarif:{out / 'c.sarif'}", "--output", f"junit:{out / 'c.xml'}",
                           "--output", f"gitlab:{out / 'c.json'}"], cwd=spaced, capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 1, proc.stderr
    sarif = json.loads((out / "c.sarif").read_text(encoding="utf-8"))
    validator = sarif_validator()
    if validator is not None:
        assert not list(validator.iter_errors(sarif))
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]
            for loc in r["locations"]}
    assert uris and all(u.startswith("my%20shop/docs/memory/") for u in uris), uris
    xmlschema = pytest.importorskip("xmlschema")
    xmlschema.XMLSchema(str(REPO / "tests" / "ci" / "schemas" / "junit-jenkins.xsd")).validate(str(out / "c.xml"))
    xunitparser = pytest.importorskip("xunitparser")
    with open(out / "c.xml", encoding="utf-8") as handle:
        _, run = xunitparser.parse(handle)
    assert len(run.failures) == len(sarif["runs"][0]["results"])
    issues = json.loads((out / "c.json").read_text(encoding="utf-8"))
    assert all(i["location"]["path"].startswith("my shop/docs/memory/") for i in issues)


@pytest.mark.slow
def test_pre_commit_runs_the_hook_for_a_project_in_a_subfolder(spaced, tmp_path):
    """pre-commit installs the hook from a clone of this repository (its committed HEAD) and
    runs it with `--project-root` in `args` and `files:` scoped to the subfolder."""
    tool = shutil.which("pre-commit", path=str(BIN)) or shutil.which("pre-commit")
    if tool is None:
        pytest.skip("pre-commit is not installed")
    source = tmp_path / "hook-source"
    _git(tmp_path, "clone", "-q", str(REPO), str(source))
    rev = _git(source, "rev-parse", "HEAD").strip()
    (spaced / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {source}\n    rev: {rev}\n    hooks:\n      - id: memory-analyzer-check\n"
        "        args: [--project-root, my shop]\n"
        "        files: ^my shop/(docs/memory/|pyproject\\.toml$|\\.memory-analyzer\\.toml$)\n", encoding="utf-8")
    (spaced / "README.txt").write_text("unrelated\n", encoding="utf-8")
    _git(spaced, "add", "-A")
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("PYTHONPATH", None)
    unrelated = subprocess.run([tool, "run", "--files", "README.txt"], cwd=spaced, capture_output=True, text=True,
                               env=env, timeout=900)
    assert unrelated.returncode == 0 and "Skipped" in unrelated.stdout, unrelated.stdout + unrelated.stderr
    touched = subprocess.run([tool, "run", "--files", "my shop/docs/memory/decisions.md"], cwd=spaced,
                             capture_output=True, text=True, env=env, timeout=900)
    # the example has errors: the hook ran in the subfolder and failed on them
    assert touched.returncode == 1 and "MemoryCustodian routing check:" in touched.stdout, touched.stdout


def test_rev_evidence_outside_git_is_located_for_every_sarif_reader(tmp_path):
    """`@rev` Evidence outside Git gives MC-FRESH-003 with no line of its own: code scanning
    rejects a result without a location, so it is placed on manifest.md; sarif-tools (a real
    SARIF reader from the index) lists every result with a file."""
    root = tmp_path / "acme"
    shutil.copytree(EXAMPLE, root)
    constraints = root / "docs" / "memory" / "constraints.md"
    constraints.write_text(constraints.read_text(encoding="utf-8").replace(
        "- doc:docs/security.md", "- repo:README.md@abc1234", 1), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "XDG_", "GIT_"))}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(REPO), GIT_CEILING_DIRECTORIES=str(tmp_path))
    sarif_path = tmp_path / "c.sarif"
    proc = subprocess.run([sys.executable, "-m", "analyzer", "check", "--all", "--project-root", str(root),
                           "--output", f"sarif:{sarif_path}"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1, proc.stderr
    document = json.loads(sarif_path.read_text(encoding="utf-8"))
    results = document["runs"][0]["results"]
    fresh = [r for r in results if r["ruleId"] == "MC-FRESH-003"]
    assert fresh and fresh[0]["properties"]["locationFallback"]
    assert all(r["locations"] for r in results)
    validator = sarif_validator()
    if validator is not None:
        assert not list(validator.iter_errors(document))
    tool = shutil.which("sarif", path=str(BIN))
    if tool is None:
        pytest.skip("sarif-tools is not installed")
    csv = tmp_path / "c.csv"
    listed = subprocess.run([tool, "csv", str(sarif_path), "--output", str(csv)], capture_output=True, text=True,
                            timeout=300)
    assert listed.returncode == 0, listed.stderr
    rows = csv.read_text(encoding="utf-8").splitlines()[1:]
    assert len(rows) == len(results) and all(",docs/memory/" in row for row in rows)
