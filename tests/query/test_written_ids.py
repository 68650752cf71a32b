"""Values as written, matching as the protocol matches (issue 25 item 1): answers show IDs as
the files write them, an ID constant matches in any case (Entry IDs compare caselessly,
§5.3), and a constant that matches nothing but is near a value that exists is a DL921
warning naming it, with the exit status unchanged (analyzer/query/constants.py)."""

import os
from pathlib import Path

import inprocess

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "acme-shop"


def analyze(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return inprocess.run([*map(str, args)], capture_output=True, text=True,
                         env=env, cwd=ROOT)


def rows(res):
    return [line.split() for line in res.stdout.splitlines()[2:-1]]


def test_an_id_as_written_matches_and_answers_show_ids_as_written():
    for shown in ("MC-DEC-20260905-2c3d4e5f", "mc-dec-20260905-2c3d4e5f", "MC-DEC-20260905-2C3D4E5F"):
        res = analyze("query", "--project-root", EXAMPLE, f'entry_relation("{shown}", K, T)')
        assert res.returncode == 0 and res.stderr == "", res.stderr
        assert rows(res) == [["Superseded-By", "MC-DEC-20260910-1b2c3d4e"]]
    res = analyze("query", "--project-root", EXAMPLE, 'entry(I, M, _, _, _), I = "MC-DEC-20260905-2C3D4E5F"')
    assert rows(res) == [["MC-DEC-20260905-2c3d4e5f", "decisions.md"]]
    res = analyze("query", "--project-root", EXAMPLE, 'entry(I, M, "DEC", "active", _)', "--format", "csv")
    assert res.stdout.splitlines()[1:] == ["MC-DEC-20260910-1b2c3d4e,decisions.md"]


def test_why_pattern_matches_an_id_as_written():
    res = analyze("why", "--project-root", EXAMPLE, "--task", "implementation",
                  "--pattern", 'entry_relation("MC-DEC-20260905-2c3d4e5f", K, T)')
    assert res.returncode == 0 and "holds" in res.stdout and "no tuple" not in res.stdout


def test_a_near_miss_constant_is_a_warning_naming_the_value():
    res = analyze("query", "--project-root", EXAMPLE, 'entry(I, _, "dec", "Actve", _)')
    assert res.returncode == 0 and "(0 tuples)" in res.stdout
    assert '<goal>:1:13: DL921 "dec" matches nothing in column 3 of entry; did you mean "DEC"?' in res.stderr
    assert 'DL921 "Actve" matches nothing in column 4 of entry; did you mean "active"?' in res.stderr
    res = analyze("query", "--project-root", EXAMPLE, 'entry_relation(I, "supersedes", T)')
    assert 'did you mean "Supersedes"?' in res.stderr and res.returncode == 0
    res = analyze("query", "--project-root", EXAMPLE, 'entry(I, _, _, S, _), S = "Active"')
    assert 'DL921 "Active" matches nothing in column 4 of entry; did you mean "active"?' in res.stderr
    res = analyze("why", "--project-root", EXAMPLE, "--task", "implementation", "--pattern",
                  'entry_relation(I, "supersedes", T)')
    assert 'did you mean "Supersedes"?' in res.stderr and res.returncode == 0
    # a constant far from every value of its column says nothing
    res = analyze("query", "--project-root", EXAMPLE, 'entry(I, _, "ZZZ", _, _)')
    assert res.returncode == 0 and res.stderr == ""
