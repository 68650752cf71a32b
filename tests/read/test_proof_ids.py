"""Proof trees show Entry, Subject and record IDs as their files write them (issue 25): the
fact base keys IDs casefolded, and every printed proof (``why`` text and JSON, ``query --why``,
``check --with-proofs``) puts the written form back; a pattern's ID still matches caselessly."""

from __future__ import annotations

import json
import re

from analyzer.query.proof_ids import as_written

LOWER_ID = re.compile(r'"mc-[a-z]+-\d{8}-[0-9a-f]{8}\\?"')
WRITTEN = "MC-CON-20260903-4e5f6071"  # examples/acme-shop/docs/memory/constraints.md:16


def test_why_text_and_json_show_ids_as_written(acme, analyze):
    pattern = f'entry_display("{WRITTEN.lower()}", _)'  # any case matches (the protocol compares caselessly)
    text = analyze("why", "--pattern", pattern, "--project-root", str(acme))
    assert text.returncode == 0, text.stderr
    assert f'entry_display("{WRITTEN}", "{WRITTEN}") holds' in text.stdout and not LOWER_ID.search(text.stdout)
    data = analyze("why", "--pattern", 'entry_relation(_, _, _)', "--project-root", str(acme), "--format", "json")
    proofs = json.loads(data.stdout)["proofs"]
    assert proofs and not LOWER_ID.search(json.dumps(proofs))
    assert proofs[0]["tuple"][0] == "MC-DEC-20260801-d7e8f90a"


def test_query_why_shows_ids_as_written(acme, analyze):
    run = analyze("query", "--why", "entry_relation(I, K, T)", "--project-root", str(acme), "--format", "json")
    document = json.loads(run.stdout)
    assert document["proofs"] and not LOWER_ID.search(json.dumps(document["proofs"]))
    text = analyze("query", "--why", "entry_relation(I, K, T)", "--project-root", str(acme))
    assert 'entry_relation("MC-DEC-20260905-2c3d4e5f", "Superseded-By"' in text.stdout
    assert not LOWER_ID.search(text.stdout)


def test_check_with_proofs_shows_ids_as_written(acme, analyze):
    run = analyze("check", "--all", "--with-proofs", "--format", "json", "--project-root", str(acme))
    proofs = [p for f in json.loads(run.stdout)["findings"] for p in f.get("proofs") or ()]
    dumped = json.dumps(proofs)
    assert WRITTEN in dumped and not LOWER_ID.search(dumped)


def test_only_whole_quoted_ids_change():
    written = {"mc-con-20260903-4e5f6071": WRITTEN}
    text = 'f("mc-con-20260903-4e5f6071", "archive/mc-con-20260903-4e5f6071.md") "x\\"mc-con-20260903-4e5f6071\\""'
    assert as_written(text, written) == \
        f'f("{WRITTEN}", "archive/mc-con-20260903-4e5f6071.md") "x\\"{WRITTEN}\\""'
    assert as_written('"mc-con-20260903-00000000"', written) == '"mc-con-20260903-00000000"'  # unknown: kept
