"""`analyze check --format junit|github|markdown`: golden files on the example, JUnit read by a
real consumer library, GitHub's escaping and step summary, the Markdown size limit, and the
same bytes across hash seeds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.contract.check_model import CheckResult, FamilyResult
from analyzer.contract.results import Finding, Location
from analyzer.render import check_github, md
from analyzer.render.check_junit import render_junit
from analyzer.query.report import Report
from analyzer.render.report_markdown import render_report_markdown
from cihelp import REPO, check_golden, copy_example, normalize, run_inproc, run_cli

JUNIT_XSD = REPO / "tests" / "ci" / "schemas" / "junit-jenkins.xsd"

FORMATS = ("junit", "github", "markdown")
SUFFIX = {"junit": "xml", "github": "txt", "markdown": "md"}


@pytest.fixture()
def clean_env(monkeypatch, tmp_path):
    for key in ("GITHUB_STEP_SUMMARY", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.mark.parametrize("fmt", FORMATS)
def test_example_golden(fmt, tmp_path, request, clean_env):
    root = copy_example(tmp_path)
    out, err, status = run_inproc(["check", "--all", "--format", fmt, "--project-root", str(root)])
    assert status == 1, err
    check_golden(f"{fmt}/example-all.{SUFFIX[fmt]}", normalize(out, root), request)


@pytest.mark.parametrize("fmt", FORMATS)
def test_same_bytes_across_hash_seeds(fmt, tmp_path):
    root = copy_example(tmp_path)
    outs = {run_cli(["check", "--all", "--format", fmt, "--no-cache", "--project-root", str(root)], tmp_path,
                     seed=seed).stdout for seed in ("0", "3", "977")}
    assert len(outs) == 1


def test_junit_every_check_finding_fails_info_included_and_a_diffs_changes_pass():
    import xml.etree.ElementTree as ET

    def finding(family, code):
        return Finding(code, family, f"{code} happened", severity="INFO", locations=[Location("docs/memory/a.md", 3, 1)])

    result = CheckResult([FamilyResult("freshness", "freshness", "OK", 0, [finding("freshness", "MC-FRESH-003")]),
                          FamilyResult("diff", "diff", "OK", 0, [finding("diff", "MA-DIFF-A")])], "OK", 0)
    suites = {s.get("name"): s for s in ET.fromstring(render_junit(result)).iter("testsuite")}
    fresh = suites["freshness"].find("testcase")
    assert fresh.find("failure") is not None and suites["freshness"].get("failures") == "1"
    change = suites["diff"].find("testcase")
    assert change.find("failure") is None and "MA-DIFF-A happened" in change.find("system-out").text
    assert suites["diff"].get("failures") == "0"


def test_junit_parses_with_a_junit_library(tmp_path, clean_env):
    """One test case per finding, at most one failure each, named CODE path:line; junitparser,
    xunitparser and our Jenkins-style XSD read the document whole."""
    junitparser = pytest.importorskip("junitparser")
    root = copy_example(tmp_path)
    out, _, _ = run_inproc(["check", "--all", "--format", "junit", "--project-root", str(root)])
    path = tmp_path / "report.xml"
    path.write_text(out, encoding="utf-8")
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = {suite.name: suite for suite in xml}
    assert list(suites) == ["routing", "reachability", "freshness", "conflicts", "legacy", "security", "privacy", "hidden-text",
                            "agents"]
    reach = list(suites["reachability"])
    assert len(reach) == 1 and reach[0].is_passed  # a family without findings passes
    fresh = list(suites["freshness"])
    assert [c.name.split()[0] for c in fresh] == ["MC-FRESH-001", "MC-FRESH-004", "MC-FRESH-004", "MC-FRESH-004",
                                                  "MC-FRESH-006"]
    assert all(len(case.result) == 1 and isinstance(case.result[0], junitparser.Failure) for case in fresh)
    relation = next(c for c in fresh if c.result[0].message.startswith("Invalid Entry relation"))
    assert relation.name.startswith("MC-FRESH-004 docs/memory/") and relation.result[0].type == "ERROR"
    assert "docs/memory/" in relation.result[0].text
    assert xml.failures == sum(s.failures for s in xml) == sum(1 for s in xml for c in s if not c.is_passed)
    assert junit_consumers_agree(path) == xml.tests


def junit_consumers_agree(path) -> int:
    """Validate ``path`` against tests/ci/schemas/junit-jenkins.xsd and read it with xunitparser
    (which asserts on repeated properties and wrong counts); the number of test cases."""
    xmlschema = pytest.importorskip("xmlschema")
    xmlschema.XMLSchema(str(JUNIT_XSD)).validate(str(path))
    xunitparser = pytest.importorskip("xunitparser")
    with open(path, encoding="utf-8") as handle:
        _, run = xunitparser.parse(handle)
    return run.testsRun


def test_junit_xsd_rejects_what_jenkins_rejects(tmp_path):
    """The schema is not a no-op: a file/line attribute on a test case and a missing name fail."""
    xmlschema = pytest.importorskip("xmlschema")
    schema = xmlschema.XMLSchema(str(JUNIT_XSD))
    good = '<testsuites><testsuite name="s" tests="1"><testcase name="c"/></testsuite></testsuites>'
    assert schema.is_valid(good)
    assert not schema.is_valid(good.replace('name="c"', 'name="c" file="a.md" line="3"'))
    assert not schema.is_valid(good.replace(' name="c"', ''))


def test_junit_one_case_per_finding_and_illegal_characters_replaced(tmp_path):
    """Control characters (a module name can hold them) become \\xNN: the document parses."""
    import xml.etree.ElementTree as ET

    odd = "areas/a\x01b\x1b.md"
    findings = [Finding("MC-ROUTING-005", "routing", f"missing: {odd}", severity="WARNING",
                             locations=[Location(f"docs/memory/{odd}", i + 1)]) for i in range(3)]
    result = CheckResult([FamilyResult("routing", "quality", "FAILED", 1, findings)], "FAILED", 1)
    text = render_junit(result)
    cases = ET.fromstring(text).findall(".//testcase")
    assert len(cases) == 3 and all(len(c.findall("failure")) == 1 for c in cases)
    assert cases[1].get("name") == "MC-ROUTING-005 docs/memory/areas/a\\x01b\\x1b.md:2"
    path = tmp_path / "odd.xml"
    path.write_text(text, encoding="utf-8")
    assert junit_consumers_agree(path) == 3


def test_junit_error_result(tmp_path):
    junitparser = pytest.importorskip("junitparser")
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_cli(["check", "--format", "junit", "--project-root", str(empty)], tmp_path)
    path = tmp_path / "e.xml"
    path.write_text(proc.stdout, encoding="utf-8")
    case = next(iter(next(iter(junitparser.JUnitXml.fromfile(str(path))))))
    assert isinstance(case.result[0], junitparser.Error) and proc.returncode == 1
    assert junit_consumers_agree(path) == 1
    assert case.result[0].text.startswith("docs/memory:1:1: Memory directory missing")


def test_junit_error_names_each_unusable_file_once(tmp_path):
    """Refused files: the error text is the refusal itself, one located line per file."""
    junitparser = pytest.importorskip("junitparser")
    example_copy = copy_example(tmp_path)
    for name in ("decisions.md", "constraints.md"):
        with open(example_copy / "docs" / "memory" / name, "ab") as handle:
            handle.write(b"\xff\n")
    proc = run_cli(["check", "--format", "junit", "--project-root", str(example_copy)], tmp_path)
    path = tmp_path / "e.xml"
    path.write_text(proc.stdout, encoding="utf-8")
    error = next(iter(next(iter(junitparser.JUnitXml.fromfile(str(path)))))).result[0]
    lines = error.text.splitlines()
    assert proc.returncode == 2 and len(lines) == 2
    assert all(line.startswith("Error: docs/memory/") and line.count("MA-FILE-ENCODING") == 1 for line in lines)
    assert error.message == lines[0]


def test_github_escaping():
    assert check_github.escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert check_github.escape_property("a,b:c%") == "a%2Cb%3Ac%25"
    finding = Finding("MC-FRESH-001", "freshness", "bad\npath, 100%", severity="ERROR",
                           locations=[Location("docs/memory/a,b.md", 4, 2), Location("docs/memory/c.md", 9, 1)])
    line = check_github.command(finding, "sub/")
    assert line == ("::error file=sub/docs/memory/a%2Cb.md,line=4,col=2,title=MC-FRESH-001::bad%0Apath, 100%25 "
                    "(freshness, ERROR)%0AAlso: sub/docs/memory/c.md:9")
    info = Finding("MC-FRESH-003", "freshness", "no git", severity="INFO")
    assert check_github.command(info, "") == "::notice title=MC-FRESH-003::no git (freshness, INFO)"


def test_github_appends_the_markdown_to_the_step_summary(tmp_path):
    root = copy_example(tmp_path)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    proc = run_cli(["check", "--all", "--format", "github", "--project-root", str(root)], tmp_path,
                    extra_env={"GITHUB_STEP_SUMMARY": str(summary)})
    markdown = run_cli(["check", "--all", "--format", "markdown", "--project-root", str(root)], tmp_path)
    assert summary.read_text(encoding="utf-8") == "earlier step\n" + markdown.stdout
    # 10 of the four families, 5 issues of the plain check's lines (family legacy)
    assert proc.stdout.count("::error ") == 15 and proc.returncode == 1


def test_markdown_links_point_at_the_commit_inside_actions():
    env = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r", "GITHUB_SHA": "abc"}
    base = md.link_base(env)
    assert md.link(Location("docs/memory/a.md", 7), "p/", base) == \
        "[p/docs/memory/a.md:7](https://github.com/o/r/blob/abc/p/docs/memory/a.md#L7)"
    assert md.link_base({}) == ""
    assert md.escape("a|b *c* <d>\nx") == "a\\|b \\*c\\* \\<d\\> x"


def test_markdown_stays_under_the_step_summary_limit():
    many = [Finding("MC-FRESH-001", "freshness", f"finding {i} " + "x" * 200, severity="ERROR",
                         locations=[Location("docs/memory/a.md", i + 1)]) for i in range(6000)]
    result = CheckResult([FamilyResult("freshness", "quality", "FAILED", 1, many)], "FAILED", 1)
    text = render_report_markdown(Report(result), command="check")
    assert len(text.encode("utf-8")) <= md.LIMIT
    assert "**Truncated:**" in text.splitlines()[-1]
    fenced = md.fit(["```mermaid"] + ["a --> b"] * 50 + ["```"], limit=1000)
    assert fenced.count("```") == 2  # an open code block is closed before the note


def test_junit_is_generic_over_families_and_codes():
    pack = Finding("PACK-EXAMPLE-1", "my-pack", "custom", severity="WARNING", locations=[Location("x.md", 2)])
    result = CheckResult([FamilyResult("my-pack", "quality", "OK", 0, [pack])], "OK", 0)
    text = render_junit(result)
    assert '<testsuite name="my-pack"' in text and 'name="PACK-EXAMPLE-1 x.md:2"' in text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab-_.|*`#<>[]{}\\ \t\nMC0"), max_size=12))
def test_markdown_escape_fast_path_agrees(text):
    """The shortcut for text with nothing to escape gives what the full escaping gives."""
    assert md.escape(text) == md._SPECIAL.sub(r"\\\1", " ".join(text.split()))
