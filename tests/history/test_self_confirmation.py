"""Changes cannot confirm or plan themselves. A reconciliation record confirms a change only
when the changes left it as it was, or a reviewer confirmed the record's own change: an agent
that rewrites an entry and adds, in the same commit, an active record listing it was CLEAR.
Likewise a plan.md the judged changes edited allows nothing without a reviewer's trailer."""

import pytest

from classes import CENTS
from histrepo import MEM, Repo

from analyzer.query.autonomy import run_autonomy, unit_of

RECORD = ("\n## MC-REC-20261120-abcd0002 \u2014 Totals and keys are separate\n\nStatus: active\nResolution: distinct\n"
          "Entries:\n- MC-CON-20260909-c6d7e8f9\n- MC-DEC-20260910-1b2c3d4e\nEvidence:\n- user-confirmed\n")


def rewrite_with_record(root, trailers=()):
    repo = Repo(root)
    repo.edit("decisions.md", "integers in cents from", "integers in minor units from")
    repo.write("reconciliations.md", repo.read("reconciliations.md").rstrip("\n") + "\n" + RECORD)
    return repo, repo.commit("rewrite a decision and add a record listing it", trailers=trailers)


def codes(result, ident):
    return [f.code for f in result.findings if unit_of(f)[1].casefold() == ident.casefold()]


def test_a_record_added_with_the_change_does_not_confirm_it(tmp_path):
    repo, sha = rewrite_with_record(tmp_path / "p", ("Memory-Agent: bot",))
    result = run_autonomy(repo.root, MEM, "confirm", f"{sha}~1", sha, ["alice"], [], use_cache=False)
    assert codes(result, CENTS) == ["MA-AUTONOMY-001"]
    assert (result.status, result.exit_code) == ("CONFLICT", 1)


@pytest.mark.parametrize("record_in_base", [True, False])
def test_an_earlier_or_confirmed_record_confirms(tmp_path, record_in_base):
    """A reviewer confirmed the commit that added the record; an agent's later rewrite of the
    entry is confirmed by it, whether the record is in the base (left as it is) or added
    within the range (its own change confirmed)."""
    repo = Repo(tmp_path / "p")
    repo.write("reconciliations.md", repo.read("reconciliations.md").rstrip("\n") + "\n" + RECORD)
    first = repo.commit("add a record", trailers=("Memory-Confirmed-By: alice",))
    repo.edit("decisions.md", "integers in cents from", "integers in minor units from")
    sha = repo.commit("rewrite a decision", trailers=("Memory-Agent: bot",))
    base = first if record_in_base else f"{first}~1"
    result = run_autonomy(repo.root, MEM, "confirm", base, sha, ["alice"], [], use_cache=False)
    assert codes(result, CENTS) == [] and (result.status, result.exit_code) == ("CLEAR", 0)
    unconfirmed = run_autonomy(repo.root, MEM, "confirm", base, sha, ["bob"], [], use_cache=False)
    assert codes(unconfirmed, CENTS) == ([] if record_in_base else ["MA-AUTONOMY-001"])


PLAN = "# Memory plan\n\n## Step 1 \u2014 Evidence\nAllow: E\n"


@pytest.mark.parametrize("trailer, reviewers, allowed", [((), ["alice"], False),
                                                         (("Memory-Confirmed-By: alice",), ["alice"], True),
                                                         (("Memory-Confirmed-By: alice",), ["bob"], False)])
def test_a_plan_written_with_the_changes_allows_them_only_when_confirmed(tmp_path, trailer, reviewers, allowed):
    """The seed's plan is written by people (§五): a plan.md the judged commits add, without
    a reviewer's trailer on the commit that last changed it, allows nothing."""
    repo = Repo(tmp_path / "p")
    repo.write("plan.md", PLAN)
    repo.commit("a plan", trailers=trailer)
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#44\n")
    sha = repo.commit("evidence", trailers=("Memory-Agent: bot",))
    result = run_autonomy(repo.root, MEM, "plan", f"{sha}~2", sha, reviewers, [], use_cache=False)
    assert codes(result, CENTS) == ([] if allowed else ["MA-AUTONOMY-002"])
    # uncommitted edits to the plan are never confirmed
    repo.write("plan.md", PLAN + "\n## Step 2 \u2014 More\nAllow: A\n")
    worktree = run_autonomy(repo.root, MEM, "plan", f"{sha}~2", None, reviewers, [], use_cache=False)
    assert codes(worktree, CENTS) == ["MA-AUTONOMY-002"] and "(worktree)" in worktree.findings[0].message
