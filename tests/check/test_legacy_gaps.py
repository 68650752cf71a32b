"""Plain `check` where it differed from the reference's legacy check (issue 31 leftovers):
relation lines in the reference's own words (§9.8.5), repeated Status fields (the value map's
last occurrence wins), README files, the overlay Scope rule, route names escaping through a
symlink, and the inbox count. Each test builds a small project on the corpus base."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Dict, List

from analyzer.query.check import CheckRequest, run_check
from analyzer.render.check_text import render_check_text

REPO = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("corpus_project_gaps", REPO / "tests" / "corpus" / "corpus_project.py")
corpus = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(corpus)

SUBJ = "MC-SUBJ-20270105-0000a001"


def project(tmp_path: Path, files: Dict[str, str], manifest=None) -> Path:
    """The corpus base project with memory files ``files`` written over it."""
    root = tmp_path / "p"
    corpus.build_project(tmp_path / "no-such-case", root)
    mem = root / "docs" / "memory"
    if manifest is not None:
        (mem / "manifest.md").write_text(corpus.manifest_text(manifest), encoding="utf-8")
    for rel, text in files.items():
        (mem / rel).parent.mkdir(parents=True, exist_ok=True)
        (mem / rel).write_text(text, encoding="utf-8")
    return root


def plain(root: Path) -> List[str]:
    """The lines of plain `check` (no scans' flags)."""
    result = run_check(CheckRequest(["legacy"], root, use_cache=False, options={}))
    return render_check_text(result).splitlines()


def entry(ident: str, status: str = "active", extra: str = "", body: str = "Decision",
          scope: str = "project", subject: str = SUBJ, facet: str = "behavior") -> str:
    """One formal entry's text."""
    ident_lines = (f"Subject: {subject}\nFacet: {facet}\n" if subject else "")
    return (f"## {ident} — Entry {ident[-4:]}\n\nStatus: {status}\nScope: {scope}\n{ident_lines}{extra}"
            f"Evidence:\n- user-confirmed\n\n{body}:\nText of {ident[-4:]}.\n\n")


A, B, C, D = ("MC-DEC-20270107-0d0d0d0a", "MC-DEC-20270107-0d0d0d0b", "MC-DEC-20270107-0d0d0d0c",
              "MC-DEC-20270107-0d0d0d0d")


def relation_lines(lines: List[str]) -> List[str]:
    return [x[2:] for x in lines if x.startswith("- MC-DEC-") or x.startswith("- supersession")]


def test_relation_lines_use_the_reference_words(tmp_path):
    """§9.8.5: the relation validator's own text — the relation named, targets as written,
    `relation is not reciprocal`, identity, and each line once, sorted."""
    text = ("# Decisions\n\n"
            + entry(A, extra=f"Supersedes: {B.upper()}\n")             # B does not name A back
            + entry(B, status="superseded", extra=f"Superseded-By: {C}\n", facet="security")
            + entry(C, extra="Promoted-To: MC-INBOX-20270107-0d0d0d0f\n"))
    lines = plain(project(tmp_path, {"decisions.md": text}))
    assert relation_lines(lines) == [
        f"{A} Supersedes must preserve Scope+Subject+Facet identity",
        f"{A} Supersedes relation is not reciprocal",
        f"{B} Superseded-By must preserve Scope+Subject+Facet identity",
        f"{B} Superseded-By relation is not reciprocal",
        f"{C} Promoted-To references missing entry MC-INBOX-20270107-0d0d0d0f",
    ]


def test_supersession_cycle_and_chain(tmp_path):
    """A cycle is one line from its smallest ID; a chain ending at a superseded entry without
    Superseded-By is reported at its first start (and the end entry itself)."""
    text = ("# Decisions\n\n"
            + entry(B, status="superseded", extra=f"Superseded-By: {A}\nSupersedes: {A}\n")
            + entry(A, status="superseded", extra=f"Superseded-By: {B}\nSupersedes: {B}\n")
            + entry(C, status="superseded", extra=f"Superseded-By: {D}\n")
            + entry(D, status="superseded", extra=f"Supersedes: {C}\n"))
    lines = plain(project(tmp_path, {"decisions.md": text}))
    assert relation_lines(lines) == [
        f"{C} supersession chain does not terminate at an active replacement",
        f"{D} supersession chain does not terminate at an active replacement",
        f"supersession cycle detected: {A} -> {B} -> {A}",
    ]


def test_repeated_status_last_one_wins(tmp_path):
    """Two `Status:` lines: the count and duplicate lines, and every rule reads the last value
    (here `active`: the active-entry Evidence rule applies)."""
    text = ("# Decisions\n\n## " + A + " — Twice\n\nStatus: superseded\nStatus: active\nScope: project\n"
            f"Subject: {SUBJ}\nFacet: behavior\nEvidence:\n- agent-observed\n\nDecision:\nTwice.\n")
    lines = plain(project(tmp_path, {"decisions.md": text}))
    assert f"- decisions.md: {A} must declare exactly one Status field (found 2)" in lines
    assert f"- decisions.md: {A} has duplicate Status fields" in lines
    assert f"- decisions.md: active entry {A} has only unconfirmed Evidence" in lines


README = f"""# Rules

- one legacy bullet

## MC-AREA-20270107-0d0d0d0e — Example rule

Status: active
Scope: area:x
Evidence:
- user-confirmed

Decision:
Body of the wrong kind.

## MC-DEC-20270107-0d0d0d0f - malformed heading
"""


def test_readme_files_are_entry_files_for_plain_check(tmp_path):
    """§9.8.4: the reference entry-parses README files too (storage by path: a
    rules/README.md entry gets the rule rules) and counts their legacy units; an archive
    README's lexical error is an issue line, not an abort (§9.8.1)."""
    root = project(tmp_path, {"rules/README.md": README, "archive/README.md": "# Archive\n\n```\nnever closed\n"},
                   manifest={"rules": [{"path": "rules/a.md", "activation": "explicit-only"}]})
    lines = plain(root)
    r = "- rules/README.md: "
    assert [x for x in lines if x.startswith(r) or x.startswith("- archive/")] == [
        "- archive/README.md: Markdown entry parsing failed: Unclosed fenced code block",
        r + "malformed Entry heading '## MC-DEC-20270107-0d0d0d0f - malformed heading'; expected `## <ENTRY_ID> — <title>`",
        r + "MC-AREA-20270107-0d0d0d0e must declare exactly one Rule typed body (found 0)",
        r + "MC-AREA-20270107-0d0d0d0e uses Decision body but its Entry ID/storage requires Rule",
        r + "MC-AREA-20270107-0d0d0d0e rule storage requires Scope: project",
        r + "MC-AREA-20270107-0d0d0d0e legacy Subject/Facet coverage is incomplete",
        r + "1 legacy entry remain readable without structured Evidence",
    ]
    # READMEs are never relation operands, owners or cross-file duplicates
    assert not [x for x in lines if "MC-AREA-20270107-0d0d0d0e" in x and not x.startswith(r)]


def test_readme_lexical_error_outside_archive_aborts(tmp_path):
    """§9.8.1: a lexical error in a README outside archive/ aborts like any managed file's."""
    root = project(tmp_path, {"README.md": "# Memory\n\n```\nnever closed\n"})
    result = run_check(CheckRequest(["legacy"], root, use_cache=False, options={}))
    assert result.exit_code == 2 and result.failure.message.startswith("Error: docs/memory/README.md:3:1: MA-MARKDOWN")


def test_overlay_entry_with_a_shared_scope(tmp_path, monkeypatch):
    """§9.8.5, the first project-wide rule: `local/<module>: <ID> has non-local Scope <scope!r>`
    for an entry of a BOUND or REVIEW overlay's declared module, before the overlay's own
    REVIEW lines; a local Scope is quiet."""
    import json

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    root = project(tmp_path, {})
    text = corpus.LOCAL_PREFERENCES.replace("Scope: local-user", "Scope: Project")
    case = tmp_path / "case"
    case.mkdir()
    (case / "state.json").write_text(json.dumps({"roots": ["<root>"], "preferences": text}), encoding="utf-8")
    corpus.write_overlay(case, tmp_path / "state", root)
    lines = plain(root)
    line = "- local/preferences.md: MC-PREF-20270110-0e0e0e01 has non-local Scope 'Project'"
    assert line in lines
    later = [x for x in lines if x.startswith("- local overlay: ")]
    assert later and lines.index(line) < lines.index(later[0])
    (tmp_path / "state" / "memory-custodian" / "projects" / corpus.PROJECT_ID / "local" / "preferences.md").write_text(
        corpus.LOCAL_PREFERENCES, encoding="utf-8")
    assert not [x for x in plain(root) if "non-local Scope" in x]


def test_route_name_escaping_through_a_symlink(tmp_path):
    """§9.8.3: a route name that resolves outside the memory dir (a symlinked subdirectory)
    is `manifest.md: memory path escapes the configured memory directory: <name!r>` instead
    of a missing route file; nothing behind the link is read."""
    root = project(tmp_path, {})
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "notes.md").write_text("# Notes\n", encoding="utf-8")
    (root / "docs" / "memory" / "linked").symlink_to("../../elsewhere", target_is_directory=True)
    mem = root / "docs" / "memory" / "manifest.md"
    text = mem.read_text(encoding="utf-8")
    head = "### Implementation / execution / debugging\nLoad:\n"
    assert head in text
    mem.write_text(text.replace(head, head + "- linked/notes.md\n", 1), encoding="utf-8")
    lines = plain(root)
    assert "- manifest.md: memory path escapes the configured memory directory: 'linked/notes.md'" in lines
    assert not [x for x in lines if "required route file is missing: linked/notes.md" in x]


def _inbox(n: int, form: str) -> str:
    units = []
    for k in range(n):
        ident = f"MC-INBOX-20270107-{k:08x}"
        head = f"## {ident} — Item {k}" if form == "canonical" else f"## {ident.lower()} - item {k}"
        status = "Status: candidate" if form == "canonical" else "status:   CANDIDATE  "
        units.append(f"{head}\n\n{status}\nCandidate-Type: decision\nScope: project\nEvidence:\n- agent-observed\n\n"
                     f"Statement:\nItem {k}.\n\nPromotion-Requirement:\nAsk.\n")
    return "# Memory Inbox\n\n" + "\n".join(units)


def test_inbox_count_reads_units_as_the_reference(tmp_path):
    """§9.8.5: an h2 whose heading names an MC-INBOX ID, canonical or not, with a visible
    `Status: candidate` line in any case counts, as bullets do: 31 such units warn."""
    lines = plain(project(tmp_path, {"inbox.md": _inbox(31, "loose")}))
    assert "- inbox.md: 31 items, compaction recommended" in lines
    lines = plain(project(tmp_path / "b", {"inbox.md": _inbox(30, "loose")}))
    assert not [x for x in lines if "compaction recommended" in x]


def test_plain_check_evaluates_once(tmp_path, monkeypatch):
    """The scans of pass 5 read the check's own evaluated database: plain `check` evaluates
    the rules once (it evaluated them a second time for the scan lines)."""
    from analyzer.query import check as check_module

    calls = []
    real = check_module.check_program

    class Counting:
        def __init__(self, engine):
            self._engine = engine

        def __getattr__(self, name):
            return getattr(self._engine, name)

        def evaluate(self, *args, **kwargs):
            calls.append(kwargs.get("only"))
            return self._engine.evaluate(*args, **kwargs)

    monkeypatch.setattr(check_module, "check_program", lambda use_cache=True: Counting(real(use_cache)))
    secret = "- token " + "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4\n"
    lines = plain(project(tmp_path, {"brief.md": "# Brief\n\n" + secret}))
    assert [x for x in lines if x.startswith("- security scan: 1 error finding(s)")]
    assert len(calls) == 1, calls
