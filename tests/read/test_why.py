"""analyze why / read --why: proofs name the rule, the manifest line and the matching input."""

from __future__ import annotations

import json


def test_path_routed_area_proof_names_glob_and_manifest_line(acme, analyze):
    run = analyze("why", "areas/web.md", "--project-root", str(acme), "--task", "implementation",
                  "--path", "web/src/cart.ts")
    assert run.returncode == 0, run.stderr
    # the one-line summary names the decisive evidence and its manifest line
    assert run.stdout.startswith("areas/web.md loaded (MC-ROUTE-PATH): path web/src/cart.ts matches glob web/** "
                                 "(docs/memory/manifest.md:")
    assert 'path_match("areas/web.md", "web/src/cart.ts", "web/**", 1)' in run.stdout
    assert "glob_match(\"web/**\", \"web/src/cart.ts\")" in run.stdout
    assert "(docs/memory/manifest.md:" in run.stdout  # the declaration's line
    assert "(rules/read/routing.dl:" in run.stdout  # the rule, named relative to the package
    assert "Reason MC-ROUTE-PATH:" in run.stdout


def test_skipped_module_proof_shows_absent_inputs(acme, analyze):
    run = analyze("read", "--why", "areas/web.md", "--project-root", str(acme), "--task", "implementation",
                  "--path", "api/orders.py")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("areas/web.md skipped (MC-SKIP-NO-PATH-MATCH): ")
    assert 'absent: !routed("areas/web.md")' in run.stdout
    assert "MC-SKIP-NO-PATH-MATCH" in run.stdout


def test_missing_required_module_proof_shows_missing_file(acme, analyze):
    (acme / "docs" / "memory" / "decisions.md").unlink()
    run = analyze("why", "decisions.md", "--project-root", str(acme), "--task", "implementation")
    assert run.stdout.startswith("decisions.md missing-required"), run.stderr
    assert 'absent: !memory_file("decisions.md")' in run.stdout


def test_bookkeeping_is_hidden_unless_verbose(acme, analyze):
    args = ("why", "areas/web.md", "--project-root", str(acme), "--task", "implementation", "--path", "web/src/cart.ts")
    brief, verbose = analyze(*args), analyze(*args, "--verbose")
    assert brief.returncode == verbose.returncode == 0
    # ordinals bound in rules, aggregate steps and request plumbing only with --verbose
    for detail in ("O = 200000", "min X : {", 'path_slashed("web/src/cart.ts"'):
        assert detail not in brief.stdout and detail in verbose.stdout
    assert brief.stdout.splitlines()[0] == verbose.stdout.splitlines()[0]


def test_a_pattern_without_tuples_is_explained_rule_by_rule(acme, analyze):
    run = analyze("why", "--pattern", 'disposition("changelog.md", "loaded")', "--project-root", str(acme),
                  "--task", "implementation")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == 'no tuple of disposition matches disposition("changelog.md", "loaded")'
    assert lines[1].startswith('disposition("changelog.md", "loaded") does not hold: routed(M) no tuple matches')
    # the route that names changelog.md is for another task: it is among the closest facts
    assert 'closest: route("history", "changelog.md", "optional", ' in run.stdout


def test_json_proofs_follow_the_declared_shape(acme, analyze):
    run = analyze("why", "areas/web.md", "--project-root", str(acme), "--task", "implementation",
                  "--path", "web/src/cart.ts", "--format", "json")
    data = json.loads(run.stdout)
    assert data["ok"] is True and data["status"] == "PROVED"
    assert data["schema"] == {"name": "why.module", "version": 1}
    assert data["disposition"] == "loaded" and data["primary_reason"] == "MC-ROUTE-PATH"
    assert data["proofs"][0]["relation"] == "disposition"


def test_pattern_proofs_and_errors(acme, analyze):
    run = analyze("why", "--pattern", 'skip_reason(M, "MC-SKIP-NOT-REQUESTED")', "--project-root", str(acme))
    assert run.returncode == 0 and 'skip_reason("profiles/oncall.md", "MC-SKIP-NOT-REQUESTED")' in run.stdout
    none = analyze("why", "--pattern", 'skip_reason("nope.md", _)', "--project-root", str(acme))
    assert none.returncode == 0 and none.stdout.startswith("no tuple of skip_reason matches")
    bad = analyze("why", "--pattern", "nosuch(X)", "--project-root", str(acme))
    assert bad.returncode == 2 and "undeclared relation 'nosuch'" in bad.stderr and "Traceback" not in bad.stderr
    unknown = analyze("why", "nope.md", "--project-root", str(acme))
    assert unknown.returncode == 2 and "the project has no module 'nope.md'" in unknown.stderr
    both = analyze("why", "brief.md", "--pattern", "disposition(_, _)", "--project-root", str(acme))
    assert both.returncode == 2


def test_usage_errors_exit_2_without_traceback(acme, analyze):
    task = analyze("read", "--project-root", str(acme), "--task", "bogus")
    assert task.returncode == 2 and "invalid choice: 'bogus'" in task.stderr
    root = analyze("read", "--project-root", str(acme / "missing"))
    assert root.returncode == 2 and "not a directory" in root.stderr
    for run in (task, root):
        assert "Traceback" not in run.stderr


def test_unusable_memory_dir_is_named_in_the_invalid_result(acme, analyze):
    run = analyze("read", "--project-root", str(acme), "--memory-dir", "../outside", "--names-only")
    assert run.returncode == 2
    assert "memory directory '../outside' is missing or unusable" in run.stderr
    assert "Routing completeness: INVALID" in run.stdout
