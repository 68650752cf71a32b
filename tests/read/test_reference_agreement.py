"""Where read used to differ from the reference (issue 13): canonical task in INVALID results,
Exception-To as a relation issue too, and JSON module order equal to the text order."""

from __future__ import annotations

import json

import pytest

from analyzer.render.read_text import GROUPS


def _json(proc):
    return json.loads(proc.stdout)


@pytest.mark.parametrize("task, canonical", [("execution", "implementation"), ("recap", "history"),
                                             ("default", "general")])
def test_invalid_result_echoes_the_canonical_task(acme, analyze, task, canonical):
    argv = ("read", "--project-root", str(acme), "--task", task, "--path", "/abs/x.py", "--no-local")
    text = analyze(*argv)
    assert text.returncode == 2
    assert text.stdout.splitlines()[1:4] == [f"Task: {task}", f"Canonical task: {canonical}", "Paths:"]
    assert "Routing completeness: INVALID" in text.stdout
    doc = _json(analyze(*argv, "--format", "json"))
    assert (doc["status"], doc["task"], doc["canonical_task"]) == ("INVALID", task, canonical)


def _bad_exception(acme):
    web = acme / "docs/memory/areas/web.md"
    # points at a superseded project decision: not an active project owner
    web.write_text(web.read_text(encoding="utf-8").replace(
        "Facet: architecture\n", "Facet: architecture\nException-To: MC-DEC-20260905-2c3d4e5f\n"), encoding="utf-8")


MESSAGE = ("Invalid Entry relation: MC-AREA-20260909-b5c6d7e8 Exception-To relation is invalid; it must point "
           "from an active area owner to a matching project owner")


def test_invalid_exception_to_is_also_a_relation_issue(acme, analyze):
    argv = ("read", "--project-root", str(acme), "--task", "implementation", "--path", "web/src/cart.ts",
            "--no-local", "--names-only")
    before = _json(analyze(*argv, "--format", "json"))
    assert not any(f["message"] == MESSAGE for f in before["conflict_findings"])
    _bad_exception(acme)
    text = analyze(*argv)
    assert f"- MC-CONFLICT-008 INVALID: {MESSAGE} Entries: MC-AREA-20260909-b5c6d7e8." in text.stdout
    assert "- MC-CONFLICT-006 INVALID: Invalid Exception-To relation." in text.stdout
    findings = _json(analyze(*argv, "--format", "json"))["conflict_findings"]
    [relation] = [f for f in findings if f["message"] == MESSAGE]
    assert (relation["code"], relation["status"], relation["entries"]) == \
        ("MC-CONFLICT-008", "INVALID", ["MC-AREA-20260909-b5c6d7e8"])
    assert any(f["code"] == "MC-CONFLICT-006" for f in findings)


def test_valid_exception_to_is_no_relation_issue(acme, analyze):
    # an area entry excepting an active project decision with the same Subject and Facet
    web = acme / "docs/memory/areas/web.md"
    web.write_text(web.read_text(encoding="utf-8").replace(
        "Subject: MC-SUBJ-20260901-0a0a0a03\nFacet: architecture\n",
        "Subject: MC-SUBJ-20260901-0a0a0a01\nFacet: data-model\nException-To: MC-DEC-20260910-1b2c3d4e\n"),
        encoding="utf-8")
    doc = _json(analyze("read", "--project-root", str(acme), "--task", "implementation", "--path",
                        "web/src/cart.ts", "--no-local", "--names-only", "--format", "json"))
    assert not [f for f in doc["conflict_findings"] if "Exception-To" in f["message"]]


@pytest.mark.parametrize("argv", [
    ("--task", "implementation", "--path", "web/src/cart.ts"),
    ("--task", "implementation", "--rule", "nope", "--profile", "oncall"),
    ("--task", "maintenance"),
])
def test_json_modules_follow_the_text_order(acme, analyze, argv):
    (acme / "docs/memory/preferences.md").unlink()  # a missing-optional module among the others
    base = ("read", "--project-root", str(acme), *argv, "--no-local", "--names-only")
    text = analyze(*base).stdout.splitlines()
    shown, group = [], None
    headings = {h for h, _ in GROUPS}
    for line in text[text.index("Loaded:"):text.index("Budget omissions:")]:
        if line in headings:
            group = line
        elif line.startswith("- ") and line != "- none" and group:
            shown.append(line[2:])
    doc = _json(analyze(*base, "--format", "json"))
    assert [m["path"] for m in doc["modules"]] == shown
    order = [d for _, d in GROUPS]
    ranks = [order.index(m["disposition"]) for m in doc["modules"]]
    assert ranks == sorted(ranks) and len(set(ranks)) >= 2


def test_invalid_exception_to_is_a_relation_issue_in_check_too(acme, analyze):
    _bad_exception(acme)
    text = analyze("check", "--conflicts", "--project-root", str(acme))
    assert f"- MC-CONFLICT-008 INVALID: {MESSAGE} Entries: MC-AREA-20260909-b5c6d7e8." in text.stdout
    assert "- MC-CONFLICT-006 INVALID: Invalid Exception-To relation." in text.stdout
    doc = _json(analyze("check", "--conflicts", "--project-root", str(acme), "--format", "json"))
    messages = json.dumps(doc)
    assert MESSAGE in messages and "MC-CONFLICT-006" in messages
