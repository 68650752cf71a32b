"""Added rules in any order (issue 25 item 2): `-e` texts, `--rules` files and check packs form
one program, so a rule may use a relation a later rule or text defines, and a head's column
types come from the rules that define what it uses, whatever their order."""

import os
from pathlib import Path

import inprocess

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "acme-shop"
HEAD = "/// @code T-001\n/// @severity WARNING\n/// @title Big budget\n/// @relation big\n"


def analyze(*args, tmp):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(tmp / "cache"))
    return inprocess.run([*map(str, args)], capture_output=True, text=True,
                         env=env, cwd=ROOT)


def test_an_e_rule_may_use_a_relation_a_later_e_defines(tmp_path):
    later = analyze("query", "--project-root", EXAMPLE, "p(X)", "-e", "p(X) :- q(X).",
                    "-e", 'q(X) :- entry(X, "decisions.md", _, "active", _).', tmp=tmp_path)
    earlier = analyze("query", "--project-root", EXAMPLE, "p(X)", "-e", 'q(X) :- entry(X, "decisions.md", _, '
                      '"active", _).', "-e", "p(X) :- q(X).", tmp=tmp_path)
    assert later.returncode == 0, later.stderr
    assert later.stdout == earlier.stdout and "(0 tuples)" not in later.stdout


def test_a_head_is_typed_from_a_relation_defined_after_it(tmp_path):
    res = analyze("query", "--project-root", EXAMPLE, "p(N), N > 100",
                  "-e", "p(N) :- q(N). q(N) :- title_tokens(_, N).", tmp=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].split() == ["N"]


def test_a_pack_may_use_a_relation_a_later_pack_defines(tmp_path):
    first = tmp_path / "first.dl"
    first.write_text(HEAD + "big(M, N) :- sized(M, N), N > 1.\n", encoding="utf-8")
    second = tmp_path / "second.dl"
    second.write_text(HEAD.replace("T-001", "T-002").replace("@relation big", "@relation none")
                      + "none(M) :- sized(M, N), N < 0.\nsized(M, N) :- file_tokens(M, N).\n", encoding="utf-8")
    res = analyze("check", "--project-root", EXAMPLE, "--rules", first, "--rules", second, tmp=tmp_path)
    assert "DL915" not in res.stderr and res.stderr == "", res.stderr
    assert "T-001 WARNING" in res.stdout
