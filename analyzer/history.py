"""The memory history of a window of commits as facts, for readiness and the autonomy check.

Each commit of the window (first-parent history of the tip, committer time in the window)
is compared with its first parent as one ``git_pair`` of rules/diff/: the pair's two
revisions hold only the memory files the commit changed (and manifest.md, which selects the
entry grammar), read from their blobs in one ``git cat-file --batch``. Work grows with the
files commits changed, never with history length x project size. Nothing is decided here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Tuple

from analyzer.git import Commit, GitError, History, Repo
from analyzer.revisions import Revision, decode_files

DAY = 86400
WINDOW_DAYS = 30  # the longest window a reading uses (the seed's long-term window)


@dataclass
class Window:
    """The commits of a window and the facts comparing each with its first parent."""

    commits: List[Commit]
    facts: Dict[str, List[tuple]]


def tip_time(repo: Repo, tip: str) -> int:
    """The committer time of ``tip`` (the default "now" of a reading: never the wall clock)."""
    out = repo._run(repo.top, ["log", "-1", "--format=%ct", tip, "--"]).decode("ascii").strip()
    if not out.isdigit():
        raise GitError(f"no commit time for {tip}")
    return int(out)


def window_facts(repo: Repo, memory_dir: str, tip: str, since: int, until: int, use_cache: bool,
                 program) -> Window:
    """Compare every memory commit of ``tip``'s first-parent history with committer time in
    ``[since, until]`` with its first parent (one pair per commit, named by its id)."""
    from analyzer.project import load_texts
    from analyzer.query.compare import commit_facts, comparison_facts

    history = History(repo, memory_dir)
    commits = [c for c in history.log(["--first-parent", tip]) if since <= c.time <= until]
    wanted = {c.sha for c in commits}
    changed = {sha: files for sha, files in history.changes([tip]).items() if sha in wanted}
    # manifest.md selects the entry grammar: its blob at the window's first parent, then
    # followed through the commits' own changes (first-parent history is a chain)
    manifest: Dict[str, str] = {}
    current = history.blob_at(commits[0].parents[0], "manifest.md") if commits and commits[0].parents else ""
    for commit in commits:
        if commit.parents:
            manifest[commit.parents[0]] = current
        for path, _old, new in changed.get(commit.sha, []):
            if path == "manifest.md":
                current = new
        manifest[commit.sha] = current
    listings: Dict[str, Dict[str, str]] = {}
    pairs: List[Tuple[str, str, str]] = []
    for commit in commits:
        md = [(path, old, new) for path, old, new in changed.get(commit.sha, []) if path.casefold().endswith(".md")]
        before = {path: old for path, old, _ in md if old}
        after = {path: new for path, _, new in md if new}
        parent = commit.parents[0] if commit.parents else ""
        for listing, sha in ((before, parent), (after, commit.sha)):
            if sha and manifest.get(sha) and "manifest.md" not in listing:
                listing["manifest.md"] = manifest[sha]
        listings["~" + commit.sha], listings[commit.sha] = before, after
        pairs.append((commit.sha, "~" + commit.sha, commit.sha))
    blobs = repo.blobs(oid for listing in listings.values() for oid in listing.values())
    parsed: Dict[tuple, object] = {}
    revisions = []
    for rev, listing in listings.items():
        key = tuple(sorted(listing.items()))
        if key not in parsed:
            texts = decode_files(listing, blobs, memory_dir, rev.lstrip("~")[:12])
            parsed[key] = load_texts(repo.root, memory_dir, texts, use_cache=use_cache)
        revisions.append(Revision(rev, rev.lstrip("~"), rev, parsed[key], key))
    facts = comparison_facts(program, revisions, pairs, memory_dir)
    first = commits[0].parents[0] if commits and commits[0].parents else ""
    touched = history.touched_ids(["log", "--first-parent", f"{first}..{tip}" if first else tip]) if commits else {}
    for name, rows in commit_facts(commits, {s: ids for s, ids in touched.items() if s in wanted}).items():
        facts.setdefault(name, []).extend(rows)
    facts["git_pair_commit"] = [(c.sha, c.sha, 1) for c in commits]
    return Window(commits, facts)
