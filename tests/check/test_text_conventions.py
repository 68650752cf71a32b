"""What people expect of check's text (issue 25 item 5): ``--format concise`` in ruff's
``path:line:col: CODE message`` convention, filtered runs that say what they hide and give the
status of what they show, and ``--with-proofs`` under each finding in text too."""

from __future__ import annotations

import re


def test_concise_is_one_located_line_per_finding(acme, analyze):
    proc = analyze("check", "--all", "--format", "concise", "--project-root", str(acme))
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1
    assert lines[-1] == f"Found {len(lines) - 1} findings: INVALID (exit 1)"
    for line in lines[:-1]:
        assert re.match(r"^docs/memory/\S+\.md:\d+:\d+: M[CA]-[A-Z0-9-]+ \S", line), line
    assert any(" MC-ROUTING-005 Enabled optional module is missing: areas/payments.md (WARNING)" in l for l in lines)


def test_filtered_text_gives_the_status_of_what_it_shows(acme, analyze):
    proc = analyze("check", "--all", "--ignore", "MC-FRESH", "--ignore", "MC-CONFLICT", "--ignore", "MA-LEGACY",
                   "--project-root", str(acme))
    assert proc.returncode == 0
    # nothing FAILED is left on screen, and the text says what it left out
    assert "MemoryCustodian freshness check: OK\n- no findings" in proc.stdout
    assert "Conflict status: CLEAR" in proc.stdout
    assert re.search(r"\n\d+ finding\(s\) hidden by --select/--ignore/--baseline; exit 0 by --fail-on conflict\n$",
                     proc.stdout)
    unfiltered = analyze("check", "--all", "--project-root", str(acme))
    assert "hidden by" not in unfiltered.stdout and "freshness check: FAILED" in unfiltered.stdout


def test_every_filtered_block_and_the_concise_total_give_the_status_of_what_they_show(acme, analyze):
    """The legacy block, the scan blocks and concise's last line said FAILED over nothing shown
    (`MemoryCustodian security check: FAILED` / `- no findings`, `Found 1 finding: FAILED`)."""
    brief = acme / "docs" / "memory" / "brief.md"
    brief.write_text(brief.read_text(encoding="utf-8") + "\n- token: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
                     encoding="utf-8")
    unfiltered = analyze("check", "--all", "--project-root", str(acme))
    assert "MemoryCustodian security check: FAILED" in unfiltered.stdout
    proc = analyze("check", "--all", "--ignore", "MA-SECRET", "--project-root", str(acme))
    assert "MemoryCustodian security check: OK\n- no findings" in proc.stdout
    proc = analyze("check", "--all", "--select", "MA-SECRET", "--project-root", str(acme))
    assert "\nMemoryCustodian check: OK\n" in proc.stdout  # the legacy block: none of its lines shown
    assert "MemoryCustodian security check: FAILED\n- MA-SECRET-GITHUB-TOKEN ERROR" in proc.stdout
    proc = analyze("check", "--all", "--format", "concise", "--select", "MC-ROUTING-005", "--project-root", str(acme))
    assert (proc.returncode, proc.stdout.splitlines()[-1]) == (0, "Found 1 finding: OK (exit 0)")
    proc = analyze("check", "--all", "--format", "concise", "--select", "MC-CONFLICT-001", "--project-root", str(acme))
    assert (proc.returncode, proc.stdout.splitlines()[-1]) == (1, "Found 1 finding: CONFLICT (exit 1)")


def test_with_proofs_shows_a_summary_in_text(acme, analyze):
    proc = analyze("check", "--conflicts", "--with-proofs", "--project-root", str(acme))
    lines = proc.stdout.splitlines()
    at = next(i for i, l in enumerate(lines) if l.startswith("- MC-CONFLICT-001 "))
    assert lines[at + 1].startswith("  proof: check_conflict_finding by rules/")
    assert re.match(r"    - entry\(.*\) at docs/memory/constraints\.md:\d+:1$", lines[at + 2])
    plain = analyze("check", "--conflicts", "--project-root", str(acme))
    assert "proof:" not in plain.stdout
