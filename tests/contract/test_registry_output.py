"""The registry fails closed; emit_json prints only documents that match their declared shape."""

from __future__ import annotations

import json

import pytest

from analyzer.core import exitcodes
from analyzer.contract import registry
from analyzer.contract.shapes import Obj, as_type, validate
from analyzer.core.fingerprint import ruleset_fingerprint
from analyzer.contract.output import build_document, emit_json

GOOD = {"status": "MATCH", "goal": "p(X)", "pattern": "p(X)", "relation": "p", "columns": ["X"],
        "rows": [{"X": "a"}], "tuples": [["a"]]}


def test_undeclared_command_and_shape_raise():
    with pytest.raises(KeyError):
        registry.command("no-such-command")
    with pytest.raises(KeyError):
        registry.shape("query", "no-such-shape")
    with pytest.raises(KeyError):
        registry.shape("no-such-command", "result")
    assert registry.shape("query", "result").name == "result"


@pytest.mark.parametrize("bad", ["lst[str]", "list[str", "list[]", "str|", "string", "dict"])
def test_bad_type_declarations_fail_at_declaration(bad):
    with pytest.raises(ValueError):
        as_type(bad)


def test_validate_nested_types():
    kind = Obj({"xs": "list[int|null]", "m": "dict[bool]"}, {"o": Obj({"k": "str"})})
    assert validate({"xs": [1, None], "m": {"a": True}}, kind) == []
    assert validate({"xs": [True], "m": {}}, kind) == ["$.xs[0]: expected int|null, got bool"]
    assert validate({"xs": [], "m": {}, "o": {}}, kind) == ["$.o: missing required key 'k'"]


def test_emit_json_prints_envelope_first_then_declared_order(capsys):
    assert emit_json("query", "result", dict(reversed(list(GOOD.items())))) == exitcodes.OK
    out = capsys.readouterr().out
    document = json.loads(out)
    assert list(document) == ["ok", "status", "schema", "analyzer", "goal", "pattern", "relation", "columns",
                              "rows", "tuples"]
    assert document["ok"] is True
    assert document["schema"] == {"name": "query.result", "version": 2}
    assert document["analyzer"]["ruleset_fingerprint"] == ruleset_fingerprint()
    assert out.endswith("}\n")


@pytest.mark.parametrize("payload, message", [
    ({k: v for k, v in GOOD.items() if k != "tuples"}, "missing required key 'tuples'"),
    ({k: v for k, v in GOOD.items() if k != "status"}, "missing required key 'status'"),
    ({**GOOD, "tuples": "a"}, "$.tuples: expected list"),
    ({**GOOD, "tuples": [[1.5]]}, "$.tuples[0][0]"),
    ({**GOOD, "extra": 1}, "undeclared key 'extra'"),
    ({**GOOD, "status": "FOUND"}, "$.status: expected one of"),
    ({**GOOD, "ok": True}, "envelope keys ['ok']"),
])
def test_emit_json_rejects_a_bad_payload_with_exit_3_and_no_stdout(capsys, payload, message):
    assert emit_json("query", "result", payload) == exitcodes.INTERNAL
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


def test_emit_json_rejects_an_undeclared_shape(capsys):
    assert emit_json("query", "nope", GOOD) == exitcodes.INTERNAL
    assert capsys.readouterr().out == ""


def test_build_document_is_deterministic():
    first, errors = build_document("query", "result", GOOD)
    second, _ = build_document("query", "result", dict(reversed(list(GOOD.items()))))
    assert errors == [] and json.dumps(first) == json.dumps(second)
