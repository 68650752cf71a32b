"""The file-level fast path (analyzer/project/extract/canonical.py, fast_entries.py, fast_subjects.py)
gives exactly the general path's sink: each relation's facts in order, diagnostics, unit ranges,
title, info. The order of the relations themselves is not kept (a run's rows are written a
relation at a time): the fact base is a set per relation, and the comparison is of dicts.

The general path is the reference. Inputs: the firing and conformance corpora, a generated
project (and, as cross-checks, ../shared's scenarios, templates and real-world trees), and
hypothesis-made files of near-canonical units
(extra spaces, duplicate or unknown fields, CRLF, tabs, fences, comments, unicode, empty
items, bullets in bodies, missing trailing newline...).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from analyzer.project.extract import canonical, fast_entries, fast_subjects
from analyzer.project.extract import entries as entries_module
from analyzer.project.extract.entries import extract_entries
from analyzer.project.extract.sink import Sink
from analyzer.project.extract.subjects import extract_subjects, normalize_alias

from shared_reference import REALWORLD, cross_check

from .helpers import TEMPLATES, generated_project, own_projects, scenarios

REPO = Path(__file__).resolve().parents[2]
ENTRY_MODULES = ("decisions.md", "constraints.md", "do-not-use.md", "preferences.md", "inbox.md", "areas/web.md",
                 "rules/style.md", "profiles/p.md", "archive/old.md", "brief.md", "changelog.md")


def both(text: str, module: str, schema: int = 1):
    """(general sink, fast sink) of one file, as plain data."""
    out = []
    for fast in (False, True):
        sink = Sink(f"docs/memory/{module}")
        if module == "subjects.md":
            extract_subjects(text, module, sink, fast=fast)
        else:
            extract_entries(text, module, schema, sink, fast=fast)
        out.append(sink.to_plain())
    return out


def assert_same(text: str, module: str, schema: int = 1) -> None:
    general, fast = both(text, module, schema)
    assert fast == general, (module, text[:400])


def _module_of(path: Path) -> str:
    if path.name == "subjects.md":
        return "subjects.md"
    if path.parent.name in ("areas", "rules", "profiles", "archive"):
        return f"{path.parent.name}/{path.name}"
    return path.name


def _check_tree(root: Path) -> int:
    count = 0
    for path in sorted(root.rglob("*.md")):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for schema in (1, 2):
            assert_same(text, _module_of(path), schema)
        count += 1
    return count


def test_corpus_files_give_the_same_sinks():
    assert _check_tree(REPO / "tests" / "corpus") > 10


@cross_check
def test_templates_and_real_world_trees_give_the_same_sinks():
    assert _check_tree(TEMPLATES) + _check_tree(REALWORLD) > 5


def _check_project_files(projects) -> int:
    count = 0
    for project in projects:
        for rel, text in project.get("files", {}).items():
            if rel.endswith(".md") and isinstance(text, str):
                module = rel.split("docs/memory/", 1)[-1]
                for schema in (1, 2):
                    assert_same(text, "subjects.md" if module == "subjects.md" else module, schema)
                count += 1
    return count


def test_conformance_corpus_files_give_the_same_sinks(tmp_path):
    assert _check_project_files(own_projects(tmp_path)) > 100


@cross_check
def test_scenario_files_give_the_same_sinks():
    assert _check_project_files(scenarios()) > 20


def test_a_generated_project_takes_the_fast_path_and_gives_the_same_sinks(tmp_path, monkeypatch):
    memory = generated_project(tmp_path / "p", 300) / "docs" / "memory"
    matched = []
    original = fast_entries._Entries.add  # called once for each matched entry
    monkeypatch.setattr(fast_entries._Entries, "add", lambda self, *a: matched.append(a) or original(self, *a))
    assert _check_tree(memory) > 5
    # every generated entry is canonical: the fast path matched it (none went to the general
    # path); whether it is valid is the rules' question, the same on both paths
    assert len(matched) >= 2 * 300
    subjects = (memory / "subjects.md").read_text(encoding="utf-8")
    pattern = fast_subjects.subject_unit()
    found = canonical.sections(subjects)
    assert canonical.plain(subjects) and found
    assert all(pattern.fullmatch(subjects, start, end) for start, end, _ in found)


# -- hypothesis: near-canonical files ---------------------------------------------------------

HEX = st.text("0123456789abcdef", min_size=8, max_size=8)
VALUE_LIST = (["active", "candidate", "superseded", "promoted", "merged", "bogus", "", " active ",
                          "project", "area:web", "area:other", "area:bad value", "local-user", "behavior",
                          "version-policy", "nonsense-facet", "MC-SUBJ-20260101-aaaaaaaa", "concept", "dependency",
                          "Concept ", "dependency:pypi:Lib_X", "dependency:npm:@a/b", "feature:x", "weird:ref",
                          "repo-path:src/x.py", "repo-path:../escape", "Ünïcödé  value", "a\u00a0b", "x # y"])
ITEM_LIST = (["user-confirmed", "agent-observed", "conversation-unconfirmed", "legacy-unverified",
                         "repo:src/app.py", "repo:../x", "doc:README.md#L3", "test:tests/t.py", "issue:#12", "pr:#3",
                         "bogus", "", " user-confirmed ", "subject 0", "Alias\u3000Two", "MC-DEC-20260101-aaaaaaaa"])
ODD_LIST = (["", " ", "  indented", "    code", "\tTab: x", "```", "~~~", "```memory-custodian-body-v1",
                             "<!-- note -->", "<!--", "-->", "# H1", "### H3", "##", "## plain heading", "- bullet",
                             "* star", "+ plus", "-not a bullet", "Unknown-Field: v", "Evidence: inline", "Reason:",
                             "Rule number 4.", "\u00a0", "Status:active", "Status : active", "Decision:   ",
                             "Body line with: colon", "Candidate-Type: x", "Superseded-By: MC-DEC-20260101-bbbbbbbb",
                             "Promotion-Requirement: y", "Merged-Into: MC-SUBJ-20260101-bbbbbbbb", "Merged-From:",
                             "Aliases:", "Kind: area", "Canonical-Ref: area:web", "- ", "-  spaced  "])


VALUES, ITEMS, ODD_LINES = st.sampled_from(VALUE_LIST), st.sampled_from(ITEM_LIST), st.sampled_from(ODD_LIST)


# per module: the ID codes, Scope and typed body a valid entry there has (§5.3, §5.9)
VALID = {"decisions.md": ("DEC", "project", "Decision"), "constraints.md": ("CON", "project", "Constraint"),
         "do-not-use.md": ("DNU", "project", "Rejected"), "preferences.md": ("PREF", "project", "Preference"),
         "inbox.md": ("INBOX", "project", "Statement"), "areas/web.md": ("AREA", "area:web", "Decision"),
         "rules/style.md": ("AREA", "project", "Rule"), "profiles/p.md": ("AREA", "project", "Profile"),
         "archive/old.md": ("DEC", "project", "Decision"), "brief.md": ("DEC", "project", "Decision"),
         "changelog.md": ("CON", "project", "Constraint")}


def _mostly(draw, valid, others):
    """``valid`` four times in five, else one of ``others`` (one defect at a time, mostly)."""
    return valid if draw(st.integers(0, 4)) else draw(others)


def _mutate(draw, lines):
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):  # insert, replace or delete a line
        at = draw(st.integers(1, len(lines)))
        op = draw(st.integers(0, 2))
        if op == 0:
            lines.insert(at, draw(ODD_LINES))
        elif op == 1 and at < len(lines):
            lines[at] = draw(ODD_LINES)
        elif at < len(lines):
            del lines[at]
    return lines


@st.composite
def entry_unit(draw, module):
    code, scope, body = VALID[module]
    code = _mostly(draw, code, st.sampled_from(["DEC", "CON", "DNU", "PREF", "AREA", "INBOX", "TOMB", "dec", "SUBJ"]))
    heading = _mostly(draw, "## MC-{c}-20260101-{h} \u2014 Title {h}", st.sampled_from([
        "## MC-{c}-20260101-{h} \u2014 Title #", "##  MC-{c}-20260101-{h} \u2014 T", "## MC-{c}-20260101-{h} - T",
        "## MC-{c}-20260101-{h} \u2014 ", "## mc-{c}-20260101-{h} \u2014 \u00c9t\u00e9 ", "### MC-{c}-20260101-{h} \u2014 D"]))
    lines = [heading.format(c=code, h=draw(HEX))] + [""] * draw(st.integers(0, 2))
    valid = {"Status": "active", "Scope": scope, "Subject": "MC-SUBJ-20260101-aaaaaaaa", "Facet": "behavior"}
    for name, value in valid.items():
        if draw(st.integers(0, 12)):
            pad = draw(st.sampled_from(["", " ", " ", " ", "  ", "\t"]))
            lines.append(f"{name}:" + pad + _mostly(draw, value, VALUES))
            lines += [""] * draw(st.sampled_from([0, 0, 1]))
    lines.append("Evidence:" + _mostly(draw, "", st.sampled_from([" ", " inline"])))
    lines += [f"- {_mostly(draw, 'user-confirmed', ITEMS)}" for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2, 3])))]
    lines += [""] * draw(st.integers(0, 2))
    body = _mostly(draw, body, st.sampled_from(["Decision", "Constraint", "Rejected", "Preference", "Rule", "Profile",
                                                "Statement"]))
    lines.append(f"{body}:" + draw(st.sampled_from(["", "", " inline text", "   "])))
    lines += draw(st.lists(st.sampled_from(["Body text.", "Body text.", "", "More body", "\u00a0"]), max_size=3))
    if draw(st.booleans()):
        lines += ["Reason:" + draw(st.sampled_from(["", " why"])), "Because."] + [""] * draw(st.integers(0, 2))
    return _mutate(draw, lines)


@st.composite
def subject_unit(draw):
    heading = _mostly(draw, "## MC-SUBJ-20260101-{h} \u2014 Subject {h}", st.sampled_from([
        "## MC-SUBJ-20260101-{h} \u2014 S #", "## MC-DEC-20260101-{h} \u2014 X", "## mc-subj-20260101-{h} \u2014 \u00dcber  T "]))
    lines = [heading.format(h=draw(HEX))] + [""] * draw(st.integers(0, 2))
    for name, value in (("Status", "active"), ("Kind", "concept"), ("Canonical-Ref", "feature:x")):
        if draw(st.integers(0, 12)) and (name != "Canonical-Ref" or draw(st.booleans())):
            lines.append(f"{name}:" + _mostly(draw, " " + value, VALUES.map(lambda v: " " + v)))
            lines += [""] * draw(st.sampled_from([0, 0, 1]))
    for block in ("Evidence", "Aliases"):
        lines.append(f"{block}:" + _mostly(draw, "", st.sampled_from([" ", " inline"])))
        lines += [f"- {_mostly(draw, 'user-confirmed', ITEMS)}" for _ in range(draw(st.sampled_from([0, 1, 1, 2, 3])))]
        lines += [""] * draw(st.integers(0, 2))
    return _mutate(draw, lines)


def _valid_entry(module: str) -> list:
    code, scope, body = VALID[module]
    return [f"## MC-{code}-20260101-0123abcd \u2014 Title", "", "Status: active", f"Scope: {scope}",
            "Subject: MC-SUBJ-20260101-aaaaaaaa", "Facet: behavior", "Evidence:", "- user-confirmed", "",
            f"{body}:", "Body text.", "", "Reason:", "Because.", ""]


def _single_defects(lines: list):
    """``lines`` with one change each: every line replaced by each odd line or value, every
    line removed, every odd line inserted everywhere."""
    yield lines
    for i in range(1, len(lines)):
        yield lines[:i] + lines[i + 1:]
        for odd in ODD_LIST:
            yield lines[:i] + [odd] + lines[i:]
            yield lines[:i] + [odd] + lines[i + 1:]
        name, sep, _ = lines[i].partition(":")
        if sep and name[:1].isalpha():
            for value in VALUE_LIST:
                yield lines[:i] + [f"{name}: {value}"] + lines[i + 1:]
        if lines[i].startswith("- "):
            for item in ITEM_LIST:
                yield lines[:i] + [f"- {item}"] + lines[i + 1:]
                yield lines[:i + 1] + [f"- {item}"] + lines[i + 1:]


@pytest.mark.parametrize("module", ENTRY_MODULES)
def test_every_single_defect_of_a_valid_entry_gives_the_same_sinks(module, monkeypatch):
    # The two paths are compared on the neutral facts they emit, before the per-entry rules
    # judge them: the judgement is one function of those facts (analyzer/project/extract/judge.py),
    # tested on its own (test_entry_judgement.py) and end to end by the other tests here. Judging
    # each of these ~40,000 one-entry files costs four fifths of the time and adds no coverage.
    monkeypatch.setattr(entries_module, "judge", lambda *args: None)
    count = 0
    for body in dict.fromkeys((VALID[module][2], "Decision", "Rule")):  # its own body and foreign ones
        lines = [line if not line.endswith(":") or line[:-1] != VALID[module][2] else f"{body}:"
                 for line in _valid_entry(module)]
        for variant in _single_defects(lines):
            assert_same("# Title\n\n" + "\n".join(variant + _valid_entry(module)) + "\n", module)
            count += 1
    assert count > 500


def test_every_single_defect_of_a_valid_subject_gives_the_same_sinks():
    lines = ["## MC-SUBJ-20260101-0123abcd \u2014 Thing", "", "Status: active", "Kind: concept",
             "Canonical-Ref: feature:x", "Evidence:", "- user-confirmed", "", "Aliases:", "- the thing", ""]
    for variant in _single_defects(lines):
        assert_same("# Subject Registry\n\n" + "\n".join(variant + lines) + "\n", "subjects.md")


@st.composite
def document(draw, unit):
    lines = []
    if draw(st.integers(0, 4)):
        lines += [draw(st.sampled_from(["# Decisions", "# Subject Registry", "#NoSpace", "Plain first line"])), ""]
    lines += draw(st.lists(st.sampled_from(["Intro text.", "", "- preamble bullet", "Entries are newest first."]),
                           max_size=3))
    for _ in range(draw(st.integers(0, 4))):
        lines += draw(unit)
    if draw(st.integers(0, 7)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(ODD_LINES))
    newline = draw(st.sampled_from(["\n"] * 10 + ["\r\n", "\r"]))
    text = newline.join(lines)
    return text + newline if draw(st.integers(0, 6)) else text


@st.composite
def entry_file(draw):
    module = draw(st.sampled_from(ENTRY_MODULES))
    return draw(document(entry_unit(module))), module


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entry_file(), st.sampled_from([1, 2]))
def test_near_canonical_entry_files_give_the_same_sinks(file, schema):
    text, module = file
    assert_same(text, module, schema)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document(subject_unit()))
def test_near_canonical_subject_files_give_the_same_sinks(text):
    assert_same(text, "subjects.md")


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_gives_the_same_sinks(text):
    assert_same(text, "decisions.md", 2)
    assert_same(text, "subjects.md")


# -- the pieces ---------------------------------------------------------------------------


def test_plain_refuses_every_line_lexing_could_hide_or_indent():
    assert canonical.plain("# T\n\n## A\nStatus: x\n")
    for odd in (" x", "\tx", "```", "~~~", "<!-- c -->", "a\rb", "a\u2028b", "a\x0cb", "a\x85b"):
        assert not canonical.plain(f"# T\n{odd}\n"), odd
        assert not canonical.plain(odd), odd


def test_sections_start_at_every_h2_line_only():
    text = "## A\nx\n##\n###  not\n##\tB\n## C"
    assert [text[s:e] for s, e, _ in canonical.sections(text)] == ["## A\nx\n", "##\n###  not\n", "##\tB\n", "## C"]
    assert [line for _, _, line in canonical.sections(text)] == [0, 2, 4, 5]


def test_embed_keeps_a_terminal_on_its_line():
    field = canonical.embed(r"(?P<name>[A-Za-z]+):(?:\s*(?P<value>[^\n]*))?", {"value": "v"})
    assert "(?P<name>" not in field and "(?P<v>" in field
    pattern = re.compile(field + "\n", re.M)
    assert pattern.fullmatch("Status:  x\n").group("v") == "x"
    assert pattern.fullmatch("Status:\n\nx\n") is None  # \s no longer reaches the next line
    assert canonical.embed(r"[^\s](?P<a>x)") == r"[^\s](?:x)"


@given(st.text(st.characters(), max_size=30))
def test_normalize_alias_collapses_whitespace_like_the_regex(text):
    reference = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()
    assert normalize_alias(text) == reference
