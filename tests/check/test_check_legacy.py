"""Plain `analyze check` is the reference's full legacy check (spec §9.8): golden text on the
bundled example and the two real-world trees, the layout and order of §9.8.1-§9.8.2, the
aborts, the wording and order of the per-entry lines (§9.8.4), and the scans as pass 5.

The per-item fires/quiet cases are the MA-LEGACY-* folders of tests/corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analyzer.query.check import CheckRequest, run_check
from analyzer.render.check_text import render_check_text
from shared_reference import REALWORLD, tree_params

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"
GOLDEN = Path(__file__).resolve().parent / "legacy_golden"

TREES = {"acme-shop": EXAMPLE,
         "memorycustodian-dogfood": REALWORLD / "memorycustodian-dogfood",
         "nightnotes-video-demo": REALWORLD / "nightnotes-video-demo"}


@pytest.mark.parametrize("name", tree_params(TREES))
def test_golden_plain_check(name, analyze, tmp_path, request):
    """The whole stdout and exit status of plain `check` on a tree (recorded, diff read)."""
    if not TREES[name].is_dir():
        pytest.skip("../shared/realworld is not available")
    root = tmp_path / name
    shutil.copytree(TREES[name], root)
    proc = analyze("check", "--project-root", str(root))
    assert "Traceback" not in proc.stderr
    out = GOLDEN / f"{name}.txt"
    if request.config.getoption("--update-golden"):
        out.write_text(f"{proc.stdout}exit {proc.returncode}\n", encoding="utf-8")
    assert f"{proc.stdout}exit {proc.returncode}\n" == out.read_text(encoding="utf-8")


def _project(tmp_path: Path, files: dict) -> Path:
    """The bundled example with ``files`` (memory-dir relative; None deletes) changed."""
    root = tmp_path / "p"
    shutil.copytree(EXAMPLE, root)
    for rel, text in files.items():
        path = root / "docs" / "memory" / rel
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return root


def _plain(root: Path, **options):
    result = run_check(CheckRequest(["legacy"], root, use_cache=False,
                                    options={k: "1" for k, v in options.items() if v}))
    return result, render_check_text(result)


@pytest.fixture
def fake_scans(monkeypatch):
    """A stand-in scans module recording its calls (the agreed interface of check-scan)."""
    calls = []

    def legacy_scan_lines(world, *, security: bool, privacy: bool):
        calls.append((world, security, privacy))
        tail = (["Security findings: 1"] if security else []) + (["Privacy findings: 1"] if privacy else [])
        return (["security scan: 1 error finding(s); run `memory-custodian check --security` for redacted locations"],
                ["privacy scan: 1 finding(s); run `memory-custodian check --privacy` for redacted locations"], tail)

    # check_legacy imports the scans' functions at module top (hoisted): patch its names
    from analyzer.query import check_legacy

    monkeypatch.setattr(check_legacy, "legacy_scan_lines", legacy_scan_lines)
    monkeypatch.setattr(check_legacy, "gather", lambda project: {})
    return calls


def test_scans_are_pass_five(tmp_path, fake_scans):
    """The scans' issues follow every other issue, their warnings every other warning, and
    their totals end the output; the flags reach them, with the check's evaluated database."""
    result, text = _plain(_project(tmp_path, {}), security=True, privacy=True)
    lines = text.splitlines()
    warn = lines.index("Warnings:")
    assert lines[warn - 1].startswith("- security scan: 1 error finding(s)")
    assert lines[-3].startswith("- privacy scan: 1 finding(s)")
    assert lines[-2:] == ["Security findings: 1", "Privacy findings: 1"]
    (world, security, privacy), = fake_scans
    assert (security, privacy) == (True, True) and hasattr(world, "relation")
    assert result.exit_code == 1


def test_warnings_never_fail(tmp_path, monkeypatch):
    """A project with only warnings is OK, exit 0, and prints its `Warnings:` block."""
    from analyzer.query import check_legacy  # its scan functions are imported at module top

    monkeypatch.setattr(check_legacy, "legacy_scan_lines", lambda world, *, security, privacy: ([], [], []))
    monkeypatch.setattr(check_legacy, "gather", lambda project: {})
    import importlib.util

    spec = importlib.util.spec_from_file_location("corpus_project", REPO / "tests" / "corpus" / "corpus_project.py")
    corpus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(corpus)
    root = tmp_path / "w"
    shutil.copytree(corpus.BASE, root)
    mem = root / "docs" / "memory"
    # the corpus manifest, mentioning rules/ and profiles/ (declared modules present)
    spec = {"rules": [{"path": "rules/a.md", "activation": "explicit-only"}],
            "profiles": [{"path": "profiles/b.md", "activation": "explicit-only"}]}
    (mem / "manifest.md").write_text(corpus.manifest_text(spec), encoding="utf-8")
    for rel in ("rules/a.md", "profiles/b.md"):
        (mem / rel).parent.mkdir()
        (mem / rel).write_text("# Module\n\nNothing yet.\n", encoding="utf-8")
    (mem / "inbox.md").write_text("# Memory Inbox\n\n- Maybe a louder bell.\n", encoding="utf-8")
    result, text = _plain(root)
    assert text == ("MemoryCustodian check: OK\nWarnings:\n"
                    "- inbox.md: 1 legacy entry remain readable without structured Evidence\n")
    assert result.exit_code == 0


def test_plain_check_reports_secrets(tmp_path):
    """The issue's example: a GitHub token, an AWS key, a private key header and a credential
    URL in a memory file are `security scan: 4 error finding(s)` and exit 1 (§9.8.6)."""
    secrets = ("\n- token " + "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4" + "\n- key " + "AKIA" + "ABCDEFGHIJKLMNOP"
               + "\n- -----BEGIN " + "PRIVATE KEY-----\n- mirror https://deploy:" + "hunter2pass@git.example.org/r.git\n")
    text = (EXAMPLE / "docs" / "memory" / "brief.md").read_text(encoding="utf-8") + secrets
    result, out = _plain(_project(tmp_path, {"brief.md": text}))
    assert "- security scan: 4 error finding(s); run `analyze check --security` for redacted locations" in out
    assert result.exit_code == 1


def test_missing_manifest(tmp_path, analyze):
    """No manifest: the core-file line and the metadata line, and no other manifest rule."""
    proc = analyze("check", "--project-root", str(_project(tmp_path, {"manifest.md": None})))
    lines = proc.stdout.splitlines()
    assert lines[:3] == ["MemoryCustodian check: FAILED", "- manifest.md: missing required core file",
                         "- manifest.md: invalid protocol metadata [MC-ROUTING-007 INVALID]: manifest.md is missing."]
    assert not [x for x in lines if "policy mention" in x or "required route file" in x]
    assert "- manifest.md: rules/ exists but manifest does not describe when to load it" in lines
    assert proc.returncode == 1


def test_lexical_error_aborts(tmp_path, analyze):
    """A Markdown lexical error in a managed file: `Error: …` on stderr, exit 2, no stdout."""
    text = (EXAMPLE / "docs" / "memory" / "decisions.md").read_text(encoding="utf-8") + "\n```\nnever closed\n"
    proc = analyze("check", "--project-root", str(_project(tmp_path, {"decisions.md": text})))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("Error: docs/memory/decisions.md:") and "Unclosed fenced code block" in proc.stderr


def test_flags_are_ignored_with_a_family_flag(acme, analyze):
    """`--security`/`--privacy` act only on plain check (§9.8)."""
    plain = analyze("check", "--routing", "--project-root", str(acme))
    flagged = analyze("check", "--routing", "--security", "--privacy", "--project-root", str(acme))
    assert (flagged.stdout, flagged.returncode) == (plain.stdout, plain.returncode)


ENTRY = """# Decisions

## MC-DEC-20270107-0d0d0d01 — Many defects

Status: done
Status: active
Scope: Project
Owner: someone
Zeta: z
Subject:
Evidence:
- agent-observed
Superseded-By: MC-DEC-20270107-0d0d0d02
Candidate-Type: decision

Constraint:
Wrong body.
"""


def test_entry_lines_follow_the_reference_order(tmp_path):
    """One entry's lines in §9.8.4 order: unknown fields (sorted), empty scalars, counts,
    invalid Status/Scope, duplicates, typed body, lifecycle, candidate rule, storage, Evidence."""
    _result, text = _plain(_project(tmp_path, {"decisions.md": ENTRY}))
    e = "- decisions.md: MC-DEC-20270107-0d0d0d01 "
    got = [x[len(e):] for x in text.splitlines() if x.startswith(e)]
    assert got == [
        "has unknown field Owner",
        "has unknown field Zeta",
        "Subject must not be empty",
        "must declare exactly one Status field (found 2)",
        "has invalid Scope 'Project'",
        "has duplicate Status fields",
        "must declare exactly one Decision typed body (found 0)",
        "uses Constraint body but its Entry ID/storage requires Decision",
        "active lifecycle conflicts with terminal relation fields",
        "non-candidate lifecycle cannot declare Candidate-Type",
        "project storage requires Scope: project",
        "has invalid Evidence schema or unsafe source path",
        # a warning: the last `Status:` (active) is the entry's status, and Subject is empty
        "legacy Subject/Facet coverage is incomplete",
    ]
