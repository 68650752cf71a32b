"""Hypothesis fuzz per file kind: mutations of valid files never raise, and spans stay in the file."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from analyzer.project.extract.entries import extract_entries
from analyzer.project.extract.manifest import extract_manifest
from analyzer.project.extract.records import extract_records
from analyzer.project.extract.sink import Sink
from analyzer.project.extract.subjects import extract_subjects

from .helpers import TEMPLATES, SPEC

SEEDS = {
    "manifest": (TEMPLATES / "manifest.example.md"),
    "entries": (SPEC / "protocol-0.7-reference.md"),
    "subjects": (TEMPLATES / "subjects.md"),
}
ENTRY = """# Decisions

## MC-DEC-20260728-a1b2c3d4 — Support Python 3.10+

Status: active
Scope: project
Subject: MC-SUBJ-20260729-a1b2c3d4
Facet: version-policy
Evidence:
- repo:pyproject.toml

Decision:
```memory-custodian-body-v1
Status: semantic body
- a bullet
```

- legacy bullet
"""
SUBJECTS = """# Subject Registry

## MC-SUBJ-20260729-a1b2c3d4 — Library X

Status: active
Kind: dependency
Canonical-Ref: dependency:pypi:library-x
Evidence:
- repo:pyproject.toml

Aliases:
- libx
"""
RECORDS = """# Reconciliations

## MC-REC-20260801-aaaaaaaa — Independent entries

Status: active
Resolution: distinct
Entries:
- MC-DEC-20260801-11111111
- MC-DEC-20260801-22222222
Evidence:
- user-confirmed
"""
PIECES = ["", "```", "~~~", "<!--", "-->", "## ", "# ", "- ", "  - ", "    ", "\t", "Status:", "Evidence:",
          "`", "—", "\r", "\x00", "\u2028", "MC-DEC-20260101-00000000", "## MemoryCustodian Protocol"]


def manifest_seed():
    path = SEEDS["manifest"]
    return path.read_text(encoding="utf-8") if path.is_file() else ENTRY


@st.composite
def mutated(draw, seed):
    lines = seed.splitlines()
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(["insert", "delete", "dup", "chars"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if op == "insert":
            lines.insert(i, draw(st.sampled_from(PIECES)) + draw(st.text(max_size=12)))
        elif op == "delete" and lines:
            del lines[i]
        elif op == "dup" and lines:
            lines.insert(i, lines[i])
        elif lines:
            j = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:j] + draw(st.text(max_size=4)) + lines[i][j:]
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


def check(text, run):
    sink = Sink("docs/memory/x.md")
    run(text, sink)
    n = max(len(text.splitlines()), 1)
    for _, _, line, col in sink.facts:
        assert 1 <= line <= n and col >= 1
    for _, _, line, col, _ in sink.diagnostics:
        assert 1 <= line <= n and col >= 1
    for start, end in sink.units:
        assert 0 <= start <= end < n


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(mutated(manifest_seed()))
def test_manifest_fuzz(text):
    check(text, extract_manifest)


@SETTINGS
@given(st.one_of(mutated(ENTRY), mutated(ENTRY.replace("Decision:\n```memory-custodian-body-v1", "Decision:\n"))))
def test_entries_fuzz(text):
    check(text, lambda t, s: extract_entries(t, "decisions.md", 2, s))
    check(text, lambda t, s: extract_entries(t, "areas/web.md", 1, s))


@SETTINGS
@given(mutated(SUBJECTS))
def test_subjects_fuzz(text):
    check(text, lambda t, s: extract_subjects(t, "subjects.md", s))


@SETTINGS
@given(mutated(RECORDS))
def test_records_fuzz(text):
    check(text, lambda t, s: extract_records(t, "reconciliations.md", s))


@SETTINGS
@given(st.text(max_size=300))
def test_arbitrary_text_every_kind(text):
    check(text, extract_manifest)
    check(text, lambda t, s: extract_entries(t, "inbox.md", 2, s))
    check(text, lambda t, s: extract_subjects(t, "subjects.md", s))
    check(text, lambda t, s: extract_records(t, "reconciliations.md", s))
