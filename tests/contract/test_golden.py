"""Golden cases: every case's output and exit match the recorded ones, and JSON matches its schema."""

from __future__ import annotations

import json

import jsonschema
import pytest

from analyzer.dev.conformance import golden_folders
from golden_cases import REPO, normalize, run_case

CASES = golden_folders(REPO)


@pytest.mark.parametrize("folder", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_case(folder, request):
    stdout, code = run_case(folder)
    if request.config.getoption("--update-golden"):
        (folder / "stdout").write_text(normalize(stdout), encoding="utf-8")
        (folder / "exit").write_text(f"{code}\n", encoding="utf-8")
    assert normalize(stdout) == (folder / "stdout").read_text(encoding="utf-8")
    assert code == int((folder / "exit").read_text(encoding="utf-8"))
    if stdout.startswith("{"):
        document = json.loads(stdout)
        schema = json.loads((REPO / "docs" / "schemas" / f"{document['schema']['name']}.json").read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)


def test_there_are_golden_cases():
    assert CASES, "tests/golden/ has no case"
