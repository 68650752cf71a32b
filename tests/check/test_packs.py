"""`analyze check --rules PACK.dl`: pack findings reported like built-in ones (text, JSON,
locations), built-in findings unchanged, bad packs refused with file:line:col and a code
(exit 2), and the result cache keyed on pack contents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACK = REPO / "examples" / "packs" / "acme-audit" / "acme-audit.dl"

HEAD = "/// @code {code}\n/// @severity {severity}\n/// @title A test finding\n/// @relation {relation}\n"


def pack(tmp_path: Path, body: str, name: str = "p.dl", code: str = "T-001", severity: str = "ERROR",
         relation: str = "r", extra: str = "") -> Path:
    path = tmp_path / name
    path.write_text(HEAD.format(code=code, severity=severity, relation=relation) + extra + body, encoding="utf-8")
    return path


def test_pack_findings_are_reported_like_built_in_ones(acme, analyze):
    plain = analyze("check", "--project-root", str(acme))
    with_pack = analyze("check", "--project-root", str(acme), "--rules", str(PACK))
    assert with_pack.stderr == ""
    # the built-in block is exactly as without the pack; the pack family follows it
    assert with_pack.stdout.startswith(plain.stdout + "\n")
    block = with_pack.stdout[len(plain.stdout) + 1:]
    assert block.splitlines() == [
        "MemoryCustodian packs check: FAILED",
        "- ACME-003 ERROR: MC-CON-20260903-4e5f6071 has an Evidence item that is neither a path, a document nor "
        "a known kind (item 1)",
        "- ACME-002 INFO: MC-INBOX-20260912-718293a4 (scope area:search) is still a candidate",
        "- ACME-001 WARNING: Constraint MC-CON-20260903-4e5f6071 in constraints.md has no repository or document "
        "Evidence",
    ]
    assert with_pack.returncode == 1


def test_pack_findings_in_json(acme, analyze):
    plain = json.loads(analyze("check", "--all", "--project-root", str(acme), "--format", "json").stdout)
    proc = analyze("check", "--all", "--project-root", str(acme), "--rules", str(PACK), "--format", "json")
    data = json.loads(proc.stdout)
    assert data["families"]["packs"] == {"status": "FAILED", "exit_code": 1}
    assert [f for f in data["findings"] if f["family"] != "packs"] == plain["findings"]
    ours = [f for f in data["findings"] if f["family"] == "packs"]
    assert [(f["code"], f["severity"]) for f in ours] == [("ACME-003", "ERROR"), ("ACME-002", "INFO"),
                                                          ("ACME-001", "WARNING")]
    inbox = ours[1]
    assert inbox["entries"] == ["MC-INBOX-20260912-718293a4"]
    assert inbox["locations"] == [{"path": "docs/memory/inbox.md", "line": 5, "col": 1}]
    assert data["exit_code"] == proc.returncode == 1


def test_a_pack_without_errors_is_ok_and_reads_built_in_findings(acme, analyze, tmp_path):
    """A pack may read derived relations, findings included; WARNING findings do not fail."""
    p = pack(tmp_path, ".decl r(code: symbol, module: symbol)\n"
                       "r(C, M) :- routing_finding_module(C, _, M), C = \"MC-ROUTING-005\".\n",
             severity="WARNING", extra="/// @message {code} names {module}\n")
    proc = analyze("check", "--routing", "--project-root", str(acme), "--rules", str(p), "--format", "json")
    data = json.loads(proc.stdout)
    assert data["families"]["packs"] == {"status": "OK", "exit_code": 0}
    ours = [f for f in data["findings"] if f["family"] == "packs"]
    assert [f["message"] for f in ours] == ["MC-ROUTING-005 names areas/payments.md"]
    assert ours[0]["locations"][0]["path"] == "docs/memory/manifest.md"  # where the missing module is named


@pytest.mark.parametrize("body, extra, code, where", [
    (".decl r(x: symbol)\nr(X) :- entri(X, _, _, _, _).\n", "", "DL915", ":6:9:"),
    (".decl r(x: symbol)\nr(X) :- entry(X, _, _, _, _)\n", "", "DL002", ":6:"),
    ('routing_finding("T-001", "ERROR", "x").\n', "", "DL919", ":5:1:"),
    ('pack_status("OK", 0).\n', "", "MA-PACK-COLLISION", ":5:1:"),
    (".decl r(x: symbol)\nr(X) :- disposition(X, _).\n", "", "DL918", ":6:9:"),
    (".decl r(x: symbol)\nr(X) :- entry(X, _, _, _, _).\n", "/// @message {nope}\n", "MA-PACK-HEADER", ":5:1:"),
    (".decl r(x: symbol)\nr(X) :- entry(X, _, _, _, _).\n", "/// @colour red\n", "MA-PACK-HEADER", ":5:5:"),
    (".decl q(x: symbol)\nq(X) :- entry(X, _, _, _, _).\n", "", "MA-PACK-HEADER", ":4:1:"),
])
def test_bad_packs_are_refused_with_a_position(acme, analyze, tmp_path, body, extra, code, where):
    relation = "pack_status" if "pack_status" in body else "routing_finding" if "routing_finding" in body else "r"
    p = pack(tmp_path, body, relation=relation, extra=extra)
    proc = analyze("check", "--project-root", str(acme), "--rules", str(p))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"{p}{where}") and f" {code} " in proc.stderr.splitlines()[0], proc.stderr


@pytest.mark.parametrize("code, diagnostic", [("MC-ROUTING-004", "MA-PACK-CODE"), ("MA-X-1", "MA-PACK-CODE"),
                                              ("lower-case", "MA-PACK-CODE"), ("ACME-001", "MA-PACK-COLLISION")])
def test_pack_codes_are_their_own(tmp_path, code, diagnostic):
    """MC-/MA-/DL codes are refused; a code two packs declare collides (load-time, no project)."""
    from analyzer.core.diagnostics import DiagnosticError
    from analyzer.query.packs import load_packs

    p = pack(tmp_path, ".decl r(x: symbol)\nr(X) :- entry(X, _, _, _, _).\n", code=code)
    with pytest.raises(DiagnosticError) as err:
        load_packs([str(PACK), str(p)])
    (diag,) = err.value.diagnostics
    assert (diag.code, diag.span.path, diag.span.line, diag.span.col) == (diagnostic, str(p), 1, 5)


def test_two_packs_may_not_define_one_relation(tmp_path):
    from analyzer.core.diagnostics import DiagnosticError
    from analyzer.query.packs import load_packs

    body = ".decl r(x: symbol)\nr(X) :- entry(X, _, _, _, _).\n"
    a, b = pack(tmp_path, body, "a.dl", code="T-001"), pack(tmp_path, body, "b.dl", code="T-002")
    with pytest.raises(DiagnosticError) as err:
        load_packs([str(a), str(b)])
    (diag,) = err.value.diagnostics
    assert (diag.code, diag.span.path, diag.span.line) == ("MA-PACK-COLLISION", str(b), 6)
    assert "defined by" in diag.message and str(a) in diag.message


def test_empty_or_unreadable_packs(acme, analyze, tmp_path):
    empty = tmp_path / "empty.dl"
    empty.write_text(".decl r(x: symbol)\n", encoding="utf-8")
    proc = analyze("check", "--project-root", str(acme), "--rules", str(empty), "--format", "json")
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["diagnostics"][0]["code"] == "MA-PACK-EMPTY"
    proc = analyze("check", "--project-root", str(acme), "--rules", str(tmp_path / "missing.dl"))
    assert proc.returncode == 2 and "DL017" in proc.stderr and "Traceback" not in proc.stderr


def test_the_result_cache_keys_on_pack_contents(acme, analyze, tmp_path):
    body = ".decl r(entry: symbol)\nr(E) :- entry(I, \"inbox.md\", _, _, _), entry_display(I, E).\n"
    p = pack(tmp_path, body, severity="INFO")
    first = analyze("check", "--project-root", str(acme), "--rules", str(p))
    assert "- T-001 INFO: A test finding" in first.stdout
    assert analyze("check", "--project-root", str(acme), "--rules", str(p)).stdout == first.stdout
    pack(tmp_path, body, severity="ERROR")  # same path, new contents: never the cached result
    second = analyze("check", "--project-root", str(acme), "--rules", str(p))
    assert "- T-001 ERROR: A test finding" in second.stdout and second.returncode == 1
    assert analyze("check", "--project-root", str(acme)).stdout == first.stdout.split("\n\n")[0] + "\n"


def test_pack_findings_in_sarif_carry_the_pack_block(acme, analyze, sarif_errors):
    """SARIF rules of pack codes come from the pack's @code block (title, explanation,
    severity); the document is valid SARIF 2.1.0."""
    proc = analyze("check", "--project-root", str(acme), "--rules", str(PACK), "--format", "sarif")
    document = json.loads(proc.stdout)
    run = document["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert rules["ACME-001"]["shortDescription"]["text"] == "An active constraint rests on user confirmation alone"
    assert rules["ACME-001"]["defaultConfiguration"]["level"] == "warning"
    assert "helpUri" not in rules["ACME-001"]  # no @help: no link, never the runner's local path
    assert "traceable to code or a document" in rules["ACME-001"]["fullDescription"]["text"]
    ours = [r for r in run["results"] if r["ruleId"].startswith("ACME-")]
    assert [(r["ruleId"], r["level"]) for r in ours] == [("ACME-003", "error"), ("ACME-002", "note"),
                                                         ("ACME-001", "warning")]
    assert run["properties"]["families"]["packs"] == {"status": "FAILED", "exitCode": 1}
    assert not sarif_errors(document)


def test_pack_output_is_the_same_under_any_hash_seed(acme, analyze, tmp_path):
    """Pack findings, their order, locations and proofs do not depend on hash seeds or caches."""
    argv = ("check", "--all", "--project-root", str(acme), "--rules", str(PACK), "--format", "json")
    first = analyze(*argv, seed="0", cache="c0")
    second = analyze(*argv, seed="12345", cache="c1")
    assert first.stdout == second.stdout and first.returncode == second.returncode == 1
    proofs = [analyze(*argv, "--with-proofs", seed=seed, cache=f"p{seed}").stdout for seed in ("1", "777")]
    assert proofs[0] == proofs[1]


@pytest.mark.parametrize("fmt", ["junit", "github", "markdown"])
def test_pack_findings_in_every_ci_format(acme, analyze, fmt):
    """The CI renderers are generic over families: pack findings appear with their location."""
    out = analyze("check", "--project-root", str(acme), "--rules", str(PACK), "--format", fmt).stdout
    for code in ("ACME-001", "ACME-002", "ACME-003"):
        assert code in out, (fmt, code)
    assert "docs/memory/inbox.md" in out


def test_explain_knows_pack_codes(analyze, tmp_path):
    proc = analyze("explain", "acme-002", "--rules", str(PACK))
    assert proc.returncode == 0
    assert proc.stdout.startswith("## ACME-002 (finding)\n\n**A candidate entry waits in the inbox**")
    assert f"`{PACK}:22`, relation `inbox_candidate`" in proc.stdout
    assert "Inbox candidates are reviewed weekly" in proc.stdout
    assert analyze("explain", "ACME-009", "--rules", str(PACK)).returncode == 2
    bad = pack(tmp_path, "r(X) :- entri(X, _, _, _, _).\n")
    proc = analyze("explain", "T-001", "--rules", str(bad))
    assert proc.returncode == 2 and " DL915 " in proc.stderr


def test_header_and_rule_errors_in_one_pass(acme, analyze, tmp_path):
    # a wrong header no longer hides the rule errors below it (issue 25): both, in line order
    pack = tmp_path / "both.dl"
    pack.write_text("/// @code ACME-001\n/// @title Two problems\n/// @severity ERROR\n/// @relation acme_one\n"
                    "/// @bogus x\n.decl acme_one(entry: symbol)\n"
                    "acme_one(E) :- entry(E, _, _, \"active\", _), undefined_thing(E).\n", encoding="utf-8")
    proc = analyze("check", "--project-root", str(acme), "--rules", str(pack))
    assert proc.returncode == 2
    assert f"{pack}:5:5: MA-PACK-HEADER unknown tag @bogus" in proc.stderr
    assert f"{pack}:7:45: DL915 unknown relation 'undefined_thing'" in proc.stderr
    assert proc.stderr.index("MA-PACK-HEADER") < proc.stderr.index("DL915")


def test_fixed_vocabulary_tags_in_any_case(acme, analyze, tmp_path):
    pack = tmp_path / "case.dl"
    pack.write_text("/// @code ACME-002\n/// @kind Finding\n/// @title Case\n/// @severity warning\n"
                    "/// @relation acme_two\n.decl acme_two(entry: symbol)\n"
                    "acme_two(E) :- entry(E, _, _, \"active\", _).\n", encoding="utf-8")
    proc = analyze("check", "--all", "--format", "json", "--project-root", str(acme), "--rules", str(pack))
    found = [f for f in json.loads(proc.stdout)["findings"] if f["code"] == "ACME-002"]
    assert found and {f["severity"] for f in found} == {"WARNING"}, proc.stderr


def test_pack_help_tag_is_the_sarif_help_uri(acme, analyze, tmp_path):
    """``/// @help URL`` links the SARIF rule; a relative one is a header error with its line."""
    text = PACK.read_text(encoding="utf-8").replace(
        "/// @code ACME-001\n", "/// @code ACME-001\n/// @help https://example.org/acme#001\n", 1)
    linked = tmp_path / "linked.dl"
    linked.write_text(text, encoding="utf-8")
    proc = analyze("check", "--project-root", str(acme), "--rules", str(linked), "--format", "sarif")
    rules = {r["id"]: r for r in json.loads(proc.stdout)["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["ACME-001"]["helpUri"] == "https://example.org/acme#001"
    linked.write_text(text.replace("https://example.org/acme#001", "docs/acme.md"), encoding="utf-8")
    proc = analyze("check", "--project-root", str(acme), "--rules", str(linked))
    assert proc.returncode == 2 and "linked.dl:7:" in proc.stderr and "absolute" in proc.stderr
