"""``check --introduced``: for each current finding, the first-parent commit where it started.

Like ``git blame`` for findings. A finding is known by its fingerprint (analyzer/contract/
check_model.py: code, family, message, IDs and files, never line numbers), the key SARIF
consumers track it by. Only a commit that changed the memory dir can change what the check
finds in it, so the memory commits of HEAD's first-parent history are read, newest first
(one ``git log``), and each one's memory dir is checked with the same families; the walk
stops as soon as every current finding has been seen to start (it is absent before some
commit), or after ``depth`` memory commits. The revisions' files are read once per blob and
extracted through the facts cache (analyzer/history/revisions.py), so a file a commit left as it was
is neither read nor parsed again. What else the check reads (source paths of Evidence, the
repository's file list) is read as it is now.

A finding the work tree has and HEAD has not is ``worktree`` (age 0). One still present at
the oldest commit read is reported as started at or before it (``exact`` false). A walk that
reaches a shallow clone's boundary before that is an error naming the missing commit
(analyzer/history/shallow.py), never a guessed start. A commit whose memory cannot be read (a
symlink or a name that is not UTF-8 in its memory dir) ends the walk with a note: what is
still present then started at or before the commit after it (``exact`` false).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Dict, List, Optional

from analyzer.contract.check_model import all_findings, fingerprints
from analyzer.history.git import FileError, GitError, History, Repo

DEPTH = 100  # memory commits read at most, by default (`--introduced-depth`)


@dataclass(frozen=True)
class Introduced:
    """Where a finding started: the commit (``worktree`` for uncommitted changes), its age in
    first-parent commits before HEAD (0: HEAD itself or the work tree), and whether it is
    exact (False: started at or before ``commit``, the oldest commit read)."""

    commit: str
    age: int
    exact: bool

    def payload(self) -> Dict[str, object]:
        """The JSON (and SARIF property) form."""
        return {"commit": self.commit, "age": self.age, "exact": self.exact}

    def words(self) -> str:
        """How the text and Markdown outputs say it."""
        if self.commit == "worktree":
            return ("introduced by uncommitted changes (the work tree)" if self.exact
                    else "present in the work tree; HEAD's memory could not be read to tell since when")
        ago = "HEAD" if self.age == 0 else f"{self.age} commit{'s' if self.age != 1 else ''} before HEAD"
        if self.exact:
            return f"introduced by {self.commit[:12]} ({ago})"
        return f"present since {self.commit[:12]} or earlier ({ago}, the oldest memory commit read)"


def trace(request, result, depth: int = DEPTH) -> Dict[str, Introduced]:
    """Fingerprint -> :class:`Introduced` for every finding of ``result`` (the check of the
    work tree that ``request`` ran). :class:`GitError` when Git cannot answer, the project is
    not in a repository with commits, or the walk crosses a shallow clone's boundary."""
    from analyzer.history.revisions import read_revisions
    from analyzer.history.shallow import require_commits

    current = fingerprints(all_findings(result))
    if not current:
        return {}
    repo = Repo(str(request.project_root))
    head = repo.commit("HEAD")
    history = History(repo, request.memory_dir)
    commits = list(reversed(history.log(["--first-parent", f"--max-count={depth}", head])))  # newest first
    found: Dict[str, Introduced] = {}
    open_ = set(current)
    bounded = False
    for n, commit in enumerate(commits):
        def newer(exact: bool = True) -> Introduced:  # the state after this commit (a Git call)
            return Introduced("worktree", 0, exact) if n == 0 else _at(repo, head, commits[n - 1].sha, exact)

        try:
            seen = _fingerprints(request, repo, read_revisions, commit.sha)
        except FileError as exc:
            # a commit whose memory cannot be read (the history's writer controls it: a
            # symlink, a name that is not UTF-8) ends the walk, not the command: what is
            # still open was present in the newer state, since when is not known
            print(f"analyze check: note: --introduced stops at {commit.sha[:12]}: {exc}", file=sys.stderr)
            return {**found, **dict.fromkeys(open_, newer(False))}
        # absent here, present in the newer state (the work tree for the newest commit):
        # started with the newer one
        started = newer() if open_ - seen else None
        for fp in open_ - seen:
            found[fp] = started
        open_ &= seen
        if not open_:
            return found
        if n == depth - 1:  # the bound: still present at the oldest commit read
            bounded = True
            break
        # the history must go on past this commit: a shallow clone's boundary commit shows
        # no parents though it has them
        require_commits(repo, [commit.sha], "tracing when a finding started", f"`git fetch --deepen={depth}`")
    if not commits:  # nothing committed holds the memory dir: every finding is the work tree's
        return {fp: Introduced("worktree", 0, True) for fp in current}
    # past the oldest memory commit, unless the bound stopped the walk, no commit changed the
    # memory dir: before it there was none (a root commit, or one without the dir), so what
    # it holds started with it
    for fp in open_:
        found[fp] = _at(repo, head, commits[-1].sha, not bounded)
    return found


def _fingerprints(request, repo: Repo, read_revisions, sha: str) -> set:
    """The fingerprints of the check's findings on the memory dir of commit ``sha``."""
    from analyzer.query.check import _evaluate

    [revision] = read_revisions(repo, [("rev", sha, sha[:12])], request.memory_dir, request.use_cache)
    result, _probes, _git = _evaluate(request, revision.project)
    return set(fingerprints(all_findings(result)))


def _at(repo: Repo, head: str, sha: str, exact: bool) -> Introduced:
    out = repo._run(repo.top, ["rev-list", "--count", "--first-parent", f"{sha}..{head}"]).decode("ascii").strip()
    if not out.isdigit():
        raise GitError(f"git rev-list gave no count for {sha}")
    return Introduced(sha, int(out), exact)


def attach(result, found: Dict[str, Introduced]) -> None:
    """Set ``introduced`` on every finding of ``result`` from ``found`` (by fingerprint)."""

    everything = all_findings(result)
    for finding, fp in zip(everything, fingerprints(everything)):
        finding.introduced = found.get(fp)


def lines(result) -> List[str]:
    """The text block: one line per finding that has a start."""

    out = []
    for finding in all_findings(result):
        intro: Optional[Introduced] = getattr(finding, "introduced", None)
        if intro is None:
            continue
        where = f" {finding.locations[0]}" if finding.locations else ""
        out.append(f"- {finding.code}{where}: {intro.words()}")
    return out
