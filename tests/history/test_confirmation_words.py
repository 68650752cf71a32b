"""Words that say what happened (issue 24 item 4): a change whose commit carries
`Memory-Confirmed-By: alice`, when alice is not a configured reviewer, says so and how to make
her one, instead of "no Memory-Confirmed-By trailer from a reviewer"."""


import inprocess
from classes import CENTS
from histrepo import MEM, Repo

from analyzer.query.autonomy import run_autonomy, unit_of

UNLISTED = ("Memory-Confirmed-By: {name}, who is not a configured reviewer (set `--reviewer` or `reviewers` "
            "in the configuration)")


def reworded(tmp_path, trailers):
    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "Order totals are integers in cents", "Order totals are integers in minor units")
    return repo, repo.commit("reword", trailers=trailers)


def test_a_confirmation_by_someone_off_the_list(tmp_path):
    repo, sha = reworded(tmp_path, ("Memory-Confirmed-By: carol", "Memory-Confirmed-By: alice"))
    for reviewers in ([], ["bob"]):
        result = run_autonomy(repo.root, MEM, "confirm", f"{sha}~1", sha, reviewers, [], False)
        assert (result.status, result.exit_code) == ("CONFLICT", 1)
        [finding] = result.findings  # one finding, naming the first name off the list
        assert (finding.code, unit_of(finding)[1]) == ("MA-AUTONOMY-001", CENTS)
        assert UNLISTED.format(name="alice") in finding.message
        assert "no Memory-Confirmed-By trailer" not in finding.message
    # the text output, as a user reads it
    out = inprocess.run(["check", "--autonomy", "confirm", "--base", f"{sha}~1",
                         "--head", sha, "--reviewer", "bob", "--project-root", str(repo.root), "--no-cache"],
                        capture_output=True, text=True)
    assert out.returncode == 1 and UNLISTED.format(name="alice") in out.stdout


def test_no_trailer_keeps_its_words(tmp_path):
    repo, sha = reworded(tmp_path, ())
    [finding] = run_autonomy(repo.root, MEM, "confirm", f"{sha}~1", sha, ["bob"], [], False).findings
    assert "no Memory-Confirmed-By trailer from a reviewer" in finding.message and "who is not" not in finding.message


def test_a_reviewer_on_the_list_still_confirms(tmp_path):
    repo, sha = reworded(tmp_path, ("Memory-Confirmed-By: carol", "Memory-Confirmed-By: alice"))
    result = run_autonomy(repo.root, MEM, "confirm", f"{sha}~1", sha, ["alice"], [], False)
    assert (result.status, result.findings) == ("CLEAR", [])
