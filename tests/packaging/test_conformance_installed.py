"""analyze conformance from an installed package: one line says what it cannot check, instead
of a list of skipped checks (issue 13). The wheel test runs the real thing; this one fakes
the missing source tree in-process."""

from __future__ import annotations

import json

import analyzer.dev.gendocs
from analyzer.commands import cli
from analyzer.dev.conformance import CHECKS


def test_installed_conformance_says_so_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(analyzer.dev.gendocs, "source_root", lambda: None)
    status = cli.main(["conformance"])
    out = capsys.readouterr().out.splitlines()
    needs = [c.id for c in CHECKS if c.needs_source]
    assert out[0].startswith("conformance: installed package, no source tree: ")
    assert ", ".join(needs) in out[0] and "source checkout" in out[0]
    assert not any(" skip " in line for line in out)
    ran = [c.id for c in CHECKS if not c.needs_source]
    assert [line.split()[0] for line in out[1:-1] if line.startswith("CONF-")] == ran
    assert out[-1] == f"conformance: 0 of {len(ran)} checks failed"
    assert status == 0


def test_installed_conformance_json_keeps_every_check(monkeypatch, capsys):
    monkeypatch.setattr(analyzer.dev.gendocs, "source_root", lambda: None)
    assert cli.main(["conformance", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["source_tree"] is False
    assert {c["id"] for c in doc["checks"] if c["result"] == "skip"} == {c.id for c in CHECKS if c.needs_source}


def test_source_checkout_lists_every_check(capsys):
    assert cli.main(["conformance", "--check", "CONF-001"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "conformance: 0 of 1 checks failed, 0 skipped"
