"""``analyze check --format junit``: the check result as JUnit XML for CI test reports
(GitLab's ``artifacts:reports:junit``, Jenkins, ...).

One ``testsuite`` per family run, one ``testcase`` per code that has findings, one
``failure`` per finding (its severity or status word as ``type``, the message, and every
location as ``path:line:col``): a check's every finding fails, INFO included (MC-FRESH-003
says revision-pinned Evidence went unchecked; a passing case would hide that). Only the
changes ``analyze diff`` reports (notes of the :data:`INFORMATIONAL` families) fail nothing:
their code's test case passes and lists them in ``system-out`` (a change between revisions
is information, not a failure; docs/decisions.md). A family without findings is one passing ``testcase`` named after the
family, so a clean family shows as passed. No timings: the same result is the same bytes.
A check that could not run is one suite with an ``error``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Dict, List

from analyzer.query.check_model import CheckFinding, CheckResult
from analyzer.render import findings as common

# families whose note-level findings are information rather than failures: a diff's changes
INFORMATIONAL = ("diff",)


def _family_findings(result: CheckResult) -> Dict[str, List[CheckFinding]]:
    out: Dict[str, List[CheckFinding]] = {f.name: [] for f in result.families}
    for finding in common.all_findings(result):
        out.setdefault(finding.family, []).append(finding)
    return out


def _where(finding: CheckFinding, prefix: str) -> List[str]:
    return [common.repo_path(l, prefix) + (f":{l.line}:{l.col}" if l.line > 0 else "") for l in finding.locations]


def _suite(name: str, status: str, exit_code: int, found: List[CheckFinding], prefix: str) -> ET.Element:
    suite = ET.Element("testsuite", name=name)
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="status", value=status)
    ET.SubElement(props, "property", name="exit_code", value=str(exit_code))
    codes: Dict[str, List[CheckFinding]] = {}
    for finding in found:
        codes.setdefault(finding.code, []).append(finding)
    if not codes:
        ET.SubElement(suite, "testcase", classname=f"memory-analyzer.{name}", name=f"{name}: no findings")
    for code in sorted(codes):
        first = next((f.locations[0] for f in codes[code] if f.locations), None)
        attrs = {"classname": f"memory-analyzer.{name}", "name": code}
        if first is not None:
            attrs.update(file=common.repo_path(first, prefix), **({"line": str(first.line)} if first.line > 0 else {}))
        case = ET.SubElement(suite, "testcase", attrs)
        notes = []
        for finding in codes[code]:
            text = "\n".join([f"{code} {common.word(finding)}: {finding.message}", *_where(finding, prefix)])
            if name in INFORMATIONAL and common.level(finding) == "note":
                notes.append(text)
                continue
            failure = ET.SubElement(case, "failure", message=finding.message, type=common.word(finding) or "finding")
            failure.text = text
        if notes:
            ET.SubElement(case, "system-out").text = "\n\n".join(notes)
    cases = len(suite.findall("testcase"))
    suite.set("tests", str(cases))
    suite.set("failures", str(sum(1 for c in suite.findall("testcase") if c.find("failure") is not None)))
    suite.set("errors", "0")
    suite.set("skipped", "0")
    return suite


def render_junit(result: CheckResult, prefix: str = "") -> str:
    """The JUnit XML document (UTF-8, final newline)."""
    root = ET.Element("testsuites", name="memory-analyzer check")
    if result.error is not None:
        suite = ET.SubElement(root, "testsuite", name="check", tests="1", failures="0", errors="1", skipped="0")
        case = ET.SubElement(suite, "testcase", classname="memory-analyzer.check", name="check")
        lines = result.error.splitlines() or [result.error]
        error = ET.SubElement(case, "error", message=lines[0], type=result.error_code)
        if lines[0].startswith("Error: "):
            # Unusable files: each line already reads "Error: path:line:col: CODE cause".
            error.text = result.error
        elif result.error_path:
            error.text = f"{prefix}{result.error_path}:{result.error_line}:{result.error_col}: {result.error}"
        else:  # a Git failure: no file is at fault
            error.text = result.error
    else:
        found = _family_findings(result)
        by_name = {f.name: f for f in result.families}
        for name, items in found.items():
            family = by_name.get(name)
            root.append(_suite(name, family.status if family else "", family.exit_code if family else 0,
                               items, prefix))
    for key in ("tests", "failures", "errors"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root.findall("testsuite"))))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
