"""The call layer of ``analyze mcp`` in process (no SDK): bounds, cache key, garbage, options."""

from __future__ import annotations

import shutil
from pathlib import Path

from analyzer.commands import mcp_calls
from analyzer.commands.mcp_calls import Answer, Calls, fingerprint

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"
READ = {"task": "implementation", "paths": ["api/payments/refund.py"]}


def test_an_answer_over_the_limit_is_cut_at_a_character_with_a_note():
    calls = Calls(str(EXAMPLE), max_bytes=10)
    cut = calls._bounded(Answer("ééééééééééééé", {"x": 1}))  # 26 bytes: the cut falls inside an é
    assert cut.failure.code == "MA-MCP-SIZE" and cut.document is None
    assert cut.text.startswith("ééééé\n[MA-MCP-SIZE answer truncated: it is 26 bytes")
    assert calls._bounded(Answer("short")).text == "short"


def test_the_fingerprint_follows_content_paths_and_configuration(tmp_path):
    root = tmp_path / "p"
    shutil.copytree(EXAMPLE, root)
    first = fingerprint(str(root), "docs/memory", ["api/x.py"])
    assert fingerprint(str(root), "docs/memory", ["api/x.py"]) == first
    assert fingerprint(str(root), "docs/memory", ["api/y.py"]) != first
    (root / "api" / "x.py").write_text("", encoding="utf-8")
    second = fingerprint(str(root), "docs/memory", ["api/x.py"])
    assert second != first
    (root / ".memory-analyzer.toml").write_text("", encoding="utf-8")
    third = fingerprint(str(root), "docs/memory", ["api/x.py"])
    assert third != second
    (root / "docs" / "memory" / "inbox.md").unlink()
    assert fingerprint(str(root), "docs/memory", ["api/x.py"]) != third


def test_garbage_is_collected_every_gc_every_calls(monkeypatch):
    collected = []
    monkeypatch.setattr(mcp_calls.gc, "collect", lambda *a: collected.append(1) or 0)
    calls = Calls(str(EXAMPLE))
    for _ in range(2 * mcp_calls.GC_EVERY):
        calls.call("memory_explain", {"code": "DL902"})
    assert len(collected) == 2
    calls.text("read", ["--task=implementation"])  # the pack resource counts too
    assert len(collected) == 2


def test_no_cache_reaches_the_commands(monkeypatch):
    seen = []

    def run(self, spec, words):
        seen.append(words)
        return Answer("{}", {})

    monkeypatch.setattr(Calls, "_run", run)
    Calls(str(EXAMPLE), use_cache=False).call("memory_read", READ)
    Calls(str(EXAMPLE), use_cache=False).call("memory_explain", {"code": "DL902"})  # explain has none
    Calls(str(EXAMPLE)).call("memory_read", READ)
    assert "--no-cache" in seen[0] and "--no-cache" not in seen[1] and "--no-cache" not in seen[2]


def test_an_unexpected_failure_is_an_internal_error_answer(monkeypatch):
    def boom(self, spec, words):
        raise RuntimeError("boom")

    monkeypatch.setattr(Calls, "_run", boom)
    answer = Calls(str(EXAMPLE)).call("memory_read", READ)
    assert answer.failure.code == "MA-INTERNAL" and "RuntimeError: boom" in answer.text
