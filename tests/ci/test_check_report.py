"""`analyze check --format markdown` (and `--output markdown:FILE`, and the step summary of
`--format github`) is the CI reachability report of `analyze report`: the same renderer, the
report's relations from the check's own single evaluation, the check's gating applied."""

from __future__ import annotations

import json
import re

import pytest

from cihelp import copy_example, count_evaluations, run_inproc, run_cli


@pytest.fixture()
def clean_env(monkeypatch, tmp_path):
    for key in ("GITHUB_STEP_SUMMARY", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _body(markdown: str) -> str:
    first, _, rest = markdown.partition("\n")
    assert re.fullmatch(r"# memory-analyzer (check|report): [A-Z]+", first), first
    return rest


SECTIONS = ("## Status", "## Routing matrix", "## Optional modules", "## Reachability", "```mermaid",
            "## Findings", "## All entries")


def test_check_markdown_is_the_report(tmp_path, clean_env):
    root = copy_example(tmp_path)
    check, _, status = run_inproc(["check", "--all", "--format", "markdown", "--project-root", str(root)])
    report, _, report_status = run_inproc(["report", "--project-root", str(root)])
    assert status == report_status == 1
    assert check.startswith("# memory-analyzer check: INVALID\n")
    assert _body(check) == _body(report)
    assert [check.index(s) for s in SECTIONS] == sorted(check.index(s) for s in SECTIONS)


def test_markdown_output_file_and_step_summary_are_the_same_report(tmp_path, clean_env):
    root = copy_example(tmp_path)
    printed = run_cli(["check", "--all", "--format", "markdown", "--project-root", str(root)], tmp_path).stdout
    written = tmp_path / "r.md"
    proc = run_cli(["check", "--all", "--format", "json", "--output", f"markdown:{written}", "--project-root",
                     str(root)], tmp_path)
    assert written.read_text(encoding="utf-8") == printed
    assert "report" not in json.loads(proc.stdout)["families"]  # the report family is not a check family
    summary = tmp_path / "summary.md"
    run_cli(["check", "--all", "--format", "github", "--project-root", str(root)], tmp_path,
             extra_env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert summary.read_text(encoding="utf-8") == printed and "```mermaid" in printed


def test_one_family_gets_the_whole_report_with_its_own_status(tmp_path, clean_env):
    root = copy_example(tmp_path)
    out, _, status = run_inproc(["check", "--conflicts", "--format", "markdown", "--project-root", str(root)])
    assert status == 1
    rows = re.findall(r"^\| (\w+) \| [A-Z]+ \|", out, flags=re.M)
    assert rows == ["conflicts"]
    assert all(s in out for s in SECTIONS)
    assert "### freshness" not in out and "### conflicts (5)" in out


def test_check_markdown_is_one_evaluation(tmp_path, clean_env, monkeypatch):
    calls = count_evaluations(monkeypatch)
    root = copy_example(tmp_path)
    run_inproc(["check", "--all", "--no-cache", "--format", "text", "--output", f"markdown:{tmp_path / 'r.md'}",
                "--output", f"sarif:{tmp_path / 'r.sarif'}", "--project-root", str(root)])
    assert len(calls) == 1 and "report_entry" in calls[0] and "check_conflict_status" in calls[0]
    calls.clear()
    run_inproc(["check", "--all", "--no-cache", "--format", "json", "--project-root", str(root)])
    assert len(calls) == 1 and "report_entry" not in calls[0]  # no Markdown: the report is not evaluated


def test_markdown_findings_follow_the_gate(tmp_path, clean_env):
    root = copy_example(tmp_path)
    out, err, status = run_inproc(["check", "--all", "--format", "markdown", "--select", "MC-ROUTING",
                                   "--project-root", str(root)])
    assert status == 0 and "hidden by --select" in err
    codes = set(re.findall(r"^- \*\*(MC-[A-Z]+-\d+)\*\*", out, flags=re.M))
    assert codes == {"MC-ROUTING-005"}
    # status, counts and exit are those of what is shown: no family FAILED/INVALID over nothing shown
    assert out.startswith("# memory-analyzer check: OK\n")
    assert "| **overall** | **OK** | 0 | 1 | 0 | **0** |" in out
    assert "| legacy | OK | 0 | 0 | 0 | 0 |" in out and "| conflicts | CLEAR | 0 | 0 | 0 | 0 |" in out
    assert "23 finding(s) hidden by --select/--ignore/--baseline" in out  # 13 of them the legacy family's
    assert "## Routing matrix" in out and "```mermaid" in out  # the graph is the rules', not gated
    baseline = tmp_path / "base.json"
    run_inproc(["check", "--all", "--format", "json", "--output", str(baseline), "--project-root", str(root)])
    out, _, status = run_inproc(["check", "--all", "--format", "markdown", "--baseline", str(baseline),
                                 "--project-root", str(root)])
    assert status == 0 and "## Findings\n\nNo findings." in out


def test_filtered_github_notice_gives_the_status_of_what_it_shows(tmp_path, clean_env):
    """The notice said `check INVALID (exit 0): ... legacy FAILED` over one WARNING shown."""
    root = copy_example(tmp_path)
    out, _, status = run_inproc(["check", "--all", "--format", "github", "--select", "MC-ROUTING",
                                 "--project-root", str(root)])
    notice = out.splitlines()[-1]
    assert status == 0 and notice.startswith("::notice title=memory-analyzer::check OK (exit 0): routing OK"), notice
    assert "FAILED" not in notice and "INVALID" not in notice and "conflicts CLEAR" in notice
    assert notice.endswith("; 23 finding(s) hidden by --select/--ignore/--baseline")
    out, _, status = run_inproc(["check", "--all", "--format", "github", "--select", "MC-FRESH",
                                 "--project-root", str(root)])
    notice = out.splitlines()[-1]
    assert status == 1 and "check FAILED (exit 1)" in notice  # an ERROR shown: it reaches --fail-on conflict
    assert "freshness FAILED" in notice and "legacy OK" in notice


def test_diff_markdown_has_no_project_sections(tmp_path, clean_env):
    """A result that is not a project check (diff, autonomy) renders its status and findings."""
    from analyzer.contract.check_model import CheckResult, FamilyResult
    from analyzer.contract.results import Finding, Location
    from analyzer.commands.check_formats import Context, render

    finding = Finding("MA-DIFF-ADDED", "diff", "added", severity="INFO", locations=[Location("a.md", 3)])
    text, status = render("markdown", CheckResult([FamilyResult("diff", "quality", "OK", 0, [finding])], "OK", 0),
                          Context(str(tmp_path), prefix=""))
    assert status == 0 and "## Findings" in text and "## Routing matrix" not in text and "mermaid" not in text
