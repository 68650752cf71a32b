"""Drift checks: the committed generated docs equal what the generators produce now."""

from __future__ import annotations

import json

import jsonschema
import pytest

from analyzer.contract import catalog
from analyzer.dev.gendocs import expected_files, schema_documents, source_root, stale_files

ROOT = source_root()
pytestmark = pytest.mark.skipif(ROOT is None, reason="source tree not found")


def test_generated_docs_are_fresh():
    assert stale_files(ROOT) == [], "run: python -m analyzer.dev.gendocs"


@pytest.mark.parametrize("rel", sorted(schema_documents()))
def test_each_schema_is_valid_draft_2020_12(rel):
    jsonschema.Draft202012Validator.check_schema(json.loads((ROOT / rel).read_text(encoding="utf-8")))


def test_cli_md_has_every_generated_section():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for name in ("exit-codes", "commands", "conformance-checks"):
        assert f"<!-- generated:{name} -->" in text
    assert expected_files(ROOT)["docs/cli.md"] == text


def test_every_code_mentioned_in_docs_and_tests_is_catalogued():
    assert catalog.missing_codes(catalog.mentions(ROOT, ("docs", "tests")), catalog.load(root=ROOT).codes()) == []
