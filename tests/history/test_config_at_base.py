"""Who may confirm a change is not decided by the changes being judged (issue 32: the
repository's configuration is untrusted). An agent's pull request that adds itself to
``reviewers`` in .memory-analyzer.toml, and confirms its own rewrite with
``Memory-Confirmed-By: bot``, was CLEAR with exit 0 under ``check --autonomy confirm``: the
configuration was read from the work tree, i.e. from the pull request. ``reviewers``,
``agent-authors`` and ``autonomy`` are now read from the configuration at ``--base``."""


import inprocess
from histrepo import Repo

AGENT = "Bot <bot@example.org>"


def autonomy(repo, base, head, *extra):
    return inprocess.run(["check", "--autonomy", "confirm", "--base", base,
                          "--head", head, "--project-root", str(repo.root), "--no-cache", *extra],
                         capture_output=True, text=True)


def agent_names_itself(tmp_path, config="reviewers = [\"alice\", \"bot\"]\n"):
    repo = Repo(tmp_path / "p")
    (repo.root / ".memory-analyzer.toml").write_text("reviewers = [\"alice\"]\n", encoding="utf-8")
    base = repo.commit("configure the reviewers", trailers=("Memory-Confirmed-By: alice",))
    (repo.root / ".memory-analyzer.toml").write_text(config, encoding="utf-8")
    repo.edit("decisions.md", "integers in cents from", "integers in minor units from")
    head = repo.commit("reword", author=AGENT, trailers=("Memory-Confirmed-By: bot",))
    return repo, base, head


def test_a_pull_request_cannot_add_its_author_to_the_reviewers(tmp_path):
    repo, base, head = agent_names_itself(tmp_path)
    out = autonomy(repo, base, head)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "CONFLICT" in out.stdout and "MA-AUTONOMY-001" in out.stdout
    assert "bot, who is not a configured reviewer" in out.stdout
    # the user is told why the edited list was not used
    assert "at the base revision" in out.stderr and "reviewer 'bot'" in out.stderr


def test_the_base_configuration_confirms_and_the_command_line_still_wins(tmp_path):
    repo, base, head = agent_names_itself(tmp_path)
    # bot already a reviewer at the base: the trailer counts
    (repo.root / ".memory-analyzer.toml").write_text("reviewers = [\"bot\"]\n", encoding="utf-8")
    base2 = repo.commit("bot reviews", trailers=("Memory-Confirmed-By: alice",))
    repo.edit("decisions.md", "integers in minor units from", "integers in the smallest units from")
    head2 = repo.commit("reword again", author=AGENT, trailers=("Memory-Confirmed-By: bot",))
    assert autonomy(repo, base2, head2).returncode == 0
    # a trusted command line names the reviewers itself
    assert autonomy(repo, base, head, "--reviewer", "bot").returncode == 0


def test_a_configuration_without_the_file_at_the_base_names_no_reviewer(tmp_path):
    repo = Repo(tmp_path / "p")
    base = repo.git("rev-parse", "HEAD").strip()
    (repo.root / ".memory-analyzer.toml").write_text("reviewers = [\"bot\"]\n", encoding="utf-8")
    repo.edit("decisions.md", "integers in cents from", "integers in minor units from")
    head = repo.commit("reword", author=AGENT, trailers=("Memory-Confirmed-By: bot",))
    out = autonomy(repo, base, head)
    assert out.returncode == 1 and "CONFLICT" in out.stdout, out.stdout + out.stderr


def test_a_broken_configuration_at_the_base_is_a_clear_error(tmp_path):
    repo = Repo(tmp_path / "p")
    (repo.root / ".memory-analyzer.toml").write_text("reviewers = [\n", encoding="utf-8")
    base = repo.commit("broken")
    (repo.root / ".memory-analyzer.toml").write_text("reviewers = [\"bot\"]\n", encoding="utf-8")
    head = repo.commit("fixed", author=AGENT)
    out = autonomy(repo, base, head)
    assert out.returncode == 2 and "MA-CONFIG-TOML" in out.stderr and "Traceback" not in out.stderr
