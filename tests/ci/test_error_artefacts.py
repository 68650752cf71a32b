"""A check that cannot run still writes every artefact it was asked for: configuration,
usage, rule-pack, baseline and project-root errors give SARIF with executionSuccessful false
and a notification, a JUnit error case, an annotation and a step-summary line, so a CI upload
step finds its files and shows the cause."""

from __future__ import annotations

import json

import pytest

from cihelp import REPO, copy_example, run_cli, sarif_validator

JUNIT_XSD = REPO / "tests" / "ci" / "schemas" / "junit-jenkins.xsd"


def _config(root, tmp):
    (root / ".memory-analyzer.toml").write_text('formatt = "sarif"\n', encoding="utf-8")
    return [], "MA-CONFIG-UNKNOWN-KEY"


def _usage(root, tmp):
    return ["--no-such-option"], "MA-USAGE"


def _pack(root, tmp):
    pack = tmp / "bad.dl"
    pack.write_text("/// @code ACME-1\n", encoding="utf-8")
    return ["--rules", str(pack)], "MA-PACK-HEADER"


def _baseline(root, tmp):
    base = tmp / "base.json"
    base.write_text("{not json", encoding="utf-8")
    return ["--baseline", str(base)], "MA-BASELINE"


def _root(root, tmp):
    return ["--project-root", str(tmp / "nowhere")], "MA-USAGE"


@pytest.mark.parametrize("make", [_config, _usage, _pack, _baseline, _root], ids=lambda f: f.__name__[1:])
def test_every_requested_artefact_carries_the_error(make, tmp_path):
    root = copy_example(tmp_path)
    argv, code = make(root, tmp_path)
    summary = tmp_path / "summary.md"
    summary.write_text("an earlier step\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    proc = run_cli(["check", "--all", "--project-root", str(root), *argv, "--format", "github",
                     "--output", f"sarif:{out / 'c.sarif'}", "--output", f"junit:{out / 'c.xml'}",
                     "--output", f"json:{out / 'c.json'}"], tmp_path, extra_env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert proc.returncode == 2, proc.stderr
    sarif = json.loads((out / "c.sarif").read_text(encoding="utf-8"))
    invocation = sarif["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    assert invocation["toolExecutionNotifications"][0]["descriptor"]["id"] == code
    validator = sarif_validator()
    if validator is not None:
        assert not list(validator.iter_errors(sarif))
    xml = (out / "c.xml").read_text(encoding="utf-8")
    assert f'type="{code}"' in xml and 'errors="1"' in xml
    xmlschema = pytest.importorskip("xmlschema")
    xmlschema.XMLSchema(str(JUNIT_XSD)).validate(str(out / "c.xml"))
    assert json.loads((out / "c.json").read_text(encoding="utf-8"))["status"] == "INVALID"
    assert proc.stdout.startswith("::error ") and f"title={code}" in proc.stdout
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("an earlier step\n") and "No check ran (exit 2)" in text and code in text


def test_the_step_summary_keeps_what_the_job_wrote_within_githubs_limit(tmp_path):
    """Earlier steps' summary stays, and ours fits in what is left of GitHub's 1 MiB."""
    from analyzer.render.md import LIMIT

    root = copy_example(tmp_path)
    summary = tmp_path / "summary.md"
    earlier = "x" * (LIMIT - 4000) + "\n"
    summary.write_text(earlier, encoding="utf-8")
    proc = run_cli(["check", "--all", "--format", "github", "--project-root", str(root)], tmp_path,
                    extra_env={"GITHUB_STEP_SUMMARY": str(summary)})
    text = summary.read_text(encoding="utf-8")
    assert proc.returncode == 1 and text.startswith(earlier)
    assert len(text.encode("utf-8")) <= LIMIT and "**Truncated:**" in text


def test_a_mistyped_option_writes_the_artefacts_and_names_the_option_meant(tmp_path):
    """The check's refused command line keeps both behaviours: the requested SARIF carries the
    MA-USAGE error, and stderr suggests the option (the CLI's did-you-mean)."""
    root = copy_example(tmp_path)
    proc = run_cli(["check", "--project-root", str(root), "--formt", "json",
                     "--output", f"sarif:{tmp_path / 'x.sarif'}"], tmp_path, cwd=tmp_path)
    assert proc.returncode == 2
    assert "did you mean '--format'?" in proc.stderr and proc.stderr.count("usage: analyze check") == 1
    notes = json.loads((tmp_path / "x.sarif").read_text(encoding="utf-8"))["runs"][0]["invocations"][0]
    assert notes["toolExecutionNotifications"][0]["descriptor"]["id"] == "MA-USAGE"


@pytest.mark.parametrize("make", [_config, _usage, _pack], ids=lambda f: f.__name__[1:])
def test_an_error_artefact_is_never_written_into_the_memory_dir(make, tmp_path):
    """Error artefacts go through analyzer/commands/outfiles.py like every write: a target in the
    project's memory dir is refused (MA-OUTPUT) and nothing is written, whatever the directory
    the command runs in (here not the project root)."""
    root = copy_example(tmp_path)
    argv, _ = make(root, tmp_path)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    proc = run_cli(["check", "--project-root", str(root), *argv,
                     "--output", f"sarif:{root / 'docs' / 'memory' / 'c.sarif'}",
                     "--output", f"json:{tmp_path / 'c.json'}"], tmp_path, cwd=tmp_path)
    assert proc.returncode == 2 and "MA-OUTPUT refused" in proc.stderr, proc.stderr
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before
    assert not (tmp_path / "c.json").exists()  # judged before any target is written


def test_two_outputs_naming_one_file_are_refused_before_anything_is_written(tmp_path):
    """`--output sarif:F --output junit:F` wrote the SARIF, then replaced it with the JUnit
    (exit 1, no word): now MA-OUTPUT, exit 2, and neither is written."""
    root = copy_example(tmp_path)
    target = tmp_path / "out.xml"
    proc = run_cli(["check", "--project-root", str(root), "--all", "--output", f"sarif:{target}",
                    "--output", f"junit:{tmp_path}/./out.xml"], tmp_path, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert f"MA-OUTPUT refused to write {tmp_path}/./out.xml twice" in proc.stderr
    assert not target.exists()
    proc = run_cli(["check", "--project-root", str(root), "--all", "--output", f"sarif:{target}",
                    "--output", f"junit:{tmp_path / 'other.xml'}"], tmp_path, cwd=tmp_path)
    assert proc.returncode == 1 and target.exists() and (tmp_path / "other.xml").exists()
