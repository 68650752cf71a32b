"""An over-budget module with a Markdown lexical error stays loaded but adds no text and no
omissions (spec §8.5); the conflict pass reports the error."""

from __future__ import annotations

import json


def test_unsplittable_over_budget_module_contributes_nothing(acme, analyze):
    constraints = acme / "docs" / "memory" / "constraints.md"
    filler = "\n".join(f"line {i} " * 10 for i in range(80))
    constraints.write_text(constraints.read_text(encoding="utf-8") + "\n\n```text\n" + filler + "\n",
                           encoding="utf-8")
    run = analyze("read", "--project-root", str(acme), "--task", "general", "--format", "json", "--no-local")
    data = json.loads(run.stdout)
    assert {m["path"]: m["disposition"] for m in data["modules"]}["constraints.md"] == "loaded"
    assert data["budget_omissions"] == []
    assert "\n## constraints.md\n" not in data["context_pack"]["text"]
    assert any("Unclosed fenced code block" in f["message"] for f in data["conflict_findings"])
