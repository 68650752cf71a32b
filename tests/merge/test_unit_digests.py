"""Unit digests stored per file (analyzer/history/unit_digests.py): the merge review gets the same
``git_unit`` rows, findings and locations from the store as from digesting every unit, and
a merge base none of whose units a finding names is then not even parsed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import gitsteps
from corpus_project import CORPUS, build_project, write_history
from analyzer.history import revisions
from analyzer.history.git import Repo
from analyzer.query.merge import run_merge_review
from analyzer.history.unit_digests import unit_rows

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")
ENTRY = ("## {id} — {title}\n\nStatus: active\nScope: project\nSubject: MC-SUBJ-20270105-0000a001\n"
         "Facet: {facet}\nEvidence:\n- user-confirmed\n\nDecision:\n{title}.\n")


def _corpus_history(tmp_path: Path, code: str) -> Path:
    case = CORPUS / code / "fires"
    root = build_project(case, tmp_path / "project")
    write_history(case, root, dict(os.environ))
    return root


def _parses(monkeypatch) -> list:
    """The revisions parsed from now on (one item per :func:`load_texts` call)."""
    calls = []
    real = revisions.load_texts
    monkeypatch.setattr(revisions, "load_texts", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def _same_reviews(root: Path, tmp_path: Path, monkeypatch):
    """The review without any cache, then cold and warm through the store: all the same."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    plain = run_merge_review(root, "docs/memory", "right", use_cache=False)
    parsed = _parses(monkeypatch)
    cold = run_merge_review(root, "docs/memory", "right", use_cache=True)
    cold_parses = len(parsed)
    warm = run_merge_review(root, "docs/memory", "right", use_cache=True)
    for review in (cold, warm):
        assert (review.status, review.findings, review.exit_code) == (plain.status, plain.findings, plain.exit_code)
    assert plain.findings and any(finding.locations for finding in plain.findings)
    return plain, cold_parses, len(parsed) - cold_parses


def test_stored_digests_spare_parsing_a_merge_base_no_finding_names(tmp_path, monkeypatch):
    plain, cold, warm = _same_reviews(_corpus_history(tmp_path, "MC-MERGE-REVIEW-001"), tmp_path, monkeypatch)
    assert {label for finding in plain.findings for label, _commit in finding.revisions} == {"HEAD", "right"}
    assert (cold, warm) == (3, 2), "cold: base, HEAD and right parsed; warm: the sides only"


def test_a_deleted_entry_shown_from_the_merge_base(tmp_path, monkeypatch):
    plain, _cold, warm = _same_reviews(_corpus_history(tmp_path, "MC-MERGE-REVIEW-006"), tmp_path, monkeypatch)
    assert "merge base" in {label for finding in plain.findings for label, _commit in finding.revisions}
    assert warm == 3, "the merge base is parsed: a finding shows its entry"


def test_an_id_held_twice_at_every_revision(tmp_path, monkeypatch):
    dup = ENTRY.format(id="MC-DEC-20270107-0d0d0d09", title="Tea is weighed", facet="weight")
    base = {"docs/memory/decisions.md": "# Decisions\n\n" + dup,
            "docs/memory/more-decisions.md": "# More decisions\n\n" + dup}
    right = {"docs/memory/more-decisions.md": "# More decisions\n\n" + dup + "\n"
             + ENTRY.format(id="MC-DEC-20270107-0d0d0d0a", title="Water is filtered", facet="water")}
    root = build_project(tmp_path / "no-case", tmp_path / "project")
    gitsteps.run_steps(root, gitsteps.two_sided_steps({"base": base, "right": right}), dict(os.environ))
    plain, _cold, _warm = _same_reviews(root, tmp_path, monkeypatch)
    messages = [finding.message for finding in plain.findings]
    for label in ("merge base", "HEAD", "right"):
        assert f"{label} has duplicate Entry ID MC-DEC-20270107-0d0d0d09; canonical lookup is unsafe" in messages
    located = {(label, loc.path) for finding in plain.findings
               for (label, _commit), loc in zip(finding.revisions, finding.locations)}
    assert ("merge base", "docs/memory/more-decisions.md") in located


def test_stored_rows_are_the_digested_rows(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = _corpus_history(tmp_path, "MC-MERGE-REVIEW-001")
    repo = Repo(str(root))
    specs = [("base", repo.merge_base(repo.commit("HEAD"), repo.commit("right")), "merge base"),
             ("left", repo.commit("HEAD"), "HEAD"), ("right", repo.commit("right"), "right")]
    digested = {}
    for revision in revisions.read_revisions(repo, specs, "docs/memory", use_cache=False):
        digested[revision.rev] = sorted(unit_rows(revision))
        assert sorted(unit_rows(revision, use_cache=True)) == digested[revision.rev]  # digested, then stored
    assert all(digested.values())
    lazy = revisions.read_revisions(repo, specs, "docs/memory", use_cache=True, lazy=["base", "left", "right"])
    for revision in lazy:
        assert sorted(unit_rows(revision, use_cache=True)) == digested[revision.rev]
        assert not revision.loaded, "every file's rows came from the store"


MERGE_CASES = sorted(str(path.relative_to(CORPUS)) for path in CORPUS.glob("MC-MERGE*/*") if (path / "git.json").is_file())


def _without_common_files(monkeypatch):
    """From now on every unit is listed per revision in git_unit (no git_common_unit)."""
    from analyzer.query import merge

    monkeypatch.setattr(merge, "_common_units", lambda revisions, use_cache: (set(), []))


def _common_and_plain(root: Path, monkeypatch):
    """The review with the units of shared files listed once, and with every unit listed
    per revision: they must be the same review."""
    from analyzer.query import merge

    seen = []
    real = merge._common_units
    monkeypatch.setattr(merge, "_common_units", lambda *a: seen.append(real(*a)) or seen[-1])
    common = run_merge_review(root, "docs/memory", "right", use_cache=False)
    assert seen and seen[0][0] and seen[0][1], "some file is common to the three revisions"
    _without_common_files(monkeypatch)
    plain = run_merge_review(root, "docs/memory", "right", use_cache=False)
    assert (common.status, common.findings, common.exit_code) == (plain.status, plain.findings, plain.exit_code)
    return plain


@pytest.mark.parametrize("case", MERGE_CASES)
def test_units_of_common_files_listed_once_change_nothing(tmp_path, monkeypatch, case):
    code, kind = case.split("/")
    root = build_project(CORPUS / case, tmp_path / "project")
    write_history(CORPUS / case, root, dict(os.environ))
    review = _common_and_plain(root, monkeypatch)
    assert (code in {finding.code for finding in review.findings}) == (kind == "fires")


def test_ids_held_twice_in_and_across_common_files(tmp_path, monkeypatch):
    """An ID twice in one common file, and an ID in a common file and in a changed one."""
    twice = ENTRY.format(id="MC-DEC-20270107-0d0d0d0b", title="Cups are warmed", facet="cups")
    once = ENTRY.format(id="MC-DEC-20270107-0d0d0d0c", title="Lids stay on", facet="lids")
    base = {"docs/memory/twice.md": "# Twice\n\n" + twice + "\n" + twice,
            "docs/memory/shared.md": "# Shared\n\n" + once, "docs/memory/moved.md": "# Moved\n\n" + once}
    right = {"docs/memory/moved.md": "# Moved\n\n" + once.replace("Lids stay on.", "Lids stay on, always.")}
    left = {"docs/memory/moved.md": "# Moved\n\nNothing here any more.\n"}
    root = build_project(tmp_path / "no-case", tmp_path / "project")
    gitsteps.run_steps(root, gitsteps.two_sided_steps({"base": base, "right": right, "left": left}),
                       dict(os.environ))
    review = _common_and_plain(root, monkeypatch)
    messages = [finding.message for finding in review.findings]
    for label in ("merge base", "HEAD", "right"):
        assert f"{label} has duplicate Entry ID MC-DEC-20270107-0d0d0d0b; canonical lookup is unsafe" in messages
    assert "merge base has duplicate Entry ID MC-DEC-20270107-0d0d0d0c; canonical lookup is unsafe" in messages
    assert not any("deletion while" in message for message in messages), "the entry is still in shared.md"
