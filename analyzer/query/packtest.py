"""``analyze test DIR``: unit tests for rule packs, in the manner of ``opa test``
(docs/rule-packs.md, "Testing a pack").

DIR holds the packs under test (its ``*.dl`` files, plus any ``--rules``) and one fixture
project per case: every subdirectory of DIR with an ``expected.txt`` file is a case, its own
project root. ``expected.txt`` lists the pack findings the case must report, one per line as
``check`` prints them (``CODE SEVERITY: message``; a leading ``- `` is allowed, ``#`` starts a
comment line, blank lines and ``- no findings`` are ignored). A case passes when its pack
findings are exactly those lines (as a multiset; order does not matter). Built-in findings
are not compared: the packs are under test.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence

from analyzer.core.diagnostics import Diagnostic, DiagnosticError
from analyzer.core.span import Span

EXPECTED = "expected.txt"
BAD_CASE = "MA-TEST-CASE"  # a case that cannot be run: unreadable expected file, unusable project
NO_TESTS = "MA-TEST-EMPTY"  # DIR without packs or without cases


@dataclass
class CaseResult:
    """One case: its name (the subdirectory), PASS or FAIL, expected and actual finding lines."""

    name: str
    passed: bool
    expected: List[str] = field(default_factory=list)
    actual: List[str] = field(default_factory=list)

    def diff(self) -> List[str]:
        """A unified diff from the expected lines to the actual ones (both sorted)."""
        return list(difflib.unified_diff(sorted(self.expected), sorted(self.actual), "expected", "actual",
                                         lineterm="", n=1))


@dataclass
class TestRun:
    """Every case of a run, in name order, and the packs that ran."""

    packs: List[str]
    cases: List[CaseResult]

    @property
    def failed(self) -> List[CaseResult]:
        """The cases that failed."""
        return [c for c in self.cases if not c.passed]


def finding_line(finding) -> str:
    """A finding as ``check`` prints it in a quality block, without the ``- ``."""
    return f"{finding.code} {finding.severity}: {finding.message}"


def read_expected(path: Path) -> List[str]:
    """The finding lines of an expected file; DiagnosticError when it cannot be read."""
    from analyzer.engine.sourcefile import read_text

    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise DiagnosticError([Diagnostic(Span(str(path), 1, 1), BAD_CASE, f"cannot read the expected findings: "
                                          f"{getattr(exc, 'strerror', None) or exc}")]) from None
    lines = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("- "):
            line = line[2:].strip()
        if not line or line.startswith("#") or line == "no findings":
            continue
        lines.append(line)
    return lines


def discover(directory: Path, extra_packs: Sequence[str]):
    """``(pack paths, case directories)`` of DIR, sorted; DiagnosticError when there is
    nothing to run."""
    if not directory.is_dir():
        raise DiagnosticError([Diagnostic(Span(str(directory), 1, 1), NO_TESTS, "not a directory")])
    packs = sorted(str(p) for p in directory.iterdir() if p.suffix == ".dl" and p.is_file()) + list(extra_packs)
    cases = sorted((p for p in directory.iterdir() if p.is_dir() and (p / EXPECTED).exists()),
                   key=lambda p: p.name)
    if not packs:
        raise DiagnosticError([Diagnostic(Span(str(directory), 1, 1), NO_TESTS,
                                          "no pack to test: put PACK.dl files in the directory or give --rules")])
    if not cases:
        raise DiagnosticError([Diagnostic(Span(str(directory), 1, 1), NO_TESTS, "no case: a case is a "
                                          f"subdirectory holding a fixture project and {EXPECTED}")])
    return packs, cases


def run_tests(directory: Path, extra_packs: Sequence[str] = (), memory_dir: str = "docs/memory",
              use_cache: bool = True, only: Optional[str] = None) -> TestRun:
    """Load the packs once, run every case, compare; DiagnosticError for bad input."""
    from analyzer.engine.linear_re import compile_pattern
    from analyzer.query.check import CheckRequest, run_check
    from analyzer.query.packs import FAMILY, load_packs

    paths, cases = discover(directory, extra_packs)
    if only is not None:
        pattern = compile_pattern(only)
        cases = [c for c in cases if pattern.search(c.name)]
    packs = load_packs(paths, use_cache=use_cache)
    results = []
    for case in cases:
        expected = read_expected(case / EXPECTED)
        result = run_check(CheckRequest([], case, memory_dir, use_cache, {}, packs))
        if result.failure is not None:
            where = os.path.join(str(case), result.failure.where.path) if result.failure.where.path else str(case)
            raise DiagnosticError([Diagnostic(Span(where, result.failure.where.line, result.failure.where.col), BAD_CASE,
                                              f"case {case.name}: the fixture cannot be checked: {result.failure.message}")])
        family = next(f for f in result.families if f.name == FAMILY)
        actual = [finding_line(f) for f in family.findings]
        results.append(CaseResult(case.name, sorted(actual) == sorted(expected), expected, actual))
    return TestRun(paths, results)
