"""Shared helpers for the extraction tests: the reference material and small project builders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
SPEC = SHARED / "spec"
TEMPLATES = SPEC / "templates" / "docs" / "memory"


def scenarios():
    """Every scenario of the spec's scenarios.jsonl (skips the test when absent)."""
    path = SPEC / "scenarios.jsonl"
    if not path.is_file():
        pytest.skip("shared/spec/scenarios.jsonl not available")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def template(name: str) -> str:
    """A default template file's text (skips the test when absent)."""
    path = TEMPLATES / name
    if not path.is_file():
        pytest.skip("shared templates not available")
    return path.read_text(encoding="utf-8")


def write_project(root: Path, files: dict) -> Path:
    """Write ``{relative path: text or bytes}`` under ``root``; returns root."""
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


def relation(sink, name):
    """The values of one relation in a Sink, in emission order."""
    return [values for rel, values, _, _ in sink.facts if rel == name]
