"""A repository written by someone else cannot make Git's answers lie (issue 32).

Every Git call of analyzer/history/git.py runs with the configuration that changes answers fixed
(``SAFE_CONFIG``), without the caller's GIT_* variables, replace refs or grafts, and with
history read in the Git directory as a bare repository, where no ``.gitattributes`` of a
tree applies. ``git log`` fields are framed by a NUL and a random marker a message cannot
hold, and trailers come from Git's own trailer parser. Each test here failed before that.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import histrepo
import inprocess
from histrepo import MEM, Repo
from story import AS_OF, Story

CENTS_RECORD = ("\n## MC-REC-20261120-abcd0002 \u2014 Totals and keys are separate\n\nStatus: active\n"
                "Resolution: distinct\nEntries:\n- MC-CON-20260909-c6d7e8f9\n- MC-DEC-20260910-1b2c3d4e\n"
                "Evidence:\n- user-confirmed\n")


def analyze(root, *args, env=None):
    """``analyze ARGS`` in ``root``, run in this process (tests/inprocess.py: the Git calls are
    the analyzer's own subprocesses either way): (exit status, stdout, stderr). The
    backtracking-pattern test below keeps a process of its own, under a hard timeout."""
    proc = inprocess.run(args, cwd=root, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def confirm(root, base, head):
    """``check --autonomy confirm`` with alice as the reviewer: (exit status, status)."""
    code, out, err = analyze(root, "check", "--autonomy", "confirm", "--base", base, "--head", head,
                             "--reviewer", "alice", "--no-cache", "--format", "json")
    assert code in (0, 1, 2), err
    return code, json.loads(out)["status"]


# ---- 1. a message cannot forge another commit's fields ------------------------------------

def agent_rewrite(root):
    """An agent rewrites a decision and adds a record listing it, unconfirmed: CONFLICT."""
    repo = Repo(root)
    repo.edit("decisions.md", "integers in cents from", "integers in minor units from")
    repo.write("reconciliations.md", repo.read("reconciliations.md").rstrip("\n") + "\n" + CENTS_RECORD)
    sha = repo.commit("rewrite a decision and add a record", trailers=("Memory-Agent: bot",))
    return repo, sha


@pytest.mark.parametrize("forged", [False, True])
def test_a_later_message_cannot_confirm_an_earlier_commit(tmp_path, forged):
    repo, sha = agent_rewrite(tmp_path / "p")
    parent = repo.git("rev-parse", f"{sha}~1").strip()
    # the separators the log parser split on, then the fields of the earlier commit with a
    # reviewer's trailer; the honest variant says the same without them
    fake = "\x1e" + "\x1f".join((sha, parent, str(repo.time), "Human <human@example.org>", "confirm",
                                 "Memory-Confirmed-By: alice", ""))
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#43\n")
    body = "more evidence\n\n" + (fake if forged else "Memory-Confirmed-By: alice for the earlier commit")
    tip = repo.commit(body, trailers=("Memory-Agent: bot",))
    assert confirm(repo.root, f"{sha}~1", tip) == (1, "CONFLICT")


def test_a_replace_ref_cannot_rewrite_a_commit(tmp_path):
    """``git replace`` (a ref under refs/replace) would show another commit object, here the
    same one with a reviewer's trailer: the analyzer reads the objects as they are."""
    repo, sha = agent_rewrite(tmp_path / "p")
    raw = repo.git("cat-file", "commit", sha)
    forged = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=repo.root, check=True,
                            input=raw + "Memory-Confirmed-By: alice\n", capture_output=True, text=True,
                            env=histrepo.env()).stdout.strip()
    repo.git("replace", sha, forged)
    assert confirm(repo.root, f"{sha}~1", sha) == (1, "CONFLICT")


# ---- 2. attributes, configuration and environment change no answer ------------------------

def attributed_history(root):
    """Changes inside units whose hunks hold no heading line (Git names the unit from its
    funcname), among them a reverted removal of an entry (MA-ROLLBACK-002)."""
    s = Story(root)
    s.touch(20 * histrepo.DAY)
    s.rewrite("MC-DEC-20260910-1b2c3d4e", 19 * histrepo.DAY)
    s.repo.edit("decisions.md", "integers in cents from", "integers in minor units from")
    first = s.commit("rewrite", 18 * histrepo.DAY)
    s.revert(first, 17 * histrepo.DAY)
    s.touch(16 * histrepo.DAY)
    return s


def readings(root, base, cache):
    """What diff, readiness and check --autonomy say of the history, with the analyzer's
    cache in ``cache`` (so that a cached answer is compared too)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    out = []
    for args in (("diff", "--base", base, "--head", "HEAD", "--format", "json"),
                 ("readiness", "--as-of", f"@{AS_OF}", "--format", "json"),
                 ("check", "--autonomy", "full", "--base", base, "--head", "HEAD", "--reviewer", "alice",
                  "--format", "json")):
        code, stdout, stderr = analyze(root, *args, env=env)
        out.append((code, stdout, stderr))
    return out


HOSTILE_ATTRIBUTES = [("*.md diff=other\n", ".gitattributes"), ("*.md binary\n", f"{MEM}/.gitattributes"),
                      ("*.md -diff\n", ".gitattributes"), ("* -text\n*.md diff=other\n", f"{MEM}/.gitattributes")]


@pytest.fixture(scope="module")
def attributed(tmp_path_factory):
    s = attributed_history(tmp_path_factory.mktemp("attr") / "p")
    base = s.repo.git("rev-list", "--max-parents=0", "HEAD").strip()
    return s.repo, base, readings(s.repo.root, base, s.repo.root.parent / "honest-cache")


@pytest.mark.parametrize("attributes, where", HOSTILE_ATTRIBUTES)
def test_gitattributes_change_no_answer(attributed, attributes, where, tmp_path):
    repo, base, honest = attributed
    assert honest[0][0] == 0 and '"commits": [\n' in honest[0][1], honest
    (repo.root / where).write_text(attributes)
    try:
        assert readings(repo.root, base, tmp_path / "cache") == honest
    finally:
        (repo.root / where).unlink()
    # the history cache kept no answer of the hostile run
    assert readings(repo.root, base, tmp_path / "cache") == honest


HOSTILE_CONFIG = [("diff.external", "false"), ("diff.md.textconv", "tr a-z A-Z"), ("i18n.logOutputEncoding", "UTF-16"),
                  ("log.showSignature", "true"), ("diff.noprefix", "true"), ("color.ui", "always"),
                  ("core.quotePath", "true"), ("diff.suppressBlankEmpty", "true"), ("grep.lineNumber", "true"),
                  ("log.follow", "true"), ("diff.algorithm", "patience"), ("trailer.separators", ":#"),
                  ("core.bigFileThreshold", "10"), ("diff.mnemonicPrefix", "true"), ("diff.context", "9"),
                  ("core.commentChar", "M")]


def test_repository_configuration_and_environment_change_no_answer(attributed, tmp_path):
    repo, base, honest = attributed
    config = repo.root / ".git" / "config"
    saved = config.read_text()
    (repo.root / ".gitattributes").write_text("*.md diff=md\n")
    try:
        for key, value in HOSTILE_CONFIG:
            repo.git("config", key, value)
        assert readings(repo.root, base, tmp_path / "config-cache") == honest
    finally:
        config.write_text(saved)
        (repo.root / ".gitattributes").unlink()
    hostile_env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "diff.noprefix", "GIT_CONFIG_VALUE_0": "true",
                   "GIT_EXTERNAL_DIFF": "false", "GIT_DIFF_OPTS": "-u9", "GIT_DIR": str(tmp_path),
                   "GIT_ATTR_SOURCE": "HEAD", "GIT_NOTES_REF": "refs/heads/main"}
    saved_env = {k: os.environ.get(k) for k in hostile_env}
    os.environ.update(hostile_env)
    try:
        assert readings(repo.root, base, tmp_path / "env-cache") == honest
    finally:
        for k, v in saved_env.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)


# ---- 3. a NUL byte in a memory file -------------------------------------------------------

def test_a_nul_byte_does_not_make_a_file_binary(tmp_path):
    """Git calls a file with a NUL byte binary and shows no hunk of it: the commit's unit
    must still be attributed (``--text``)."""
    def touched(with_nul):
        repo = Repo(tmp_path / ("nul" if with_nul else "plain"))
        if with_nul:
            repo.write("decisions.md", repo.read("decisions.md") + "\n<!-- \x00 -->\n")
            repo.commit("a NUL byte at the end")
        base = repo.git("rev-parse", "HEAD").strip()
        repo.edit("decisions.md", "integers in cents from", "integers in minor units from")
        repo.commit("rewrite")
        code, out, err = analyze(repo.root, "diff", "--base", base, "--head", "HEAD", "--no-cache", "--format",
                                 "json")
        return code, [(c["id"], c.get("commits")) for c in json.loads(out).get("changes", [])] if out else err

    plain, nul = touched(False), touched(True)
    assert nul[0] == plain[0] and len(nul[1]) == len(plain[1]) == 1
    assert [i for i, _ in nul[1]] == [i for i, _ in plain[1]] and nul[1][0][1], nul


def test_info_attributes_with_diff_attributes_are_refused(attributed, tmp_path):
    """``.git/info/attributes`` is read even by a bare repository, above every other file:
    one naming a diff attribute is a clear error, never a changed answer."""
    repo, base, _honest = attributed
    info = repo.root / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text("*.md -diff\n")
    try:
        code, out, err = analyze(repo.root, "diff", "--base", base, "--head", "HEAD", "--no-cache")
    finally:
        (info / "attributes").unlink()
    assert code == 2 and "info/attributes sets diff attributes" in err and "internal error" not in err


# ---- 4. commit metadata Git cannot format, logs in other encodings, names not UTF-8 -------

def rewrite_head(repo, edit):
    """Replace HEAD by the same commit with ``edit`` applied to its raw header text."""
    raw = repo.git("cat-file", "commit", "HEAD")
    new = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin", "--literally"], cwd=repo.root,
                         check=True, input=edit(raw).encode("latin-1"), capture_output=True,
                         env=histrepo.env()).stdout.decode().strip()
    repo.git("update-ref", "refs/heads/main", new)
    return new


def every_history_command(root, as_of=True):
    """diff, check --autonomy and readiness over HEAD~1..HEAD: no internal error (exit 3),
    no traceback."""
    outs = []
    for args in (("diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"),
                 ("check", "--autonomy", "confirm", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"),
                 ("check", "--autonomy", "full", "--base", "HEAD~1", "--head", "HEAD"),
                 ("readiness", *(("--as-of", f"@{AS_OF}") if as_of else ()), "--format", "json"),
                 ("readiness",)):
        code, out, err = analyze(root, *args, "--no-cache")
        assert code in (0, 1, 2) and "internal error" not in err and "Traceback" not in err, (args, code, err)
        outs.append((code, out, err))
    return outs


@pytest.mark.parametrize("when", ["-5", "9223372036854775808", "18446744073709551617", "99999999999999", "abc",
                                  "253402300800"])
def test_commit_times_git_cannot_format_give_no_internal_error(tmp_path, when):
    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "integers in cents from", "integers in minor units from")
    repo.commit("rewrite", trailers=("Memory-Agent: bot",))
    rewrite_head(repo, lambda raw: "\n".join(
        " ".join(line.split(" ")[:-2] + [when, "+0000"]) if line.startswith(("author ", "committer ")) else line
        for line in raw.split("\n")))
    outs = every_history_command(repo.root)
    assert outs[0][0] == 0 and json.loads(outs[0][1])["counts"]["C"] == 1


@pytest.mark.parametrize("output_encoding", ["", "ISO-8859-1", "UTF-16"])
def test_commits_in_other_encodings_read_as_utf8(tmp_path, output_encoding):
    """A latin-1 commit (an ``encoding`` header) and a log output encoding set in the
    repository: authors and trailers read as the same text, no internal error."""
    repo = Repo(tmp_path / "p")
    repo.git("config", "i18n.commitEncoding", "ISO-8859-1")
    repo.edit("decisions.md", "integers in cents from", "integers in minor units from")
    repo.commit("r\u00e9\u00e9crit")
    rewrite_head(repo, lambda raw: raw.replace("author Human", "author J\u00e9r\u00f4me").replace(
        "\n\n", "\nencoding ISO-8859-1\n\n", 1) + "\nMemory-Confirmed-By: J\u00e9r\u00f4me\n")
    if output_encoding:
        repo.git("config", "i18n.logOutputEncoding", output_encoding)
    every_history_command(repo.root)
    from analyzer.history.git import History, Repo as GitRepo

    [commit] = History(GitRepo(str(repo.root)), MEM).log(["HEAD~1..HEAD"])
    assert commit.author == "J\u00e9r\u00f4me <human@example.org>"
    assert commit.trailers == (("Memory-Confirmed-By", "J\u00e9r\u00f4me"),)


def non_utf8_history(root):
    repo = Repo(root)
    base = repo.git("rev-parse", "HEAD").strip()
    (repo.root / MEM).joinpath(os.fsdecode(b"caf\xe9.md")).write_bytes(b"# Caf\xc3\xa9\n")
    repo.commit("a file whose name is not UTF-8")
    return repo, base


@pytest.mark.parametrize("command", [("read",), ("check",), ("facts",), ("list",), ("report",),
                                     ("diff", "--base", "HEAD~1"), ("diff", "--base", "HEAD~1", "--head", "HEAD"),
                                     ("readiness",), ("check", "--autonomy", "confirm", "--base", "HEAD~1")])
def test_a_memory_file_name_that_is_not_utf8_is_a_clear_error(tmp_path, command):
    repo, _base = non_utf8_history(tmp_path / "p")
    code, out, err = analyze(repo.root, *command, "--no-cache")
    assert "internal error" not in err and "Traceback" not in err, err
    shown = "docs/memory/caf\\xe9.md"
    # facts shows broken input and exits 0 (docs/cli.md); every other command refuses it
    assert code == (0 if command == ("facts",) else 2) and "MA-FILE-NAME" in out + err and shown in out + err, (code, out, err)


# ---- 5. user patterns run in linear time --------------------------------------------------

def test_a_backtracking_agent_author_pattern_does_not_hang(tmp_path):
    """``(a+)+$`` and a 34-letter author name ran past 60 s in readiness and check
    --autonomy full, from the configuration or the command line."""
    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "integers in cents from", "integers in minor units from")
    repo.commit("rewrite", author="a" * 34 + " <x@example.org>")
    (repo.root / ".memory-analyzer.toml").write_text("agent-authors = ['(a+)+$']\n")
    for args in (("readiness",), ("check", "--autonomy", "full", "--base", "HEAD~1", "--head", "HEAD"),
                 ("readiness", "--agent-author", "(a+)+$")):
        proc = subprocess.run([sys.executable, "-m", "analyzer", *args, "--no-cache"], cwd=repo.root,
                              capture_output=True, text=True, timeout=30)
        assert proc.returncode in (0, 1) and "internal error" not in proc.stderr, proc.stderr


def test_a_pattern_outside_the_linear_language_is_refused_at_its_line(tmp_path):
    repo = Repo(tmp_path / "p")
    (repo.root / ".memory-analyzer.toml").write_text("# agents\nagent-authors = ['bot', '(?=x)y']\n")
    code, _out, err = analyze(repo.root, "readiness", "--no-cache")
    assert code == 2 and ".memory-analyzer.toml:2:1: MA-CONFIG-VALUE" in err and "lookaround" in err, err
    (repo.root / ".memory-analyzer.toml").unlink()
    code, _out, err = analyze(repo.root, "readiness", "--agent-author", r"(a)\1", "--no-cache")
    assert code == 2 and "agent author pattern" in err and "backreference" in err, err


# ---- 6. SHA-256 repositories read as SHA-1 ones ------------------------------------------

def test_a_sha256_history_reads_as_the_same_sha1_history(tmp_path, monkeypatch):
    from test_readiness import ready_story

    def story(name, object_format):
        init = Repo.git

        def git(self, *args, **kw):
            if args[:1] == ("init",):
                args = (*args, f"--object-format={object_format}")
            return init(self, *args, **kw)

        monkeypatch.setattr(Repo, "git", git)
        s, _c2 = ready_story(tmp_path / name)
        monkeypatch.setattr(Repo, "git", init)
        assert len(s.repo.git("rev-parse", "HEAD").strip()) == (64 if object_format == "sha256" else 40)
        code, out, err = analyze(s.repo.root, "readiness", "--as-of", f"@{AS_OF}", "--no-cache", "--format", "json")
        assert code in (0, 1), err
        readings = {r["name"]: [r["state"], r["details"]] for r in json.loads(out)["readings"]}
        return readings, s.repo.git("log", "--format=%H").split()

    (sha1, ids1), (sha256, ids256) = story("sha1", "sha1"), story("sha256", "sha256")
    # the same readings, each commit named by its own id (R3 names the revert)
    for old, new in zip(ids1, ids256):
        sha1 = json.loads(json.dumps(sha1).replace(old[:12], new[:12]))
    assert sha1["R3"][0] == "pass" and sha256 == sha1


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to own files as another user")
def test_safe_directory_for_the_work_tree_still_lets_history_be_read(tmp_path, monkeypatch):
    """History is read in the Git directory as a bare repository, which Git checks against
    safe.directory by its own path: the work tree's entry (as actions/checkout writes it)
    must still do."""
    from analyzer.history.git import History, Repo as GitRepo

    repo = Repo(tmp_path / "p")
    for folder, dirs, names in os.walk(repo.root):
        for name in [*dirs, *names, "."]:
            os.lchown(os.path.join(folder, name), 65534, 65534)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[safe]\n\tdirectory = {repo.root}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert len(History(GitRepo(str(repo.root)), MEM).log(["HEAD"])) == 1


def test_the_work_trees_gitattributes_change_no_answer_or_are_refused(tmp_path):
    """A comparison with the work tree reads its attributes (Git 2.39 cannot switch them
    off): a diff driver gets the unit funcname too. Since changes are attributed by unit text
    (e832030), an edit in place asks Git for no work-tree hunk, so `-diff` and `binary` change
    nothing either (the refusal below stays for moves, which still ask Git's hunks)."""
    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#43\n")  # uncommitted, no heading in the hunk

    def commits():
        code, out, err = analyze(repo.root, "diff", "--base", "HEAD", "--no-cache", "--format", "json")
        return code, [c["commits"] for c in json.loads(out)["changes"]] if code == 0 else err

    honest = commits()
    assert honest == (0, [["worktree"]])
    (repo.root / ".gitattributes").write_text("*.md diff=other\n")
    assert commits() == honest
    for line in ("*.md -diff\n", "*.md binary\n"):
        (repo.root / ".gitattributes").write_text(line)
        assert commits() == honest, line


def test_another_git_program_keeps_its_own_history_cache(monkeypatch):
    """Cache keys hold everything that can change Git's answer that the repository cannot
    write: the options (VERSION), the funcname, and the git program itself."""
    from analyzer.history import commit_cache

    calls = []

    def compute(shas):
        calls.append(list(shas))
        return {sha: ["x"] for sha in shas}

    def run():
        return commit_cache.per_commit("hostile-test", "docs/memory", ["1" * 40], compute,
                                       lambda v: isinstance(v, list), [])

    run(), run()
    assert len(calls) == 1
    monkeypatch.setattr(commit_cache, "git_identity", lambda: "/elsewhere/git\0" + "1")
    run()
    assert len(calls) == 2
