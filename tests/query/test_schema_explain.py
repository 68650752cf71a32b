"""``analyze schema`` (what can be asked) and ``analyze explain`` for the tool's own codes."""

import json
import os
import re
from pathlib import Path

import inprocess

ROOT = Path(__file__).resolve().parents[2]


def analyze(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return inprocess.run([*map(str, args)], capture_output=True, text=True,
                         env=env, cwd=ROOT)


def test_schema_lists_base_request_and_derived_relations_with_locations():
    res = analyze("schema")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    kinds = [line.split()[0] for line in lines]
    assert kinds == sorted(kinds, key=["base", "request", "derived"].index)
    assert any(line.startswith("base     route(task: symbol, module: symbol, mode: symbol, ord: number)  "
                               "[facts/schema.dl:") for line in lines)
    assert any(line.startswith("request  req_task(") for line in lines)
    assert any(line.startswith("derived  owner(") and "[rules/conflicts/storage.dl:" in line for line in lines)
    derived = analyze("schema", "--derived").stdout.splitlines()
    assert derived and all(line.startswith("derived") for line in derived)


def test_schema_of_one_relation_names_columns_docs_and_rules():
    res = analyze("schema", "disposition")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("disposition(module: symbol, disposition: symbol)  (derived)\n")
    assert "declared at rules/read/modules.dl:" in res.stdout
    assert "derived by rules at: rules/read/modules.dl:" in res.stdout and "reads: " in res.stdout
    doc = json.loads(analyze("schema", "route", "--format", "json").stdout)
    (route,) = doc["relations"]
    assert route["kind"] == "base" and [c["name"] for c in route["columns"]] == ["task", "module", "mode", "ord"]
    assert route["columns"][3]["type"] == "number" and route["columns"][0]["doc"]


def test_schema_of_an_unknown_relation_names_the_nearest():
    res = analyze("schema", "dispositon")
    assert res.returncode == 2 and "nearest known relation is disposition" in res.stderr


def test_rule_file_header_blocks_are_not_relation_docs():
    doc = json.loads(analyze("schema", "budget_file", "--format", "json").stdout)
    assert "@code" not in doc["relations"][0]["doc"]


def test_explain_knows_dl_and_ma_codes_with_what_to_do():
    res = analyze("explain", "dl918")
    assert res.returncode == 0 and res.stdout.startswith("DL918 (rule-language diagnostic)")
    assert "What to do: add --task" in res.stdout
    res = analyze("explain", "MA-FILE-ENCODING")
    assert res.returncode == 0 and "What to do: re-encode" in res.stdout
    res = analyze("explain", "DL999")
    assert res.returncode == 2 and "DL918" in res.stderr


def test_every_code_the_source_raises_is_explained():
    from analyzer.contract import catalog
    from analyzer.contract.toolcodes import tool_codes

    # a tool code, or an MA- finding a rule file declares (MA-AUTONOMY-*: the catalogue explains it)
    known = {**tool_codes(), **{e.code: None for e in catalog.load().entries if e.code.startswith("MA-")}}
    found = set()
    for path in [*(ROOT / "analyzer").rglob("*.py"), *(ROOT / "rules").rglob("*.dl")]:
        found |= set(re.findall(r'"(DL\d{3}|MA-[A-Z0-9]+(?:-[A-Z0-9]+)*)"', path.read_text(encoding="utf-8")))
    assert found and sorted(found - set(known)) == []
    assert all(entry.fix and entry.meaning for entry in tool_codes().values())


def test_schema_documents_every_relation_and_says_which_include_the_archive():
    """Issue 25 item 1: no relation is "(undocumented)"; `entry` says it holds archived entries."""
    listing = analyze("schema").stdout
    assert [line for line in listing.splitlines() if "(undocumented)" in line] == []
    entry = analyze("schema", "entry").stdout
    assert "archive included" in entry and "live_entry" in entry
