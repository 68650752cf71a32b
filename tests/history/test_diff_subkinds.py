"""`analyze diff` class by class, field by field: each normative field the issue names (body,
Reason, Scope, Subject, Facet, Exception-To) is C/inplace; title, Evidence, a move to another
live file and lifecycle fields are E; a promotion's new active ID is A; a record's Resolution
is C; leaving the active set without a successor is D/soft. One work-tree edit each, golden
(class/sub-kind, ID) lists."""

import pytest

from classes import CENTS
from histrepo import MEM, Repo, entry

from analyzer.query.diff import run_diff

AREA_API = "MC-CON-20260909-c6d7e8f9"
INBOX = "MC-INBOX-20260912-718293a4"
RECORD = "MC-REC-20260911-8293a4b5"
PROMOTED = "MC-CON-20261120-abcd0001"
CENTS_FIELDS = "Scope: project\nSubject: MC-SUBJ-20260901-0a0a0a01\nFacet: data-model\nEvidence:\n- repo:api/orders.py"


def edit(module, old, new):
    return lambda repo: repo.edit(module, old, new)


def move_to_constraints(repo):
    text = repo.read("areas/api.md")
    start = text.index(f"## {AREA_API}")
    repo.write("areas/api.md", text[:start].rstrip("\n") + "\n")
    repo.write("constraints.md", repo.read("constraints.md").rstrip("\n") + "\n\n" + text[start:])


def promote(repo):
    repo.edit("inbox.md", "Status: candidate\n", f"Status: promoted\nPromoted-To: {PROMOTED}\n")
    unit = entry(PROMOTED, "Search index rebuilt nightly", "The search index is rebuilt nightly.", field="Constraint",
                 scope="area:search", extra=(f"Promoted-From: {INBOX}",))
    repo.write("constraints.md", repo.read("constraints.md").rstrip("\n") + "\n\n" + unit)


CASES = {
    "body": (edit("decisions.md", "integers in cents from", "integers in minor units from"), [("C/inplace", CENTS)]),
    "reason": (edit("decisions.md", "Rounding differences", "Rounding errors"), [("C/inplace", CENTS)]),
    "scope": (edit("decisions.md", CENTS_FIELDS, CENTS_FIELDS.replace("Scope: project", "Scope: area:api")),
              [("C/inplace", CENTS)]),
    "subject": (edit("decisions.md", CENTS_FIELDS, CENTS_FIELDS.replace("0a0a0a01", "0a0a0a03")), [("C/inplace", CENTS)]),
    "facet": (edit("decisions.md", CENTS_FIELDS, CENTS_FIELDS.replace("Facet: data-model", "Facet: money")),
              [("C/inplace", CENTS)]),
    "exception-to": (edit("areas/api.md", "Facet: behavior\n", "Facet: behavior\nException-To: MC-CON-20260902-3d4e5f60\n"),
                     [("C/inplace", AREA_API)]),
    "title": (edit("decisions.md", "Totals are computed in integer cents", "Totals are integer cents"),
              [("E/text", CENTS)]),
    "evidence": (edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#44\n"), [("E/evidence", CENTS)]),
    "move-live-file": (move_to_constraints, [("E/order", AREA_API)]),
    "promotion": (promote, [("A/active", PROMOTED), ("E/lifecycle", INBOX)]),
    "record-resolution": (edit("reconciliations.md", "Resolution: distinct", "Resolution: merged"),
                          [("C/inplace", RECORD)]),
    "leaves-active-set": (edit("decisions.md", f"## {CENTS} \u2014 Totals are computed in integer cents\n\nStatus: active",
                               f"## {CENTS} \u2014 Totals are computed in integer cents\n\nStatus: deprecated"),
                          [("D/soft", CENTS)]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_edit_one_class(tmp_path, case):
    repo = Repo(tmp_path / "p")
    change, golden = CASES[case]
    change(repo)
    result = run_diff(repo.root, MEM, "HEAD", use_cache=False)
    assert (result.failure, result.status, result.exit_code) == (None, "CHANGES", 0)
    assert sorted((f"{c.cls}/{c.subkind}", c.ident) for c in result.changes) == sorted(golden)
    assert all(c.commits == ["worktree"] for c in result.changes)
