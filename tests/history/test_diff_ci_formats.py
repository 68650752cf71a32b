"""`analyze diff --format junit|sarif|github`: a change between revisions is information, not
a failure (passing JUnit test cases listing it in system-out, SARIF `note`, GitHub
`::notice`); a BLINDSPOT (a unit that cannot be read) fails, as the exit status 2 does."""

import json

import junitparser
import pytest

import inprocess
from classes import CENTS, build
from histrepo import MEM, Repo


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    repo = Repo(tmp_path_factory.mktemp("ci") / "project")
    return repo, build(repo)


def cli(repo, *args):
    return inprocess.run(["diff", *args, "--project-root", str(repo.root)],
                         cwd=repo.root, capture_output=True, text=True)


def junit(text):
    return junitparser.JUnitXml.fromstring(text.encode("utf-8"))


def cases(xml):
    return [case for suite in xml for case in suite]


def code(case):
    """The finding code of a test case (its name is ``CODE path:line``, one case per finding)."""
    return case.name.split()[0]


def test_changes_are_passing_cases_that_list_them(history):
    repo, shas = history
    out = cli(repo, "--base", shas["init"], "--head", "HEAD", "--format", "junit")
    assert out.returncode == 0, out.stderr
    xml = junit(out.stdout)
    assert xml.failures == 0 and xml.errors == 0
    found = cases(xml)
    names = {code(case) for case in found}
    assert {"MA-DIFF-A", "MA-DIFF-B", "MA-DIFF-D"} <= names and all(n.startswith("MA-DIFF-") for n in names)
    for case in found:
        assert case.is_passed, case.name
        assert case.system_out and case.system_out.startswith(f"{code(case)} INFO: ")
    merged = "\n".join(case.system_out for case in found if code(case) == "MA-DIFF-B")
    assert "B/entries entry MC-CON-20260902-3d4e5f60" in merged
    assert f"{MEM}/constraints.md:" in merged


def test_changes_are_notes_in_sarif_and_github(history):
    repo, shas = history
    sarif = json.loads(cli(repo, "--base", shas["init"], "--head", "HEAD", "--format", "sarif").stdout)
    results = sarif["runs"][0]["results"]
    assert results and {r["level"] for r in results} == {"note"}
    github = cli(repo, "--base", shas["init"], "--head", "HEAD", "--format", "github")
    assert github.returncode == 0
    assert all(line.startswith("::notice ") for line in github.stdout.splitlines())


@pytest.fixture(scope="module")
def blind(tmp_path_factory):
    repo = Repo(tmp_path_factory.mktemp("blind") / "project")
    repo.edit("decisions.md", f"## {CENTS} \u2014 Totals", f"## {CENTS} -- Totals")
    return repo, repo.commit("break a heading")


def test_a_blindspot_fails_junit_as_it_fails_the_exit_status(blind):
    repo, sha = blind
    out = cli(repo, "--base", f"{sha}~1", "--head", sha, "--format", "junit")
    assert out.returncode == 2
    xml = junit(out.stdout)
    assert xml.failures >= 1
    [case] = [case for case in cases(xml) if code(case) == "MA-DIFF-BLINDSPOT"]
    [failure] = [r for r in case.result if isinstance(r, junitparser.Failure)]
    assert failure.type == "INVALID" and "malformed Entry heading" in failure.message
    assert f"{MEM}/decisions.md:5:1" in failure.text
    assert all(c.is_passed for c in cases(xml) if c.name.startswith("MA-DIFF-") and code(c) != "MA-DIFF-BLINDSPOT")


def test_a_blindspot_is_an_error_in_sarif_and_github(blind):
    repo, sha = blind
    sarif = json.loads(cli(repo, "--base", f"{sha}~1", "--head", sha, "--format", "sarif").stdout)
    levels = {r["ruleId"]: r["level"] for r in sarif["runs"][0]["results"]}
    assert levels["MA-DIFF-BLINDSPOT"] == "error"  # our own prefix, as every finding of ours
    github = cli(repo, "--base", f"{sha}~1", "--head", sha, "--format", "github")
    assert github.returncode == 2 and "::error file=docs/memory/decisions.md,line=5" in github.stdout
    assert "title=MA-DIFF-BLINDSPOT" in github.stdout
