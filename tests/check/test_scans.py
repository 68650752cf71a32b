"""The security, privacy and hidden-text scans of `analyze check` (spec §9.8.6 and ours):
plain check's lines (analyzer/query/scans.py legacy_scan_lines), which files are scanned (READMEs,
archive and undeclared files, the local overlay only when BOUND or REVIEW, agent instruction
files for hidden text), the families of `check --all`, and that no output of any format ever
shows a matched secret."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

import pytest

from analyzer.project.loader import load_project
from analyzer.query.scans import legacy_scan_lines

GH = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8"
AWS = "AKIAQWERTYUIOPASDFGH"
PASSWORD = "hunter2pass"
ANTHROPIC = "sk-ant-" + "Qm9vQm9vQm9vQm9vQm9vQm9v"
OPENAI = "sk-proj-" + "T3BlbkFJT3BlbkFJT3BlbkFJ"
BEARER = "eyJhbGciOiJIUzI1NiJ9abcdefgh"
ENV = "s3cr3tEnvValue42"
ASSIGNED = "Tr0ub4dor3xyz"
#: every secret's text, none of which any output may show
SECRETS = (GH, AWS, PASSWORD, ANTHROPIC, OPENAI, BEARER, ENV, ASSIGNED, "BEGIN RSA PRIVATE KEY")
SECRET_LINES = [
    f"- token {GH} here",
    f"- aws {AWS} key",
    "-----BEGIN RSA PRIVATE KEY-----",
    f"- mirror https://deploy:{PASSWORD}@git.example.org/repo.git",
    f"- keys {OPENAI} and {ANTHROPIC}",
    f"- header Authorization: Bearer {BEARER}",
    f"- db password={ASSIGNED}",
]


def _append(root: Path, module: str, lines) -> int:
    """Append lines to a memory file; the line number of the first one."""
    path = root / "docs" / "memory" / module
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if text and not text.endswith("\n"):
        text += "\n"
    first = text.count("\n") + 2
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return first


@pytest.fixture
def state(tmp_path, monkeypatch):
    """A private XDG_STATE_HOME (no overlay unless a test makes one)."""
    home = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


def _lines(root: Path, **flags):
    return legacy_scan_lines(load_project(root, use_cache=False), security=flags.get("security", False),
                             privacy=flags.get("privacy", False))


def test_the_clean_example_has_no_scan_lines(acme, state):
    assert _lines(acme) == ([], [], [])
    assert _lines(acme, security=True, privacy=True) == ([], [], ["Security findings: 0", "Privacy findings: 0"])


def test_spec_example_with_both_flags(acme, state):
    """§9.8.6: line 10 of decisions.md, an issue and a warning with one preview."""
    path = acme / "docs" / "memory" / "decisions.md"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[9] = "- mirror https://deploy:hunter2pass@git.example.org/repo.git"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    issues, warnings, tail = _lines(acme, security=True, privacy=True)
    assert "decisions.md:10: credential-url: - mirror [redacted]/repo.git" in issues
    assert "decisions.md:10: personal-email: - mirror [redacted]/repo.git" in warnings
    assert tail == ["Security findings: 1", "Privacy findings: 1"]


def test_summary_lines_without_flags(acme, state):
    _append(acme, "decisions.md", [f"- token {GH}", "- db password = <yours>", "- mail ops@corp.io"])
    _append(acme, "preferences.md", ["- my logs are in /home/alice/logs"])
    issues, warnings, tail = _lines(acme)
    assert issues == ["security scan: 1 error finding(s); run `analyze check --security` for redacted locations"]
    assert warnings == [
        "security scan: 1 warning finding(s); run `analyze check --security` for redacted locations",
        "preferences.md: contains a machine-specific absolute path; run `analyze check --privacy` for redacted "
        "locations",
        "privacy scan: 2 finding(s); run `analyze check --privacy` for redacted locations",
    ]
    assert tail == []


def test_detail_lines_in_scan_order_and_flags_apart(acme, state):
    """Files in inventory order (README, archive and undeclared files too), then line, then
    table order; --security leaves the privacy summary, --privacy the security summary."""
    a = _append(acme, "zz-undeclared.md", [f"- {AWS}"])
    b = _append(acme, "archive/README.md", [f"- {GH} and ops@corp.io"])
    c = _append(acme, "manifest.md", [f"- {OPENAI}"])
    issues, warnings, tail = _lines(acme, security=True)
    assert issues == [f"archive/README.md:{b}: github-token: - [redacted] and [redacted]",
                      f"manifest.md:{c}: openai-key: - [redacted]",
                      f"zz-undeclared.md:{a}: aws-access-key: - [redacted]"]
    assert warnings == ["privacy scan: 1 finding(s); run `analyze check --privacy` for redacted locations"]
    assert tail == ["Security findings: 3"]
    issues, warnings, tail = _lines(acme, privacy=True)
    assert issues == ["security scan: 3 error finding(s); run `analyze check --security` for redacted locations"]
    assert warnings == [f"archive/README.md:{b}: personal-email: - [redacted] and [redacted]"]
    assert tail == ["Privacy findings: 1"]


def test_anthropic_key_is_two_findings(acme, state):
    n = _append(acme, "decisions.md", [f"- {ANTHROPIC}"])
    issues, _, _ = _lines(acme, security=True)
    assert issues == [f"decisions.md:{n}: openai-key: - [redacted]", f"decisions.md:{n}: anthropic-key: - [redacted]"]


def _overlay(root: Path, state: Path, mode: int = 0o600, bound: bool = True) -> None:
    """The overlay of tests/read/test_overlay_modes.py, its preferences holding a token, bound
    to this root or to another."""
    spec = importlib.util.spec_from_file_location("overlay_modes", Path(__file__).parents[1] / "read" /
                                                  "test_overlay_modes.py")
    modes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modes)
    local = modes._overlay(root, state, mode)
    prefs = local / "preferences.md"
    prefs.chmod(0o600)
    prefs.write_text(prefs.read_text(encoding="utf-8").replace("Keep answers terse.", f"Use {GH}."), encoding="utf-8")
    prefs.chmod(mode)
    if not bound:
        bindings = local.parent / "bindings.json"
        data = json.loads(bindings.read_text(encoding="utf-8"))
        bindings.write_text(json.dumps({**data, "roots": ["/elsewhere"]}), encoding="utf-8")


@pytest.mark.parametrize("mode,bound,scanned", [(0o600, True, True), (0o644, True, True), (0o600, False, False)])
def test_overlay_modules_are_scanned_when_bound_or_in_review(acme, state, mode, bound, scanned):
    """BOUND (private) and REVIEW (a world-readable module) overlays are scanned, as
    `local/<module>`; an overlay not bound to this root is not."""
    _overlay(acme, state, mode, bound)
    issues, _, _ = _lines(acme, security=True)
    assert (issues == ["local/preferences.md:11: github-token: Use [redacted]."]) is scanned, issues


def test_a_line_too_long_is_a_security_error(acme, state):
    n = _append(acme, "decisions.md", ["x" * 70000])
    issues, _, tail = _lines(acme, security=True)
    assert issues == [f"decisions.md:{n}: unscanned-line: [line of 70000 characters not scanned]"]


# ---- check --all families and every output format --------------------------------------------


def _secret_project(acme: Path) -> None:
    _append(acme, "decisions.md", SECRET_LINES)
    _append(acme, "constraints.md", ["```", f"STRIPE_SECRET_KEY={ENV}", "```"])
    _append(acme, "areas/web.md", ["- ops@corp.io at /Users/bob/x, call +1 (555) 123-4567"])
    _append(acme, "brief.md", ["- hid\u202eden and \U000e0041\U000e0042 tags"])
    (acme / "AGENTS.md").write_text("Read docs/memory/manifest.md.\u200b\n", encoding="utf-8")
    (acme / ".cursor" / "rules").mkdir(parents=True)
    (acme / ".cursor" / "rules" / "x.mdc").write_text("ok\nsay \u2066this\u2069\n", encoding="utf-8")


def test_check_all_families_carry_each_finding_with_its_place(acme, analyze):
    _secret_project(acme)
    run = analyze("check", "--all", "--format", "json", "--project-root", str(acme), "--no-cache")
    doc = json.loads(run.stdout)
    assert run.returncode == 1
    assert doc["families"]["security"] == {"status": "FAILED", "exit_code": 1}
    assert doc["families"]["privacy"] == {"status": "OK", "exit_code": 0}
    assert doc["families"]["hidden-text"] == {"status": "FAILED", "exit_code": 1}
    mine = [(f["family"], f["code"], f["locations"][0]["path"], f["severity"]) for f in doc["findings"]
            if f["family"] in ("security", "privacy", "hidden-text")]
    codes = {code for _, code, _, _ in mine}
    assert {"MA-SECRET-GITHUB-TOKEN", "MA-SECRET-AWS-ACCESS-KEY", "MA-SECRET-PRIVATE-KEY", "MA-SECRET-CREDENTIAL-URL",
            "MA-SECRET-OPENAI-KEY", "MA-SECRET-ANTHROPIC-KEY", "MA-SECRET-BEARER-TOKEN",
            "MA-SECRET-CREDENTIAL-ASSIGNMENT", "MA-SECRET-DOTENV-CREDENTIAL", "MA-PRIVACY-PERSONAL-EMAIL",
            "MA-PRIVACY-MACHINE-PATH", "MA-PRIVACY-PHONE-NUMBER", "MA-HIDDEN-BIDI", "MA-HIDDEN-TAG",
            "MA-HIDDEN-INVISIBLE"} <= codes
    hidden = {(f["locations"][0]["path"], f["locations"][0]["line"], f["locations"][0]["col"]) for f in doc["findings"]
              if f["family"] == "hidden-text"}
    assert ("AGENTS.md", 1, 30) in hidden and (".cursor/rules/x.mdc", 2, 5) in hidden
    assert all(sev == "ERROR" for fam, _, _, sev in mine if fam == "hidden-text")


FORMATS = [("check", "--all", "--format", f) for f in ("text", "json", "sarif", "junit", "github", "markdown")] + [
    ("check", "--all", "--format", "json", "--with-proofs"),
    ("check", "--format", "json"), ("check",), ("check", "--security", "--privacy"),
    ("check", "--conflicts", "--format", "sarif"), ("check", "--freshness"),
    ("report",), ("report", "--format", "json"),
    ("read", "--task", "implementation"), ("read", "--task", "implementation", "--format", "json"),
    ("query", "secret_match(F, L, K, P)"), ("query", "scan_finding(F, O, L, K, KO, C, S, X, P)"),
    ("query", "hidden_finding(F, G, L, C, X, S, M)"),
]


@pytest.mark.parametrize("argv", FORMATS, ids=[" ".join(a) for a in FORMATS])
def test_no_output_ever_shows_a_secret(acme, analyze, argv):
    """Every output format of check, report, read and the scan relations' queries, on a project
    holding each kind of secret: stdout and stderr never hold a secret's text."""
    _secret_project(acme)
    run = analyze(*argv, "--project-root", str(acme), "--no-cache") if argv[0] != "query" else \
        analyze(*argv, "--project-root", str(acme))
    assert run.returncode in (0, 1, 2), run.stderr
    assert run.stdout.strip(), run.stderr
    out = run.stdout + run.stderr
    assert [s for s in SECRETS if s in out] == []


def test_read_warns_and_escapes_hidden_text(acme, analyze):
    _secret_project(acme)
    run = analyze("read", "--task", "implementation", "--project-root", str(acme), "--no-cache")
    assert "\u202e" not in run.stdout and "\U000e0041" not in run.stdout
    assert "hid\\u202eden and \\U000e0041\\U000e0042 tags" in run.stdout
    assert re.search(r"warning: docs/memory/brief\.md:\d+:6: 1 bidi-control character\(s\) \(U\+202E\)", run.stderr)
    assert re.search(r"warning: docs/memory/decisions\.md:\d+: github-token: a secret in loaded memory", run.stderr)


def test_an_agent_file_symlinked_out_of_the_project_is_not_passed(acme, analyze, tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_text("fine\n", encoding="utf-8")
    os.symlink(outside, acme / "CLAUDE.md")
    os.symlink(acme / "docs" / "memory" / "brief.md", acme / "AGENTS.md")  # inside: read
    run = analyze("check", "--all", "--format", "json", "--project-root", str(acme), "--no-cache")
    found = {(f["code"], f["locations"][0]["path"]) for f in json.loads(run.stdout)["findings"]
             if f["family"] == "hidden-text"}
    assert found == {("MA-HIDDEN-UNSCANNED", "CLAUDE.md")}


def test_a_cached_result_sees_a_changed_agent_file(acme, analyze):
    """The result cache keeps the scans' outside inputs: a new hidden character in AGENTS.md
    is seen on the next run, never answered from the cached clean result."""
    first = analyze("check", "--all", "--format", "json", "--project-root", str(acme))
    assert json.loads(first.stdout)["families"]["hidden-text"]["status"] == "OK"
    (acme / "AGENTS.md").write_text("Read the manifest.\u200b\n", encoding="utf-8")
    second = analyze("check", "--all", "--format", "json", "--project-root", str(acme))
    assert json.loads(second.stdout)["families"]["hidden-text"]["status"] == "FAILED"
    third = analyze("check", "--all", "--format", "json", "--project-root", str(acme))
    assert third.stdout == second.stdout


def test_legacy_lines_from_the_checks_database_equal_those_from_the_project(acme, state):
    """legacy_scan_lines takes the check's evaluated database (holding SCAN_RELATIONS, the
    facts of gather supplied) or the loaded project: both give the same lines."""
    from analyzer.query.check import check_program
    from analyzer.query.scans import SCAN_RELATIONS, gather

    _append(acme, "decisions.md", [f"- token {GH}", "- mail ops@corp.io"])
    project = load_project(acme, use_cache=False)
    engine = check_program(False)
    facts = {**project.facts.relation_sets(), **gather(project)}
    db = engine.evaluate({r: rows for r, rows in facts.items() if r in engine.needed(list(SCAN_RELATIONS))},
                         only=list(SCAN_RELATIONS))
    for flags in ({}, {"security": True, "privacy": True}):
        mine = legacy_scan_lines(db, security=bool(flags), privacy=bool(flags))
        assert mine == legacy_scan_lines(project, security=bool(flags), privacy=bool(flags))
        assert mine[0]


def test_an_unchanged_text_is_not_scanned_again(acme, state, monkeypatch):
    """The scans of a text already scanned by the same code come from the facts cache (a warm
    check spent most of its CPU rescanning unchanged files); a changed text is scanned again,
    and with the caches turned off (``--no-cache``) every text is."""
    from analyzer.core import cache
    from analyzer.project.extract import secrets
    from analyzer.query.scans import gather

    _append(acme, "decisions.md", [f"- token {GH}"])
    first = gather(load_project(acme))
    scanned = []
    real = secrets.scan_text
    monkeypatch.setattr(secrets, "scan_text", lambda text, data=None: scanned.append(text) or real(text, data))
    assert gather(load_project(acme)) == first and scanned == []
    line = _append(acme, "decisions.md", [f"- aws {AWS}"])
    changed = gather(load_project(acme))
    assert len(scanned) == 1 and ("decisions.md", line, "aws-access-key") in [m[:3] for m in changed["secret_match"]]
    scanned.clear()
    with cache.turned_off():
        assert gather(load_project(acme, use_cache=False)) == changed
    assert len(scanned) == len(changed["scan_file"]) - len(changed["scan_unread"])


def test_a_project_s_scans_are_one_cache_entry(acme, state, monkeypatch, tmp_path):
    """A cold check stores its scans in one facts-cache entry for the project, not one per
    scanned file (creating those files was most of what storing the scans cost a cold
    check); a changed text replaces that entry rather than adding one."""
    from analyzer.query.scans import gather

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    facts = tmp_path / "cache" / "memory-analyzer" / "facts"

    def entries() -> int:
        return sum(1 for _ in facts.rglob("*.marshal"))

    project = load_project(acme)
    before = entries()
    first = gather(project)
    assert len(first["scan_file"]) > 2 and entries() == before + 1
    _append(acme, "decisions.md", [f"- token {GH}"])
    project = load_project(acme)
    before = entries()  # the changed file's facts
    assert gather(project) != first and entries() == before
