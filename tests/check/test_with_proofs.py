"""`analyze check --with-proofs`: a bounded proof tree per finding in JSON (built-in and
rule-pack findings), SARIF code flows from the project lines the proofs rest on."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACK = REPO / "examples" / "packs" / "acme-audit" / "acme-audit.dl"
FINDING_RELATION = {"routing": "routing_finding", "reachability": "reach_finding", "freshness": "fresh_finding"}


def _nodes(proof):
    return 1 + sum(_nodes(c) for c in proof.get("children", []))


def _facts(proof):
    out = [] if proof.get("rule") else [proof]
    for child in proof.get("children", []):
        out += _facts(child)
    return out


def test_every_finding_gets_its_proofs(acme, analyze):
    from analyzer.query.proofs import MAX_NODES, MAX_PROOFS

    plain = json.loads(analyze("check", "--all", "--project-root", str(acme), "--rules", str(PACK),
                               "--format", "json").stdout)
    assert all("proofs" not in f for f in plain["findings"])
    proc = analyze("check", "--all", "--project-root", str(acme), "--rules", str(PACK), "--with-proofs",
                   "--format", "json")
    data = json.loads(proc.stdout)
    # the findings are the same, with proofs added
    assert [{k: v for k, v in f.items() if k != "proofs"} for f in data["findings"]] == plain["findings"]
    assert {f["family"] for f in data["findings"]} >= {"routing", "freshness", "conflicts", "packs"}
    for finding in data["findings"]:
        proofs = finding["proofs"]
        assert 1 <= len(proofs) <= MAX_PROOFS, finding
        for proof in proofs:
            assert _nodes(proof) <= MAX_NODES
            if finding["family"] in FINDING_RELATION:
                assert proof["relation"] == FINDING_RELATION[finding["family"]]
                assert proof["tuple"] == [finding["code"], finding["severity"], finding["message"]]
            elif finding["family"] == "legacy":
                assert proof["relation"] in ("legacy_line", "legacy_duplicate_id")
                assert proof["relation"] == "legacy_duplicate_id" or proof["tuple"][6] == finding["code"]
            elif finding["family"] == "conflicts":
                assert proof["relation"] == "check_conflict_finding" and proof["tuple"][1] == finding["code"]
            # every proof rests on project lines
            assert any((f.get("location") or "").startswith("docs/memory/") for f in _facts(proof)), finding
    ours = {f["code"]: f for f in data["findings"] if f["family"] == "packs"}
    proof = ours["ACME-002"]["proofs"][0]
    assert proof["relation"] == "inbox_candidate" and proof["location"].startswith(f"{PACK}:")
    assert {f["relation"] for f in _facts(proof)} == {"entry", "entry_display"}


def test_proofs_are_bounded():
    from analyzer.engine.provenance import Proof
    from analyzer.query.proofs import MAX_NODES, bounded

    wide = Proof("top", ("x",), children=[Proof("leaf", (i,)) for i in range(3 * MAX_NODES)])
    out = bounded(wide)
    assert _nodes(out) == MAX_NODES and out["elided"] == 3 * MAX_NODES - (MAX_NODES - 1)
    chain = node = Proof("n", (0,))
    for i in range(1, 2 * MAX_NODES):
        child = Proof("n", (i,))
        node.children.append(child)
        node = child
    out = bounded(chain)
    assert _nodes(out) == MAX_NODES
    assert "continuations" not in out  # the sections of the deep proof are put back in place
    depth, node = 1, out
    while node.get("children"):
        depth, node = depth + 1, node["children"][0]
    assert depth == MAX_NODES and node["tuple"] == [MAX_NODES - 1] and node["elided"] == 1


def test_sarif_code_flows(acme, analyze, sarif_errors):
    plain = json.loads(analyze("check", "--routing", "--project-root", str(acme), "--format", "sarif").stdout)
    assert all("codeFlows" not in r for r in plain["runs"][0]["results"])
    document = json.loads(analyze("check", "--routing", "--project-root", str(acme), "--rules", str(PACK),
                                  "--with-proofs", "--format", "sarif").stdout)
    results = document["runs"][0]["results"]
    routing = next(r for r in results if r["ruleId"] == "MC-ROUTING-005")
    (flow,) = routing["codeFlows"]
    (step,) = flow["threadFlows"][0]["locations"]
    where = step["location"]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "docs/memory/manifest.md"
    assert step["location"]["message"]["text"].startswith('module_decl("areas/payments.md"')
    for result in results:
        for flow in result.get("codeFlows", []):
            for step in flow["threadFlows"][0]["locations"]:
                uri = step["location"]["physicalLocation"]["artifactLocation"]["uri"]
                assert uri.startswith("docs/memory/"), uri  # project lines only, never rule files
    assert not sarif_errors(document)
