"""`analyze read --tool` and `check --agents` end to end: the real-world trees, bad input,
budgets, import depth, configuration, determinism and the extended glob dialect."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import inprocess
from analyzer.engine.glob_ext import glob_match_ext
from analyzer.query.agents import read_tools
from shared_reference import REALWORLD, cross_check

REPO = Path(__file__).resolve().parents[2]
BOOT = "Before substantial work, read `docs/memory/manifest.md`.\n"


def analyze(*argv, root: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(XDG_CACHE_HOME=str(root.parent / "cache"), PYTHONPATH=str(REPO))
    return inprocess.run([*argv, "--project-root", str(root)],
                         capture_output=True, text=True, env=env, timeout=120)


def project(tmp_path: Path, files: dict) -> Path:
    """A memory project (a manifest only) with the given extra files."""
    root = tmp_path / "p"
    (root / "docs" / "memory").mkdir(parents=True)
    (root / "docs" / "memory" / "manifest.md").write_text("# Memory manifest\n", encoding="utf-8")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return root


def findings(root: Path, *extra):
    run = analyze("check", "--agents", "--format", "json", *extra, root=root)
    assert "Traceback" not in run.stderr, run.stderr
    data = json.loads(run.stdout)
    return data, [(f["code"], f["severity"], f["locations"][0]["path"] if f["locations"] else "",
                   f["locations"][0]["line"] if f["locations"] else 0) for f in data["findings"]]


def assert_only_codex_reaches_the_manifest(root: Path, line: int, path: str) -> None:
    """AGENTS.md names the manifest at ``line`` and there is no CLAUDE.md: Claude Code never
    reaches the manifest (a warning: Claude Code is only implied), reported at that line; Codex
    reaches it through AGENTS.md (``path``: a file to read for)."""
    data, found = findings(root)
    assert ("MA-AGENT-UNREACHABLE", "WARNING", "AGENTS.md", line) in found and data["exit_code"] == 0
    claude = [f for f in data["findings"] if f["message"].startswith("Claude Code never reaches")]
    assert claude and "AGENTS.md names it" in claude[0]["message"]
    text = analyze("read", "--tool", "claude", "--path", path, "--explain", root=root).stdout
    assert "memory NOT reachable" in text and "Claude Code does not read AGENTS.md" in text
    codex = analyze("read", "--tool", "codex", "--path", path, root=root).stdout
    assert "memory reachable" in codex and "1. AGENTS.md" in codex


def test_agents_md_without_claude_md_is_reported_at_the_line_naming_the_manifest(tmp_path):
    """Boot steps in AGENTS.md, below an introduction, and no CLAUDE.md."""
    root = project(tmp_path, {"AGENTS.md": "# Working here\n\nKettle keeps brew notes on disk.\n\n## Boot\n\n"
                                           "1. Open `docs/memory/manifest.md` before any change.\n2. Keep diffs small.\n",
                              "kettle/brew.py": "print('brew')\n"})
    assert_only_codex_reaches_the_manifest(root, 7, "kettle/brew.py")


@cross_check
def test_realworld_agents_md_without_claude_md_is_reported(tmp_path):
    """nightnotes has AGENTS.md (boot steps naming docs/memory/manifest.md) and no CLAUDE.md."""
    root = tmp_path / "nightnotes"
    shutil.copytree(REALWORLD / "nightnotes-video-demo", root)
    assert_only_codex_reaches_the_manifest(root, 9, "nightnotes/cli.py")


@cross_check
def test_realworld_dogfood_is_clean(tmp_path):
    root = tmp_path / "dogfood"
    shutil.copytree(REALWORLD / "memorycustodian-dogfood", root)
    data, found = findings(root)
    assert found == [] and data["exit_code"] == 0


def test_no_agent_files_is_one_informational_line(tmp_path):
    root = project(tmp_path, {})
    run = analyze("check", "--agents", root=root)
    assert run.returncode == 0
    assert run.stdout.splitlines() == ["MemoryCustodian agents check: OK",
                                       "- no agent instruction files found (CLAUDE.md, AGENTS.md, GEMINI.md, "
                                       ".cursor/rules, .github/copilot-instructions.md, .windsurf/rules, ...): "
                                       "nothing to check"]
    data, found = findings(root)
    assert found == [] and data["families"]["agents"] == {"status": "OK", "exit_code": 0}
    read = analyze("read", "--tool", "all", "--path", "src/x.py", root=root)
    assert read.returncode == 0 and read.stdout.startswith("no agent instruction files found")


def test_invalid_frontmatter_is_a_finding_with_line_and_column(tmp_path):
    root = project(tmp_path, {
        "CLAUDE.md": BOOT,
        ".claude/rules/a.md": "---\npaths:\n  - \"src/**\n---\nbody\n",          # unterminated quote
        ".claude/rules/b.md": "---\npaths: src/**\nno colon here\n---\nbody\n",  # not key: value
        ".cursor/rules/c.mdc": "---\nalwaysApply: true\n",                          # never closed
        ".github/instructions/d.instructions.md": "---\napplyTo:\n  - \"**/*.py\"\n---\nbody\n",  # a list
        "GEMINI.md": b"\xff\xfe not utf-8\n",
    })
    data, found = findings(root)
    codes = {(c, p, line) for c, _, p, line in found}
    assert ("MA-AGENT-FRONTMATTER", ".claude/rules/a.md", 3) in codes
    assert ("MA-AGENT-FRONTMATTER", ".claude/rules/b.md", 3) in codes
    assert ("MA-AGENT-FRONTMATTER", ".cursor/rules/c.mdc", 1) in codes
    assert ("MA-AGENT-FRONTMATTER", ".github/instructions/d.instructions.md", 2) in codes
    assert ("MA-AGENT-FRONTMATTER", "GEMINI.md", 1) in codes
    assert ("MA-AGENT-INERT", ".github/instructions/d.instructions.md", 2) in codes
    located = [f for f in data["findings"] if f["code"] == "MA-AGENT-FRONTMATTER"]
    assert all(loc["col"] >= 1 for f in located for loc in f["locations"])
    text = analyze("check", "--agents", root=root).stdout
    assert "MA-AGENT-FRONTMATTER ERROR: .claude/rules/b.md:3:4: invalid frontmatter" in text
    assert data["exit_code"] == 1


def test_missing_import_and_depth_limit(tmp_path):
    chain = {f"c{i}.md": f"@c{i + 1}.md\n" for i in range(1, 7)}
    root = project(tmp_path, {"CLAUDE.md": BOOT + "@c1.md\n@nowhere.md\n@../outside.md\n", **chain, "c7.md": "end\n"})
    data, found = findings(root)
    assert ("MA-AGENT-IMPORT", "ERROR", "CLAUDE.md", 3) in found
    assert ("MA-AGENT-IMPORT", "ERROR", "CLAUDE.md", 4) in found
    # CLAUDE.md -> c1 (1) ... -> c5 (5 hops); c5's import of c6 is past the limit
    assert ("MA-AGENT-IMPORT", "WARNING", "c5.md", 1) in found
    read = json.loads(analyze("read", "--tool", "claude", "--path", "x.py", "--format", "json", root=root).stdout)
    loads = [(l["file"], l["hop"]) for l in read["answers"][0]["loads"]]
    assert loads == [("CLAUDE.md", 0), ("c1.md", 1), ("c2.md", 2), ("c3.md", 3), ("c4.md", 4), ("c5.md", 5)]


def test_codex_byte_budget_cuts_and_drops(tmp_path):
    filler = "- keep this rule in mind while working on the service code base.\n"
    root = project(tmp_path, {"AGENTS.md": "# Root\n" + filler * 300,                  # about 20 KiB
                              "svc/AGENTS.md": "# Service\n" + filler * 300 + BOOT,    # past 32 KiB in total
                              "svc/deep/AGENTS.md": "# Deep\n"})
    read = json.loads(analyze("read", "--tool", "codex", "--path", "svc/deep/x.py", "--cwd", "svc/deep",
                              "--format", "json", "--explain", root=root).stdout)
    (answer,) = read["answers"]
    assert [l["file"] for l in answer["loads"]] == ["AGENTS.md", "svc/AGENTS.md"]
    assert [(s["file"], s["reason"]) for s in answer["not_loaded"]] == [
        ("svc/deep/AGENTS.md", "the 32768-byte budget is used up by the files before it")]
    data, found = findings(root)
    # the check starts Codex at the root: only the root file loads, nothing is cut
    assert not [f for f in found if f[0] == "MA-AGENT-BUDGET"]
    # a root AGENTS.md over 32 KiB whose boot line comes last: cut, so Codex never reaches memory
    big = project(tmp_path / "big", {"AGENTS.md": "# Root\n" + filler * 600 + BOOT})
    fits = max(i for i in range(1, 602) if len(("# Root\n" + filler * (i - 1)).encode()) <= 32768)
    data, found = findings(big)
    assert ("MA-AGENT-BUDGET", "WARNING", "AGENTS.md", fits + 1) in found
    assert ("MA-AGENT-UNREACHABLE", "ERROR", "AGENTS.md", 602) in found


def test_windsurf_character_budget(tmp_path):
    body = "x" * 99 + "\n"
    root = project(tmp_path, {".windsurfrules": BOOT, ".windsurf/rules/r.md": "---\ntrigger: always_on\n---\n" + body * 130})
    data, found = findings(root)
    # 3 frontmatter lines (20 characters) then 100-character lines: 119 lines fit in 12,000
    assert ("MA-AGENT-BUDGET", "WARNING", ".windsurf/rules/r.md", 123) in found


def test_configured_tool_without_files_is_unreachable(tmp_path):
    root = project(tmp_path, {"AGENTS.md": BOOT, ".memory-analyzer.toml": 'agents = ["codex", "claude"]\n'})
    data, found = findings(root)
    assert ("MA-AGENT-UNREACHABLE", "ERROR", "AGENTS.md", 1) in found
    assert data["exit_code"] == 1
    assert not any("Codex" in f["message"] for f in data["findings"])
    # without the configuration Claude Code is only implied by AGENTS.md: a warning
    (root / ".memory-analyzer.toml").unlink()
    data, found = findings(root)
    assert ("MA-AGENT-UNREACHABLE", "WARNING", "AGENTS.md", 1) in found and data["exit_code"] == 0


def test_import_makes_claude_reach_the_manifest(tmp_path):
    root = project(tmp_path, {"AGENTS.md": BOOT, "CLAUDE.md": "@AGENTS.md\n"})
    data, found = findings(root)
    assert found == []
    root2 = project(tmp_path / "b", {"AGENTS.md": BOOT, "CLAUDE.md": "```\n@AGENTS.md\n```\n"})
    data, found = findings(root2)  # not an import inside a fenced block
    assert ("MA-AGENT-UNREACHABLE", "ERROR", "AGENTS.md", 1) in found


def test_ignored_key_and_anchoring_near_miss(tmp_path):
    root = project(tmp_path, {".github/copilot-instructions.md": BOOT,
                              ".github/instructions/py.instructions.md": "---\napplyTo: \"*.py\"\nglobs: \"**/*.py\"\n---\nx\n",
                              "src/a.py": ""})
    text = analyze("read", "--tool", "copilot", "--path", "src/a.py", "--explain", root=root).stdout
    assert "near miss: .github/instructions/py.instructions.md:2 - glob `*.py` would match if written `**/*.py`" in text
    assert "near miss: .github/instructions/py.instructions.md:3 - key `globs` is ignored by this tool" in text
    data, found = findings(root)
    assert ("MA-AGENT-IGNORED-KEY", "WARNING", ".github/instructions/py.instructions.md", 3) in found


def test_bad_paths_are_usage_errors(tmp_path):
    root = project(tmp_path, {"CLAUDE.md": BOOT})
    for argv in (["--path", "../x"], ["--path", "/etc/passwd"], ["--path", "x", "--cwd", "../.."]):
        run = analyze("read", "--tool", "claude", *argv, root=root)
        assert run.returncode == 2 and "Traceback" not in run.stderr and "not inside the project root" in run.stderr


def test_tool_all_is_deterministic_and_shows_every_tool(tmp_path):
    root = project(tmp_path, {"CLAUDE.md": BOOT, "AGENTS.md": BOOT, "GEMINI.md": "@AGENTS.md\n",
                              ".cursor/rules/a.mdc": "---\nglobs: *.py\n---\nx\n"})
    first = analyze("read", "--tool", "all", "--path", "a.py", "--path", "b/c.py", "--explain", root=root)
    second = analyze("read", "--tool", "all", "--path", "b/c.py", "--path", "a.py", "--explain", root=root)
    assert first.returncode == 0 and first.stdout == analyze("read", "--tool", "all", "--path", "a.py", "--path",
                                                             "b/c.py", "--explain", root=root).stdout
    for name in ("Claude Code", "Codex", "Cursor", "GitHub Copilot", "Gemini CLI", "Windsurf"):
        assert f"{name} (" in first.stdout
    blocks = lambda out: sorted(b.strip() for b in out.split("\n\n")[1:])  # noqa: E731 - paths in the order given
    assert blocks(first.stdout) == blocks(second.stdout)


@pytest.mark.parametrize("glob,path,hit", [
    ("src/**/*.{ts,tsx}", "src/a/b.tsx", True), ("src/**/*.{ts,tsx}", "src/b.js", False),
    ("*.py", "a/b.py", False), ("**/*.py", "b.py", True), ("**", "a/b", True), ("app/**", "app/x/y", True),
    ("[!a]b", "cb", True), ("[!a]b", "ab", False), ("./docs/*.md", "docs/x.md", True), ("a{b", "a{b", True),
])
def test_glob_match_ext(glob, path, hit):
    assert glob_match_ext(glob, path) is hit


def test_report_has_a_section_per_tool(tmp_path):
    root = project(tmp_path, {"AGENTS.md": BOOT, ".claude/rules/api.md": "---\npaths:\n  - \"src/api/**\"\n---\nx\n",
                              "src/api/a.py": ""})
    data = json.loads(analyze("report", "--format", "json", root=root).stdout)
    tools = {a["tool"]: a for a in data["agents"]}
    assert tools["codex"]["memory_reachable"] is True and tools["codex"]["patterns"] == [
        {"pattern": "**", "file": "AGENTS.md", "mode": "launch"}]
    assert tools["claude"]["memory_reachable"] is False
    assert tools["claude"]["patterns"] == [{"pattern": "src/api/**", "file": ".claude/rules/api.md", "mode": "glob"}]
    md = analyze("report", "--format", "markdown", root=root).stdout
    assert "### Claude Code (claude, detected): **memory not reachable**" in md
    assert "| `src/api/**` | .claude/rules/api.md | glob |" in md


def test_dogfood_repository_is_clean():
    """This repository: its agent fixtures and corpus under tests/ are excluded by its own
    configuration (agents-exclude), so it has no instruction files of its own and the
    check passes with the one informational line, without a memory directory."""
    run = analyze("check", "--agents", root=REPO)
    assert run.returncode == 0 and run.stdout.splitlines()[1].startswith("- no agent instruction files found")


def test_agents_exclude_and_bad_configuration(tmp_path):
    root = project(tmp_path, {"vendor/x/CLAUDE.md": "hello\n", "CLAUDE.md": BOOT})
    read = json.loads(analyze("read", "--tool", "claude", "--path", "vendor/x/a.py", "--format", "json", root=root).stdout)
    assert [l["file"] for l in read["answers"][0]["loads"]] == ["CLAUDE.md", "vendor/x/CLAUDE.md"]
    (root / ".memory-analyzer.toml").write_text('agents-exclude = ["vendor/**"]\n', encoding="utf-8")
    read = json.loads(analyze("read", "--tool", "claude", "--path", "vendor/x/a.py", "--format", "json", root=root).stdout)
    assert [l["file"] for l in read["answers"][0]["loads"]] == ["CLAUDE.md"]
    (root / ".memory-analyzer.toml").write_text('agents-exclude = "vendor/**"\n', encoding="utf-8")
    run = analyze("read", "--tool", "claude", "--path", "a.py", root=root)
    assert run.returncode == 2 and "Traceback" not in run.stderr and ".memory-analyzer.toml:1:" in run.stderr


def test_cached_report_sees_a_new_instruction_file(tmp_path):
    """The check result cache's key covers the agent facts: a new CLAUDE.md is a miss."""
    root = project(tmp_path, {"AGENTS.md": BOOT})
    first = json.loads(analyze("report", "--format", "json", root=root).stdout)
    assert [a["tool"] for a in first["agents"] if a["in_use"] == "implied"] == ["claude", "gemini"]
    (root / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    second = json.loads(analyze("report", "--format", "json", root=root).stdout)
    tools = {a["tool"]: a for a in second["agents"]}
    assert tools["claude"]["in_use"] == "detected" and tools["claude"]["memory_reachable"] is True


def test_nested_rule_glob_relative_to_its_folder_is_a_near_miss(tmp_path):
    root = project(tmp_path, {"AGENTS.md": BOOT, "web/.cursor/rules/ui.mdc": "---\nglobs: src/**/*.tsx\n---\nx\n",
                              "src/a.tsx": "", "web/src/b.tsx": ""})
    text = analyze("read", "--tool", "cursor", "--path", "src/a.tsx", "--path", "web/src/b.tsx", "--explain",
                   root=root).stdout
    assert "near miss: web/.cursor/rules/ui.mdc:2 - glob `src/**/*.tsx` is relative to web/" in text
    assert "1. web/.cursor/rules/ui.mdc - glob `src/**/*.tsx` (line 2)" in text.split("for web/src/b.tsx")[1]


# ---- settings that change which files a tool reads, or how much of them -------------------------


def loads(root: Path, tool: str, path: str, cwd: str = ""):
    (answer,) = read_tools(str(root), (tool,), [path], cwd, use_cache=False).answers
    return [load.file for load in answer.loads]


def test_gemini_context_file_name_string_and_legacy_key(tmp_path):
    root = project(tmp_path, {".gemini/settings.json": '{"contextFileName": "CONTEXT.md"}\n',
                              "CONTEXT.md": BOOT, "GEMINI.md": "not read\n", "AGENTS.md": "not read\n"})
    assert loads(root, "gemini", "a.py") == ["CONTEXT.md"]
    # the current key wins over the older top-level one
    (root / ".gemini" / "settings.json").write_text(
        '{"contextFileName": "CONTEXT.md", "context": {"fileName": "AGENTS.md"}}\n', encoding="utf-8")
    assert loads(root, "gemini", "a.py") == ["AGENTS.md"]
    # no settings: GEMINI.md
    (root / ".gemini" / "settings.json").unlink()
    assert loads(root, "gemini", "a.py") == ["GEMINI.md"]


def test_gemini_bad_json_is_a_finding_with_its_place(tmp_path):
    root = project(tmp_path, {".gemini/settings.json": '{\n  "context": {\n    "fileName": ["A.md",]\n  }\n}\n',
                              "GEMINI.md": BOOT})
    data, found = findings(root)
    assert ("MA-AGENT-SETTINGS", "ERROR", ".gemini/settings.json", 3) in found
    (settings,) = [f for f in data["findings"] if f["code"] == "MA-AGENT-SETTINGS"]
    assert settings["locations"][0]["col"] == 25  # the `]` after the comma and data["exit_code"] == 1
    text = analyze("check", "--agents", root=root)
    assert text.returncode == 1 and "Traceback" not in text.stderr
    assert "MA-AGENT-SETTINGS ERROR: .gemini/settings.json:3:25: invalid JSON" in text.stdout
    read = analyze("read", "--tool", "gemini", "--path", "a.py", "--explain", root=root)
    assert read.returncode == 0 and "settings cannot be used (MA-AGENT-SETTINGS)" in read.stdout


def test_gemini_names_of_the_wrong_type(tmp_path):
    root = project(tmp_path, {".gemini/settings.json": '{"context": {"fileName": ["A.md", 7]}}', "GEMINI.md": BOOT})
    _, found = findings(root)
    assert ("MA-AGENT-SETTINGS", "ERROR", ".gemini/settings.json", 1) in found


def test_codex_max_bytes_from_the_configuration(tmp_path):
    root = project(tmp_path, {"AGENTS.md": "# Rules\n\n" + BOOT, "src/AGENTS.md": "x\n" * 40,
                              ".memory-analyzer.toml": "codex-project-doc-max-bytes = 40\n"})
    data, found = findings(root)
    assert ("MA-AGENT-BUDGET", "WARNING", "AGENTS.md", 3) in found  # the boot line crosses 40 bytes
    assert loads(root, "codex", "src/a.py", cwd="src") == ["AGENTS.md"]  # src/AGENTS.md is left out
    (root / ".memory-analyzer.toml").write_text("codex-project-doc-max-bytes = 4096\n", encoding="utf-8")
    _, found = findings(root)
    assert not [f for f in found if f[0] == "MA-AGENT-BUDGET"]


def test_codex_fallback_names_one_file_per_folder(tmp_path):
    root = project(tmp_path, {".memory-analyzer.toml": 'codex-project-doc-fallback-filenames = [".codex/CODEX.md"]\n',
                              ".codex/CODEX.md": BOOT, "AGENTS.md": "root\n", "svc/.codex/CODEX.md": "svc\n"})
    # the root has AGENTS.md, which comes before the fallback name (one file per folder)
    assert loads(root, "codex", "svc/a.py", cwd="svc") == ["AGENTS.md", "svc/.codex/CODEX.md"]
    (root / "AGENTS.md").unlink()
    assert loads(root, "codex", "svc/a.py", cwd="svc") == [".codex/CODEX.md", "svc/.codex/CODEX.md"]


def test_windsurf_combined_limit_of_always_on_rules(tmp_path):
    head, line = "---\ntrigger: always_on\n---\n", "- a rule line of exactly forty characters\n"
    assert len(line) == 42 - 2 + 2  # 42 characters with its line break
    root = project(tmp_path, {".windsurf/rules/a.md": head + line * 200,  # 8,428 characters
                              ".windsurf/rules/b.md": head + line * 100,  # crosses 12,000
                              ".windsurf/rules/c.md": head + BOOT})       # left out
    _, found = findings(root)
    budget = sorted(f for f in found if f[0] == "MA-AGENT-BUDGET")
    # b keeps 12,000 - 8,428 = 3,572 characters: 28 of the head, 84 lines of 42
    assert budget == [("MA-AGENT-BUDGET", "WARNING", ".windsurf/rules/b.md", 88),
                      ("MA-AGENT-BUDGET", "WARNING", ".windsurf/rules/c.md", 1)]
    assert loads(root, "windsurf", "x.py") == [".windsurf/rules/a.md", ".windsurf/rules/b.md"]


def test_codex_skips_a_blank_file_and_its_bytes(tmp_path):
    """project_doc.rs: a file that is empty or only whitespace adds nothing and uses no budget."""
    root = project(tmp_path, {"AGENTS.md": " \n" * 30, "src/AGENTS.md": BOOT,
                              ".memory-analyzer.toml": "codex-project-doc-max-bytes = 60\n"})
    assert loads(root, "codex", "src/a.py", cwd="src") == ["AGENTS.md", "src/AGENTS.md"]
    _, found = findings(root)
    assert not [f for f in found if f[0] == "MA-AGENT-BUDGET"]


def test_gemini_settings_symlink_is_not_read_and_says_so(tmp_path):
    root = project(tmp_path, {"elsewhere.json": '{"context": {"fileName": "AGENTS.md"}}', "GEMINI.md": BOOT})
    (root / ".gemini").mkdir()
    (root / ".gemini" / "settings.json").symlink_to(root / "elsewhere.json")
    _, found = findings(root)
    assert ("MA-AGENT-SETTINGS", "ERROR", ".gemini/settings.json", 1) in found
