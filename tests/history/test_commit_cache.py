"""What Git's diff says about each commit is kept between runs (analyzer/history/commit_cache.py):
a warm run diffs nothing, gives the same diff and readings, and a damaged entry is
recomputed; --no-cache neither reads nor writes it."""

import os

import pytest

from classes import build
from histrepo import MEM, Repo, tree_state

from analyzer.history import commit_cache
from analyzer.history.git import History
from analyzer.query.diff import run_diff
from analyzer.query.readiness import run_readiness


@pytest.fixture()
def history(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo = Repo(tmp_path / "project")
    return repo, build(repo)


def _counting(monkeypatch):
    """Count the Git diffs: readiness's unit patches (built from `git log -U0` by
    analyzer/history/unit_hunks.py; Git's own widening, History.unit_patches, is only its fallback
    and must not run) and Git's hunk attribution (History.touched_ids: asked only for units
    that moved, which this history has none of)."""
    import analyzer.history.unit_hunks as unit_hunks

    calls = {"unit_patches": 0, "touched_ids": 0}
    for owner, name, counted in ((unit_hunks, "unit_patches", "unit_patches"), (History, "touched_ids", "touched_ids"),
                                 (History, "unit_patches", "fallback")):
        real = getattr(owner, name)

        def wrapped(*args, _real=real, _name=counted, **kwargs):
            if args[1:] and args[1][0] != "diff":  # the work tree's own diff is never cached
                calls[_name] = calls.get(_name, 0) + 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(owner, name, wrapped)
    return calls


def _diff(repo, shas, use_cache=True):
    result = run_diff(repo.root, MEM, shas["init"], "HEAD", use_cache=use_cache)
    assert result.failure is None
    return [(c.cls, c.subkind, c.ident, c.before, c.after, c.commits) for c in result.changes]


def _readings(repo, use_cache=True):
    result = run_readiness(repo.root, MEM, "HEAD", None, use_cache=use_cache)
    assert result.failure is None
    return [(r.name, r.state, r.details) for r in result.readings]


def test_a_warm_run_diffs_no_commit_and_answers_the_same(history, monkeypatch):
    repo, shas = history
    before = tree_state(repo.root)
    cold = _diff(repo, shas, use_cache=False), _readings(repo, use_cache=False)
    calls = _counting(monkeypatch)
    first = _diff(repo, shas), _readings(repo)
    # diff attributes by the commits' unit snippets, which readiness reuses: the reading
    # diffs only the window's root commit, which the diff's range leaves out
    assert calls == {"unit_patches": 2, "touched_ids": 0}
    second = _diff(repo, shas), _readings(repo)
    assert calls == {"unit_patches": 2, "touched_ids": 0}, "the second run diffed again"
    assert cold == first == second
    assert any(change[-1] for change in first[0]), "changes carry the commits that touched them"
    assert tree_state(repo.root) == before


def test_only_new_commits_are_diffed(history, monkeypatch):
    repo, shas = history
    _diff(repo, shas)
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#43\n")
    new = repo.commit("one more")
    asked = []
    import analyzer.history.unit_hunks as unit_hunks

    real = unit_hunks.unit_patches

    def spy(self, args, stdin=None):
        asked.append(stdin)
        return real(self, args, stdin)

    monkeypatch.setattr(unit_hunks, "unit_patches", spy)
    assert _diff(repo, shas) == _diff(repo, shas, use_cache=False)
    assert asked[0] == (new + "\n").encode("ascii")


def test_a_damaged_entry_is_recomputed(history, capsys):
    repo, shas = history
    expected = _readings(repo)
    area = commit_cache.AREA.directory()
    entries = [os.path.join(d, f) for d, _, files in os.walk(area) for f in files]
    assert entries
    for path in entries:
        with open(path, "r+b") as handle:
            handle.seek(-1, os.SEEK_END)
            last = handle.read(1)
            handle.seek(-1, os.SEEK_END)
            handle.write(bytes([last[0] ^ 1]))
    assert _readings(repo) == expected
    assert "discarded history cache entry" in capsys.readouterr().err


def test_no_cache_neither_reads_nor_writes(history):
    repo, shas = history
    _diff(repo, shas, use_cache=False)
    _readings(repo, use_cache=False)
    from analyzer.history.unit_parts import PARTS

    for area in (commit_cache.AREA.directory(), PARTS.directory()):
        assert not [f for _, _, files in os.walk(area) for f in files]


def test_kept_unit_parts_answer_as_parsed_ones_and_a_misshapen_entry_is_a_miss(history):
    """`analyze diff` keeps its units' parts per file (analyzer/history/unit_parts.py, area parts)."""
    from analyzer.history.unit_parts import PARTS

    repo, shas = history
    expected = _diff(repo, shas, use_cache=False)
    assert _diff(repo, shas) == expected
    area = PARTS.directory()
    entries = [os.path.join(d, f) for d, _, files in os.walk(area) for f in files]
    assert entries
    assert _diff(repo, shas) == expected
    import marshal

    keys = [os.path.basename(path).split(".")[0] for path in entries]
    for key in keys:  # rewrite every entry through the store with a value of the wrong shape
        PARTS.put(key, marshal.dumps({"x": "not a list of parts"}))
    assert _diff(repo, shas) == expected
    assert all(marshal.loads(PARTS.get(key)) != {"x": "not a list of parts"} for key in keys)


def test_a_stored_value_of_the_wrong_shape_is_a_miss(history, monkeypatch):
    repo, shas = history
    import marshal

    from analyzer.history.git import UNIT_FUNCNAME

    folder = History(_git(repo), MEM).folder
    key = commit_cache._key("unit-touches", folder, shas["add-active"], UNIT_FUNCNAME)
    commit_cache.AREA.put(key, marshal.dumps({"not": "a list"}))
    assert _diff(repo, shas) == _diff(repo, shas, use_cache=False)
    assert marshal.loads(commit_cache.AREA.get(key)) != {"not": "a list"}


def _git(repo):
    from analyzer.history.git import Repo as GitRepo

    return GitRepo(str(repo.root))


def test_git_without_diff_merges_falls_back_to_its_older_spelling(history, monkeypatch):
    """Git before 2.31 refuses --diff-merges; `-m --first-parent` says the same there."""
    from analyzer.history.git import GitError

    import analyzer.history.unit_hunks as unit_hunks

    repo, _ = history
    expected = _readings(repo, use_cache=False)
    seen = []
    for owner in (unit_hunks, History):  # Git's -U0 log, and Git's own widening (the fallback)
        real = owner.unit_patches

        def old_git(self, revisions, stdin=None, _real=real):
            seen.append(list(revisions))
            if any(r.startswith("--diff-merges") for r in revisions):
                raise GitError("unrecognized argument: --diff-merges=first-parent")
            return _real(self, revisions, stdin)

        monkeypatch.setattr(owner, "unit_patches", old_git)
    assert _readings(repo) == expected
    assert [r for r in seen[-1] if r in ("-m", "--first-parent")] == ["-m", "--first-parent"]
    assert len(seen) == 2, seen


def test_a_rebuilt_version_git_does_not_hold_lets_git_widen(history, monkeypatch):
    """analyzer/history/unit_hunks.py checks each file version it rebuilds against the blob's size
    in Git; on any difference Git widens the hunks itself (History.unit_patches), and the
    reading is the same."""
    import analyzer.history.unit_hunks as unit_hunks

    repo, _ = history
    expected = _readings(repo, use_cache=False)
    monkeypatch.setattr(unit_hunks, "_sizes", lambda history, oids: {oid: 1 for oid in oids})
    calls = _counting(monkeypatch)
    assert _readings(repo) == expected
    assert calls == {"unit_patches": 1, "fallback": 1, "touched_ids": 0}


def test_a_warm_reading_compares_no_commit_and_reads_as_one_joint_evaluation(history, monkeypatch):
    """Each commit's comparison is evaluated once and kept (analyzer/history/window_pairs.py): a warm
    reading compares no commit, and every reading equals the one evaluation of all pairs
    and the readings together."""
    import analyzer.history.window as history_module
    from analyzer.history.window import window_facts
    from analyzer.query.program import readiness_program
    from analyzer.history.window import tip_time
    from analyzer.query.readiness import select_readings

    repo, _ = history
    patterns = [r"Human <human@example\.org>"]
    git = _git(repo)
    tip = git.commit("HEAD")
    now = tip_time(git, tip)
    program = readiness_program(False)
    window = window_facts(git, MEM, tip, now - 30 * 86400, now, False, program)
    window.facts["as_of"] = [(now,)]
    window.facts["agent_author_pattern"] = [(p,) for p in patterns]
    joint = [(r.name, r.state, r.details) for r in select_readings(window.facts.evaluate(program))]
    assert joint[0][2][0] != "0 agent changes in 30 days: A 0, B 0, C 0, D 0, E 0"

    def readings():
        result = run_readiness(repo.root, MEM, "HEAD", None, patterns=patterns)
        assert result.failure is None
        return [(r.name, r.state, r.details) for r in result.readings]

    compared = []
    real = history_module.compare_commits
    monkeypatch.setattr(history_module, "compare_commits",
                        lambda *args: compared.append(len(args[5])) or real(*args))
    assert readings() == joint
    assert compared == [len(window.commits)]
    assert readings() == joint
    assert compared == [len(window.commits)], "a warm reading compared commits again"
