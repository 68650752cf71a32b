"""The memory history of a window of commits as facts, for readiness and the autonomy check.

Each commit of the window (first-parent history of the tip, committer time in the window)
is compared with its first parent as one ``git_pair`` of rules/diff/. The pair's two
revisions hold only the units the commit changed: Git's changed lines widened to whole
units (analyzer/history/unit_hunks.py, as :meth:`analyzer.history.git.History.unit_patches` has Git widen
them), parsed by the work tree's extractors with the manifest of that commit (which selects
the entry grammar). Work grows with what the commits changed, never with history length x
project size: a changed file is read whole at most once per run, and its other versions
are rebuilt from the hunks; what Git's diff says about a commit is kept between runs
(analyzer/history/commit_cache.py), so Git diffs only commits no earlier run has seen. The units
the commit left as it is that rules ask about come from the parent commit: a predecessor a
changed unit names in ``Supersedes`` (analyzer/history/held_units.py) and a second holder of a
changed unit's ID (analyzer/history/held_twice.py), so a commit is classified, or reported as a
blind spot, as ``analyze diff`` does. A unit moved within its file (E/order) is found over
the whole file, as ``analyze diff`` finds it (analyzer/history/window_order.py: only files whose
snippets hold a unit with the same text on both sides are read whole), and read at the
parent when the snippets do not hold it (tests/history/test_diff_order.py). Nothing is
decided here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List

from analyzer.history.decode import decode_blob, refuse_undecodable
from analyzer.history.git import Commit, GitError, History, Repo, commit_time
from analyzer.history.revisions import Revision
from analyzer.history.unit_cuts import shared
from analyzer.history.unit_digests import READ
from analyzer.project import files
from analyzer.project.extraction import judged_together
from analyzer.project.loader import load_texts
from analyzer.project.facts_cache import Bundle, extractor_version

DAY = 86400
WINDOW_DAYS = 30  # the longest window a reading uses (the seed's long-term window)
MANIFEST = "manifest.md"


@dataclass
class Window:
    """The commits of a window and the facts comparing each with its first parent."""

    commits: List[Commit]
    facts: Dict[str, List[tuple]]


def tip_time(repo: Repo, tip: str) -> int:
    """The committer time of ``tip`` (the default "now" of a reading: never the wall clock)."""
    out = repo._run(repo.top, ["log", "-1", "--format=%ct", tip, "--"]).decode("ascii", "replace").strip()
    when = commit_time(out)
    if when == 0 and out != "0":  # negative, not a number, 2**63 or more: Git reads it as no time
        raise GitError(f"the commit time of {tip} is one Git cannot read ({out or 'none'}); give --as-of")
    return when


def require_memory_dir(repo: Repo, memory_dir: str, sha: str, label: str) -> None:
    """Raise :class:`GitError` when ``memory_dir`` is not a strict subdirectory of docs/ (the
    option's rule, before Git reads a path outside it), or commit ``sha`` (``label``, as
    given; "" for the work tree, checked when it is read) has no memory dir: a mistyped
    --memory-dir or --head must not read as an empty memory, UNCHANGED or CLEAR."""
    shape = files.memory_dir_shape(memory_dir)
    if shape is not None:
        raise GitError(f"{shape}: {memory_dir}")
    if sha and not History(repo, memory_dir).folder_trees([sha]).get(sha):
        raise GitError(f"{label}: memory dir is missing or unusable: {memory_dir}")


def _manifests(repo: Repo, history: History, commits: List[Commit], changed) -> Dict[str, str]:
    """commit id -> the text of manifest.md at it ("" when absent), for the window's commits
    and their first parents, following the manifest's own changes along first parents
    (``changed``: :meth:`analyzer.history.git.History.changes` of the window)."""
    first = commits[0].parents[0] if commits[0].parents else ""
    oids = {first: history.blob_at(first, MANIFEST) if first else ""}
    current = oids[first]
    for commit in commits:
        for path, _old, new in changed.get(commit.sha, []):
            if path == MANIFEST:
                current = new
        oids[commit.sha] = current

    blobs = repo.blobs(oid for oid in oids.values() if oid)
    # a manifest that is not UTF-8 makes the reading fail (exit 2), never a guessed text
    texts: Dict[str, str] = {}
    for sha, oid in oids.items():
        texts[sha] = decode_blob(history, MANIFEST, sha, blobs[oid]) if oid else ""
    return texts


def window_commits(history: History, tip: str, since: int, until: int) -> List[Commit]:
    """The memory commits of ``tip``'s first-parent history with committer time in
    ``[since, until]``, oldest first."""
    return [c for c in history.log(["--first-parent", tip]) if since <= c.time <= until]


def window_facts(repo: Repo, memory_dir: str, tip: str, since: int, until: int, use_cache: bool,
                 program) -> Window:
    """Compare every memory commit of ``tip``'s first-parent history with committer time in
    ``[since, until]`` with its first parent (one pair per commit, named by its id)."""
    history = History(repo, memory_dir)
    commits = window_commits(history, tip, since, until)
    return compare_commits(repo, history, memory_dir, tip, commits, commits, use_cache, program)


def compare_commits(repo: Repo, history: History, memory_dir: str, tip: str, commits: List[Commit],
                    compared: List[Commit], use_cache: bool, program, reads=None) -> Window:
    """The facts comparing each commit of ``compared`` (some of the window ``commits`` of
    ``tip``, in order) with its first parent; ``reads``: the only relations read of them
    (:func:`analyzer.history.compare.comparison_facts`), when known."""
    with shared():  # the snippets are cut for reorders and again for free-form units
        return _compare_commits(repo, history, memory_dir, tip, commits, compared, use_cache, program, reads)


def _compare_commits(repo: Repo, history: History, memory_dir: str, tip: str, commits: List[Commit],
                     compared: List[Commit], use_cache: bool, program, reads) -> Window:
    from analyzer.history.commit_cache import commit_patches
    from analyzer.history.held_twice import held_elsewhere, untouched
    from analyzer.history.held_units import named_outside, units_at, with_units
    from analyzer.history.compare import Comparison, commit_facts, comparison_facts

    if not compared:
        return Window([], Comparison({"git_pair": []}, None, None, {}))
    first = commits[0].parents[0] if commits[0].parents else ""
    rng = ["--first-parent", f"{first}..{tip}" if first else tip]
    patches = commit_patches(history, [c.sha for c in compared], use_cache)
    # fail closed on bytes that are not UTF-8 (analyzer/history/decode.py)
    refuse_undecodable(history, patches, {c.sha: c.parents[0] if c.parents else "" for c in compared})
    changed = history.changes(rng, [c.sha for c in commits])
    manifests = _manifests(repo, history, commits, changed)
    from analyzer.history.window_order import moved_units

    moved = moved_units(history, {c.sha: patches.get(c.sha, {}) for c in compared}, changed)
    commits = compared
    sides = {}
    for commit in commits:
        parent = commit.parents[0] if commit.parents else ""
        before: Dict[str, str] = {}
        after: Dict[str, str] = {}
        for path, (old, new) in patches.get(commit.sha, {}).items():
            if not _snippet_path(path):
                continue
            if old is not None:
                before[path] = old
            if new is not None:
                after[path] = new
        sides[commit.sha] = (parent, before, after)
    load = _loader(repo, memory_dir, manifests, use_cache)
    parsed = {}
    bundles = []
    # the entries of every snippet revision extracted now are judged by one evaluation of
    # rules/entries/ (601 evaluations, one per revision, were over a quarter of a cold reading)
    with judged_together():
        for chunk, bundle in _chunks(memory_dir, commits, use_cache):
            for commit in chunk:
                parent, before, after = sides[commit.sha]
                parsed[commit.sha] = (load(parent, before, bundle), load(commit.sha, after, bundle))
            bundles.append(bundle)
    for bundle in bundles:  # the loads are complete (their extractions judged) only now
        if bundle is not None:
            bundle.store()
    # units the commit did not change are not in its snippets, yet rules ask about two kinds:
    # a predecessor named in Supersedes, and a second holder of a changed unit's ID (a blind
    # spot). Read them at the parent and give them to both sides, as whole revisions hold them
    twice = held_elsewhere(history, commits, patches)
    # and a unit the commit moved (E/order, found over the whole file) that its snippets lack
    wanted = {sha: named_outside(parsed[sha][0][0], parsed[sha][1][0]) | twice.get(sha, set())
              | {ident for _kind, ident, _module in moved.get(sha, ())}
              for sha, (parent, _b, _a) in sides.items() if parent}
    wanted = {sha: ids for sha, ids in wanted.items() if ids}
    if wanted:
        held = units_at(history, {sides[sha][0]: ids for sha, ids in wanted.items()})
        with judged_together():
            for sha, ids in wanted.items():
                parent, before, after = sides[sha]
                units = {m: u for m, u in untouched(held.get(parent, {}), before, ids).items() if _snippet_path(m)}
                if units:
                    parsed[sha] = (load(parent, with_units(before, units)), load(sha, with_units(after, units)))
    revisions, pairs = [], []
    for commit in commits:
        for rev, (project, names) in zip(("~" + commit.sha, commit.sha), parsed[commit.sha]):
            # the later side says which units moved, from the whole file (analyzer/history/window_order.py)
            order = {"~" + commit.sha: frozenset(moved.get(commit.sha, ()))} if rev == commit.sha else None
            revisions.append(Revision(rev, commit.sha, rev, project, names, reordered=order))
        pairs.append((commit.sha, "~" + commit.sha, commit.sha))
    facts = comparison_facts(program, revisions, pairs, memory_dir, reads=reads)
    # each pair is one commit, so no unit needs its commits attributed (git_commit_touch):
    # a second pass over the patches would only cost time
    for name, rows in commit_facts(commits, {}).items():
        facts.setdefault(name, []).extend(rows)
    facts["git_pair_commit"] = [(c.sha, c.sha, 1) for c in commits]
    return Window(commits, facts)


def _snippet_path(path: str) -> bool:
    """Whether a folder-relative path's snippets are parsed (the manifest is given whole)."""
    return path.casefold().endswith(".md") and path != MANIFEST


def _loader(repo: Repo, memory_dir: str, manifests: Dict[str, str], use_cache: bool):
    """``load(sha, texts, bundle=None)``: the snippet ``texts`` parsed with the manifest of
    ``sha`` (which selects the entry grammar); (project, sorted module names). The files'
    extractions are kept in the facts cache in ``bundle`` (a :class:`~analyzer.project.facts_cache.Bundle`
    shared by several loads), or else as one entry for this load."""

    extracted: dict = {}  # the manifest's extraction, per text (most revisions share one)

    def load(sha: str, texts: Dict[str, str], bundle=None):
        texts = dict(texts)
        if manifests.get(sha):
            texts[MANIFEST] = manifests[sha]
        project = load_texts(repo.root, memory_dir, texts, use_cache=use_cache, manifests=extracted,
                             bundled=bundle or True)
        return project, tuple(sorted(texts))

    return load


def _chunks(memory_dir: str, commits: List[Commit], use_cache: bool):
    """``(commits, bundle)`` per run of ``commits`` (:func:`analyzer.history.commit_cache.runs`: a
    run ends after each commit whose id starts with ``0``, one in 16): the facts-cache entry
    (None without the cache) in which the snippet extractions of the run's commits are kept
    together. 2,002 entries, one per snippet revision, cost a first reading more to create
    than its snippets cost to extract (docs/performance.md, seventh round). Where a run ends
    depends on the commits alone, so a window that moved, or only some of whose commits are
    compared again, still finds most runs whole. The bundle's key names the run's commits;
    each file in it is found by its own facts key."""
    import hashlib

    from analyzer.history.commit_cache import runs

    by_sha = {commit.sha: commit for commit in commits}
    for run, _closed in runs([commit.sha for commit in commits]):
        bundle = None
        if use_cache:
            # "2": the bundle keeps only the relations the history code reads (READ)
            material = "\0".join(["snippets-2", extractor_version(), memory_dir, *run])
            bundle = Bundle(hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest(), READ)
        yield [by_sha[sha] for sha in run], bundle
