"""`analyze restore --preview`: the base unit, a patch `git apply --check` accepts, and
MA-ROLLBACK-002 when a restore would discard later edits; never applied."""

import json
import subprocess
import sys

import pytest

from classes import CENTS, DNU, NEW_DEC, build
from histrepo import MEM, Repo, tree_state

from analyzer.query.restore import commit_of, run_restore


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    repo = Repo(tmp_path_factory.mktemp("restore") / "project")
    return repo, build(repo)


def applies(repo, patch):
    """Whether `git apply --check` accepts the patch in the repository's work tree."""
    done = subprocess.run(["git", "apply", "--check", "-"], cwd=repo.root, input=patch, text=True, capture_output=True)
    return done.returncode == 0, done.stderr


def test_inplace_rewrite_is_restored(tmp_path):
    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "Order totals are integers in cents", "Order totals are integers in minor units")
    sha = repo.commit("reword")
    result = run_restore(repo.root, MEM, CENTS, f"{sha}~1", use_cache=False)
    assert (result.status, result.exit_code, result.cls, result.subkind) == ("READY", 0, "C", "inplace")
    assert "integers in cents" in result.base_text and result.findings == []
    assert "-Order totals are integers in minor units" in result.patch
    assert applies(repo, result.patch) == (True, "")
    # applied (in a throw-away copy of the check), the file is the base file again
    subprocess.run(["git", "apply", "-"], cwd=repo.root, input=result.patch, text=True, check=True)
    assert repo.git("diff", "--stat", f"{sha}~1", "--", MEM) == ""


def test_deleted_unit_comes_back_and_added_unit_goes(history):
    repo, shas = history
    result = run_restore(repo.root, MEM, DNU, shas["init"], use_cache=False)
    assert result.status == "READY" and result.cls == "D" and result.base_text.startswith(f"## {DNU}")
    assert applies(repo, result.patch)[0]
    added = run_restore(repo.root, MEM, "MC-INBOX-20261001-bbbb0001", shas["init"], use_cache=False)
    assert added.status == "READY" and added.base_text is None and applies(repo, added.patch)[0]


def test_later_edits_warn(history):
    repo, shas = history
    # NEW_DEC was added, reworded, then superseded: undoing it from before the rewording also
    # discards the supersession
    result = run_restore(repo.root, MEM, NEW_DEC, shas["add-active"], "HEAD", use_cache=False)
    assert (result.status, result.exit_code) == ("WARNING", 1)
    assert [commit_of(f) for f in result.findings] == [shas["rewrite-supersede"]]
    assert all(f.code == "MA-ROLLBACK-002" for f in result.findings)


def test_unchanged_unknown_and_read_only(history):
    repo, shas = history
    before = tree_state(repo.root)
    assert run_restore(repo.root, MEM, "MC-PREF-20260906-60718293", shas["init"], use_cache=False).status == "UNCHANGED"
    unknown = run_restore(repo.root, MEM, "MC-DEC-20991231-00000000", shas["init"], use_cache=False)
    assert (unknown.status, unknown.exit_code) == ("UNKNOWN", 2)
    run = subprocess.run([sys.executable, "-m", "analyzer", "restore", "--preview", DNU, "--base", shas["init"],
                          "--format", "json", "--project-root", str(repo.root)], capture_output=True, text=True)
    doc = json.loads(run.stdout)
    assert run.returncode == 0 and doc["schema"]["name"] == "restore.result" and doc["class"] == "D"
    assert tree_state(repo.root) == before


def test_an_unknown_id_gets_a_did_you_mean(history, capsys):
    """`restore --preview` of a mistyped or truncated ID said only "neither revision holds this
    ID"; it now suggests the ID as show does (the answer and exit 2 stand)."""
    from analyzer.commands.cli import main

    repo, shas = history
    typo = CENTS[:-1] + ("0" if CENTS[-1] != "0" else "1")
    for given, hint in ((typo, f"hint: did you mean {CENTS!r}?"), (CENTS[:-4], f"hint: IDs that start with {CENTS[:-4]}: ")):
        for fmt in ("text", "json"):
            code = main(["restore", "--preview", given, "--base", shas["init"], "--format", fmt,
                         "--project-root", str(repo.root)])
            err = capsys.readouterr().err
            assert code == 2 and hint in err, (given, fmt, err)


def test_blindspot_names_where(tmp_path):
    # no restore of a unit whose change cannot be read; the text says where, as diff does
    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", f"## {CENTS} \u2014 Totals", f"## {CENTS} -- Totals")
    sha = repo.commit("break a heading")
    run = subprocess.run([sys.executable, "-m", "analyzer", "restore", "--preview", CENTS, "--base", f"{sha}~1",
                          "--head", sha, "--no-cache", "--project-root", str(repo.root)], capture_output=True, text=True)
    assert run.returncode == 2 and "Status: BLINDSPOT" in run.stderr
    assert f"{MEM}/decisions.md:5:1: BLINDSPOT ({sha}): malformed Entry heading" in run.stderr
