"""A file in the memory directory that no route can load is reported by the reachability
check (issue 24 item 2: nothing in the memory dir changes unseen, and nothing sits there
unloaded without a word): MA-REACH-STRAY, a warning at the file."""

from __future__ import annotations

import json


def _findings(analyze, root):
    proc = analyze("check", "--reachability", "--format", "json", "--project-root", str(root))
    return proc, [f for f in json.loads(proc.stdout)["findings"] if f["code"] == "MA-REACH-STRAY"]


def test_a_stray_file_is_a_warning_at_the_file(acme, analyze):
    (acme / "docs" / "memory" / "notes.md").write_text("# Notes\n\n- rotate keys monthly\n", encoding="utf-8")
    proc, found = _findings(analyze, acme)
    assert proc.returncode == 0  # a warning: the check still passes
    assert [f["severity"] for f in found] == ["WARNING"]
    assert found[0]["locations"][0]["path"] == "docs/memory/notes.md"
    assert "notes.md is in the memory directory, but no route or optional module declaration loads it." \
        == found[0]["message"]


def test_routed_control_archive_and_readme_files_are_quiet(acme, analyze):
    memory = acme / "docs" / "memory"
    (memory / "plan.md").write_text("# Plan\n", encoding="utf-8")
    (memory / "archive" / "README.md").write_text("# Archive\n", encoding="utf-8")
    assert _findings(analyze, acme)[1] == []


def test_a_stray_file_with_an_active_entry_is_mc_reach_001_only(acme, analyze):
    # the entry-level finding already names it; no second finding for its file
    text = (acme / "docs" / "memory" / "decisions.md").read_text(encoding="utf-8")
    (acme / "docs" / "memory" / "orphan.md").write_text(text, encoding="utf-8")
    proc = analyze("check", "--reachability", "--format", "json", "--project-root", str(acme))
    codes = {f["code"] for f in json.loads(proc.stdout)["findings"]}
    assert "MC-REACH-001" in codes and "MA-REACH-STRAY" not in codes
