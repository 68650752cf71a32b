"""``analyze query --project-root DIR 'goal'``: goals over the project and every built-in relation."""

import csv
import io
import json
import os
from pathlib import Path

import pytest

import inprocess

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "acme-shop"


def query(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return inprocess.run(["query", *map(str, args)],
                         capture_output=True, text=True, env=env, cwd=cwd)


def test_conjunction_with_negation_and_comparison_names_columns_after_variables():
    res = query("--project-root", EXAMPLE, "--task", "implementation",
                'owner(I, M, Sc, _, _), !disposition(M, "loaded"), Sc != "project"')
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["I", "M", "Sc"]
    rows = [line.split() for line in lines[2:-1]]
    assert rows and all(sc != "project" for _, _, sc in rows)
    loaded = query("--project-root", EXAMPLE, "--task", "implementation", 'disposition(M, "loaded")')
    assert not {m for _, m, _ in rows} & {line.strip() for line in loaded.stdout.splitlines()[2:-1]}
    assert lines[-1] == f"({len(rows)} tuple{'s' if len(rows) != 1 else ''})"


def test_json_rows_are_objects_keyed_by_variable_and_csv_has_a_header():
    res = query("--project-root", EXAMPLE, "owner(I, M, _, S, _), M = \"constraints.md\"", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["schema"] == {"name": "query.result", "version": 2}
    assert doc["columns"] == ["I", "M", "S"]
    assert doc["rows"] and all(set(r) == {"I", "M", "S"} and r["M"] == "constraints.md" for r in doc["rows"])
    assert doc["tuples"] == [[r["I"], r["M"], r["S"]] for r in doc["rows"]]
    res = query("--project-root", EXAMPLE, "owner(I, M, _, S, _), M = \"constraints.md\"", "--format", "csv")
    table = list(csv.reader(io.StringIO(res.stdout)))
    assert table[0] == ["I", "M", "S"] and table[1:] == doc["tuples"]


def test_request_independent_relations_answer_without_a_request():
    res = query("--project-root", EXAMPLE, "owner(I, _, _, _, _)")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0] == "I" and "(0 tuples)" not in res.stdout


def test_request_dependent_relation_without_a_request_is_an_error_naming_the_options():
    res = query("--project-root", EXAMPLE, "disposition(M, D)")
    assert res.returncode == 2 and res.stdout == ""
    assert "DL918" in res.stderr and "--task" in res.stderr and "req_task" in res.stderr


def test_unknown_relation_names_the_nearest_known_one():
    res = query("--project-root", EXAMPLE, "ownr(I, M, Sc, S, F)")
    assert res.returncode == 2
    assert "<goal>:1:1: DL915" in res.stderr and "nearest known relation is owner" in res.stderr


def test_a_base_relation_without_facts_or_rules_never_matches_and_says_so():
    res = query("--project-root", EXAMPLE, "--task", "implementation", "req_path(P)")
    assert res.returncode == 2 and "DL917" in res.stderr and "req_path" in res.stderr
    # with a path it has facts and answers
    res = query("--project-root", EXAMPLE, "--task", "implementation", "--path", "web/app.ts", "req_path(P)")
    assert res.returncode == 0 and "web/app.ts" in res.stdout


def test_added_rules_from_e_and_a_pack(tmp_path):
    pack = tmp_path / "pack.dl"
    pack.write_text(".decl owned_twice(subject: symbol)\n"
                    "owned_twice(S) :- owner(I, _, _, S, _), owner(J, _, _, S, _), I < J.\n")
    res = query("--project-root", EXAMPLE, "--rules", pack,
                "-e", "many(S, N) :- owned_twice(S), N = count : { owner(_, _, _, S, _) }.",
                "many(S, N)", "--format", "json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["columns"] == ["S", "N"] and doc["rows"]
    assert all(isinstance(r["N"], int) and r["N"] >= 2 for r in doc["rows"])


def test_an_added_rule_may_not_extend_a_built_in_relation():
    res = query("--project-root", EXAMPLE, "-e", 'owner("x", "y", "z", "s", "f").', "owner(I, _, _, _, _)")
    assert res.returncode == 2 and "DL919" in res.stderr and "<-e 1>:1:1" in res.stderr


def test_goal_errors_point_into_the_goal():
    res = query("--project-root", EXAMPLE, "owner(I, M, _, _, _), !memory_file(X)")
    assert res.returncode == 2 and "DL109" in res.stderr and "<goal>:1:" in res.stderr
    res = query("--project-root", EXAMPLE, "owner(I, M, _, _, _), M > 3")
    assert res.returncode == 2 and "DL107" in res.stderr


def test_why_proves_each_answer_down_to_manifest_lines():
    res = query("--project-root", EXAMPLE, "--task", "implementation", "--path", "web/app.ts",
                'disposition("areas/web.md", D)', "--why")
    assert res.returncode == 0, res.stderr
    assert "answer D = \"loaded\":" in res.stdout
    assert "manifest.md:" in res.stdout and "<- rule" in res.stdout


def test_unknown_task_and_bad_root_are_usage_errors(tmp_path):
    res = query("--project-root", EXAMPLE, "--task", "nonsense", "disposition(M, D)")
    assert res.returncode == 2 and "invalid choice" in res.stderr
    res = query("--project-root", tmp_path / "missing", "memory_file(M)")
    assert res.returncode == 2 and "not a directory" in res.stderr


def test_request_options_need_a_project_not_a_program(tmp_path):
    prog = tmp_path / "p.dl"
    prog.write_text(".decl p(x: number)\np(1).\n")
    res = query(prog, "p(X)", "--task", "implementation")
    assert res.returncode == 2 and "--project-root" in res.stderr
