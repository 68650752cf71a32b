"""Bad input: every case gives a diagnostic naming the path (and line), and other files are still read."""

from __future__ import annotations

import os

import pytest

from analyzer.project.files import SIZE_CAP
from analyzer.project.loader import load_project

from .helpers import default_manifest, write_project

DECISION = """## MC-DEC-20260101-0000{n:04x} — Decision {n}

Status: active
Scope: project
Subject: MC-SUBJ-20260101-00000001
Facet: behavior
Evidence:
- user-confirmed

Decision:
Rule number {n}.
"""


def base_files():
    manifest = default_manifest()
    return {
        "docs/memory/manifest.md": manifest,
        "docs/memory/brief.md": "# Brief\n\nA project.\n",
        "docs/memory/decisions.md": "# Decisions\n\n" + DECISION.format(n=1),
        "docs/memory/constraints.md": "# Constraints\n",
    }


def load(tmp_path, **overrides):
    files = base_files()
    files.update(overrides)
    return load_project(write_project(tmp_path, {k: v for k, v in files.items() if v is not None}), use_cache=False)


def diags_for(project, path):
    return [d for d in project.diagnostics if d.span.path == path]


def still_read(project):
    assert ("decisions.md", 1, "preamble", "", 4) in project.facts.relation("unit") or \
        any(u[0] == "decisions.md" for u in project.facts.relation("unit"))


def test_non_utf8_bytes(tmp_path):
    project = load(tmp_path, **{"docs/memory/brief.md": b"# Brief\n\nbad \xff byte\n"})
    [d] = [d for d in diags_for(project, "docs/memory/brief.md") if d.code == "MA-FILE-ENCODING"]
    assert (d.span.line, d.span.col) == (3, 5)
    assert ("brief.md",) not in [(u[0],) for u in project.facts.relation("unit")]
    still_read(project)


def test_bom_is_dropped_with_a_warning(tmp_path):
    plain = load(tmp_path / "a")
    bom = load(tmp_path / "b", **{"docs/memory/manifest.md": b"\xef\xbb\xbf" + default_manifest().encode()})
    assert [d.code for d in diags_for(bom, "docs/memory/manifest.md")] == ["MA-FILE-BOM"]
    assert bom.facts.relation("route") == plain.facts.relation("route")
    assert bom.facts.relation("manifest_error") == []


def test_crlf_reads_like_lf(tmp_path):
    plain = load(tmp_path / "a")
    crlf = load(tmp_path / "b", **{"docs/memory/decisions.md": ("# Decisions\n\n" + DECISION.format(n=1)).replace("\n", "\r\n").encode()})
    assert any(d.code == "MA-FILE-CRLF" for d in diags_for(crlf, "docs/memory/decisions.md"))
    assert crlf.facts.relation("entry") == plain.facts.relation("entry")
    assert crlf.facts.relation("unit") == plain.facts.relation("unit")


def test_nul_bytes(tmp_path):
    project = load(tmp_path, **{"docs/memory/brief.md": b"# Brief\n\nnul\x00here\n"})
    [d] = [d for d in diags_for(project, "docs/memory/brief.md") if d.code == "MA-FILE-NUL"]
    assert (d.span.line, d.span.col) == (3, 4)
    still_read(project)


def test_oversized_file_is_refused_quickly(tmp_path):
    write_project(tmp_path, base_files())
    big = tmp_path / "docs/memory/changelog.md"
    with open(big, "wb") as fh:
        fh.truncate(50 * 1024 * 1024)
    assert os.path.getsize(big) > SIZE_CAP
    project = load_project(tmp_path, use_cache=False)
    assert any("limit" in d.message for d in diags_for(project, "docs/memory/changelog.md"))
    assert project.facts.relation("file_unreadable")[0][0] == "changelog.md"
    still_read(project)


def test_ten_thousand_entries_in_one_file(tmp_path):
    text = "# Decisions\n\n" + "\n".join(DECISION.format(n=n) for n in range(1, 10001))
    project = load(tmp_path, **{"docs/memory/decisions.md": text})
    assert len(project.facts.relation("entry")) == 10000
    assert project.facts.relation("entry_issue") == []


def test_deeply_nested_lists(tmp_path):
    nested = "# Brief\n\n" + "".join("  " * k + "- level\n" for k in range(3000))
    project = load(tmp_path, **{"docs/memory/brief.md": nested})
    assert any(u[0] == "brief.md" for u in project.facts.relation("unit"))


def test_unclosed_fence(tmp_path):
    project = load(tmp_path, **{"docs/memory/decisions.md": "# Decisions\n\n```python\nprint(1)\n"})
    [d] = [d for d in diags_for(project, "docs/memory/decisions.md") if d.code == "MA-MARKDOWN"]
    assert d.span.line == 3 and "Unclosed fenced code block" in d.message
    assert ("decisions.md", "", "Markdown entry parsing failed: Unclosed fenced code block") in \
        project.facts.relation("entry_issue")


def test_duplicate_headings(tmp_path):
    text = "# Decisions\n\n" + DECISION.format(n=1) + "\n" + DECISION.format(n=1)
    project = load(tmp_path, **{"docs/memory/decisions.md": text})
    units = project.facts.relation("entry_unit")
    assert [u[2] for u in units] == [1, 2]  # the ID occurs twice; rules decide what that means


def test_symlink_pointing_outside_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("## MC-DEC-20260101-deadbeef — leaked\n")
    root = write_project(tmp_path / "root", base_files())
    os.symlink(outside / "secret.md", root / "docs/memory/areas.md")
    os.symlink(outside, root / "docs/memory/elsewhere")
    project = load_project(root, use_cache=False)
    assert any(d.code == "MA-FILE-SYMLINK" for d in diags_for(project, "docs/memory/areas.md"))
    assert any(d.code == "MA-FILE-SYMLINK" for d in diags_for(project, "docs/memory/elsewhere"))
    assert project.facts.relation("symlink_refused") == [("areas.md",)]
    assert all("leaked" not in str(f) for f in project.facts.relation("entry_title"))
    assert ("areas.md",) not in project.facts.relation("memory_file")
    still_read(project)


def test_missing_memory_dir(tmp_path):
    project = load_project(tmp_path, use_cache=False)
    assert project.facts.relation("memory_dir_missing") == [("docs/memory",)]
    assert project.facts.relation("manifest_state") == [("missing",)]
    assert [d.span.path for d in project.diagnostics] == ["docs/memory"]


def test_manifest_that_is_a_directory(tmp_path):
    files = base_files()
    del files["docs/memory/manifest.md"]
    root = write_project(tmp_path, files)
    (root / "docs/memory/manifest.md").mkdir()
    project = load_project(root, use_cache=False)
    assert project.facts.relation("manifest_state") == [("not-a-file",)]
    assert diags_for(project, "docs/memory/manifest.md")
    still_read(project)


@pytest.mark.parametrize("memory_dir", ["memory", "docs", "docs/../x", "/abs/docs/memory"])
def test_memory_dir_outside_docs_is_refused(tmp_path, memory_dir):
    project = load_project(write_project(tmp_path, base_files()), memory_dir=memory_dir, use_cache=False)
    assert project.facts.relation("memory_dir_missing")
