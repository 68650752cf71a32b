"""``analyze check --format junit``: the check result as JUnit XML for CI test reports
(GitLab's ``artifacts:reports:junit``, Jenkins, junit2html, ...).

One ``testsuite`` per family run and one ``testcase`` per finding, with at most one
``failure``: readers that show one failure per test case (GitLab, Jenkins, junit2html,
xunitparser) then show every finding. A case is named ``CODE path:line`` (the finding's first
location; ``CODE`` alone when it names none), its ``classname`` is ``memory-analyzer.FAMILY``,
and the failure has the finding's severity or status word as ``type``, the message, and every
location as ``path:line:col`` in its text: the Jenkins schema allows no ``file``/``line``
attribute on a test case, so locations live in the name and the text. A check's every finding
fails, INFO included (MC-FRESH-003 says revision-pinned Evidence went unchecked; a passing case
would hide that). Only the changes ``analyze diff`` reports (notes of the
:data:`INFORMATIONAL` families) fail nothing: their case passes with the change in
``system-out`` (a change between revisions is information, not a failure; docs/decisions.md).
A family without findings is one passing ``testcase`` named after the family.

The run's properties (overall and per-family status and exit code) are written once, in the
first suite, with distinct names: readers that merge suites (xunitparser) refuse a repeated
name. Characters XML 1.0 cannot hold (control characters in a module name) are written as
``\\xNN`` / ``\\uNNNN``. No timings: the same result is the same bytes. A check that could not
run is one suite with an ``error``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Dict, List

from analyzer.contract.check_model import CheckResult
from analyzer.contract.results import Finding
from analyzer.render import findings as common

# families whose note-level findings are information rather than failures: a diff's changes
INFORMATIONAL = ("diff",)

# what XML 1.0 cannot hold (its Char production), lone surrogates included
_ILLEGAL = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 cannot hold written as ``\\xNN`` or ``\\uNNNN``."""
    return _ILLEGAL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                        text)


def _family_findings(result: CheckResult) -> Dict[str, List[Finding]]:
    out: Dict[str, List[Finding]] = {f.name: [] for f in result.families}
    for finding in common.all_findings(result):
        out.setdefault(finding.family, []).append(finding)
    return out


def _where(finding: Finding, prefix: str) -> List[str]:
    return [common.repo_path(l, prefix) + (f":{l.line}:{l.col}" if l.line > 0 else "")
            for l in common.shown_locations(finding)]


def case_name(finding: Finding, prefix: str) -> str:
    """``CODE path:line`` of the finding's first location (``CODE path`` when it is a file
    itself, line 0; ``CODE`` when it has none)."""
    if not finding.locations:
        return finding.code
    first = finding.locations[0]
    return f"{finding.code} {common.repo_path(first, prefix)}" + (f":{first.line}" if first.line > 0 else "")


def _case(suite: ET.Element, family: str, finding: Finding, prefix: str) -> None:
    case = ET.SubElement(suite, "testcase", classname=f"memory-analyzer.{family}",
                         name=xml_text(case_name(finding, prefix)))
    text = xml_text("\n".join([f"{finding.code} {common.word(finding)}: {finding.message}", *_where(finding, prefix)]))
    if family in INFORMATIONAL and common.level(finding) == "note":
        ET.SubElement(case, "system-out").text = text
        return
    failure = ET.SubElement(case, "failure", message=xml_text(finding.message),
                            type=common.word(finding) or "finding")
    failure.text = text


def _properties(suite: ET.Element, result: CheckResult) -> None:
    """The run's status and exit code and each family's, once, as the suite's first child."""
    props = ET.Element("properties")
    pairs = [("status", result.status), ("exit_code", str(result.exit_code))]
    for family in result.families:
        pairs += [(f"{family.name}.status", family.status), (f"{family.name}.exit_code", str(family.exit_code))]
    for name, value in pairs:
        ET.SubElement(props, "property", name=xml_text(name), value=xml_text(value))
    suite.insert(0, props)


def _suite(name: str, found: List[Finding], prefix: str) -> ET.Element:
    suite = ET.Element("testsuite", name=xml_text(name))
    if not found:
        ET.SubElement(suite, "testcase", classname=f"memory-analyzer.{name}", name=xml_text(f"{name}: no findings"))
    for finding in found:
        _case(suite, name, finding, prefix)
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    suite.set("errors", "0")
    suite.set("skipped", "0")
    return suite


def _error_suite(result: CheckResult, prefix: str) -> ET.Element:
    suite = ET.Element("testsuite", name="check", tests="1", failures="0", errors="1", skipped="0")
    where = f" {prefix}{result.failure.where.path}:{result.failure.where.line}" if result.failure.where.path else ""
    case = ET.SubElement(suite, "testcase", classname="memory-analyzer.check",
                         name=xml_text(f"{result.failure.code}{where}"))
    lines = result.failure.message.splitlines() or [result.failure.message]
    error = ET.SubElement(case, "error", message=xml_text(lines[0]), type=result.failure.code)
    if lines[0].startswith("Error: "):
        # Unusable files: each line already reads "Error: path:line:col: CODE cause".
        error.text = xml_text(result.failure.message)
    elif result.failure.where.path:
        error.text = xml_text(f"{prefix}{result.failure.where.path}:{result.failure.where.line}:{result.failure.where.col}: {result.failure.message}")
    else:  # a Git failure or a usage error: no file is at fault
        error.text = xml_text(result.failure.message)
    return suite


def render_junit(result: CheckResult, prefix: str = "") -> str:
    """The JUnit XML document (UTF-8, final newline)."""
    root = ET.Element("testsuites", name="memory-analyzer check")
    if result.failure is not None:
        root.append(_error_suite(result, prefix))
    else:
        for name, items in _family_findings(result).items():
            root.append(_suite(name, items, prefix))
    suites = root.findall("testsuite")
    if suites:
        _properties(suites[0], result)
    for key in ("tests", "failures", "errors"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in suites)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
