"""Proof size (docs/reliability.md): a proof prints shared subproofs once, its indentation
stops at MAX_DEPTH (deeper parts continue in numbered sections), so the text grows with the
number of facts in the proof, not with its depth squared; --why caps its output."""

import json
import os
import re
from pathlib import Path

import inprocess
from analyzer.engine.provenance import MAX_DEPTH

ROOT = Path(__file__).resolve().parents[2]
CHAIN = ".decl e(x: number, y: number)\n.decl r(x: number)\nr(0).\nr(Y) :- r(X), e(X, Y).\n"


def chain_proof(evaluate, n):
    db = evaluate(CHAIN, {"e": [(i, i + 1) for i in range(n)]}, provenance=True)
    return db.why("r", (n,))


def test_text_grows_linearly_with_depth(evaluate):
    small, big = chain_proof(evaluate, 500).render(), chain_proof(evaluate, 2000).render()
    assert 3.5 < len(big) / len(small) < 4.5  # 4x the facts, 4x the text (quadratic would be 16x)
    assert max(len(line) - len(line.lstrip()) for line in big.splitlines()) <= 2 * MAX_DEPTH + 2
    assert "(continued at #1 below)" in big and "\n#1:\n" in big


def test_every_fact_is_printed_once(evaluate):
    text = chain_proof(evaluate, 300).render()
    for i in (1, 150, 299):
        assert text.count(f"e({i}, {i + 1})  <- fact") == 1
        assert text.count(f"r({i})  <- rule") == 1


def test_json_nesting_is_bounded(evaluate):
    doc = chain_proof(evaluate, 3000).as_dict()
    json.dumps(doc)  # a 3,000-deep nesting would exceed the encoder's recursion limit

    def depth(node):
        return 1 + max((depth(c) for c in node.get("children", [])), default=0)

    assert depth(doc) <= MAX_DEPTH + 1
    numbers = [c["number"] for c in doc["continuations"]]
    assert numbers == list(range(1, len(numbers) + 1))
    assert all(depth(c) <= MAX_DEPTH + 1 for c in doc["continuations"])


def test_why_output_is_capped_with_a_note(tmp_path):
    program = tmp_path / "chain.dl"
    program.write_text(CHAIN + "".join(f"e({i}, {i + 1}).\n" for i in range(3000)))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = inprocess.run(["query", str(program), "r(X)", "--why"],
                        capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("\n") < 10_000 + 3100
    assert re.search(r"--why: proofs of [0-9]+ of 3001 answers shown", res.stdout)
    assert "the output stops at 100 proofs and 10,000 lines" in res.stdout


def test_filters_apply_in_every_section(evaluate):
    """The readers' filters (Proof.render's keep_binding, children, keep_builtin, used by
    `why`'s brief tree) act in the continuation sections as in the first one."""
    proof = chain_proof(evaluate, 200)
    full = proof.render()
    assert "with X = " in full and full.count("\n#") >= 2
    brief = proof.render(keep_binding=lambda _name, _value: False)
    assert "with " not in brief
    assert brief.count("\n#") == full.count("\n#")  # same sections, bindings left out
    no_facts = proof.render(children=lambda node: [c for c in node.children if c.relation != "e"])
    assert "e(150, 151)" not in no_facts and "r(150)  <- rule" in no_facts
