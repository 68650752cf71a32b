"""History that a shallow clone does not hold: say which commit is missing and what to run.

A shallow clone (``git clone --depth N``, what ``actions/checkout`` makes by default) holds
every commit down to its boundary; a boundary commit's parents are not there (Git lists them
in ``.git/shallow`` and shows the commit as a root). ``analyze diff`` compares two trees, so
it needs only the two commits. What needs history beyond them checks here that the history
it walks does not cross the boundary: the merge base of ``check --autonomy`` and the merge
review (:func:`merge_base`), the readiness window (:func:`require_window`) and the commits a
finding is traced through (``check --introduced``, :func:`require_commits`). Crossing it is
a :class:`~analyzer.history.git.GitError` (exit 2) that names the missing parent and the command
that fetches it, never an answer computed from part of the history.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import FrozenSet, Iterable, List, Sequence

from analyzer.history.git import GitError, Repo

FULL = "`git fetch --unshallow` (in GitHub Actions, `fetch-depth: 0` on actions/checkout)"


def boundary(repo: Repo) -> FrozenSet[str]:
    """The shallow boundary commits of ``repo`` (empty for a complete clone): the ids in the
    repository's ``shallow`` file, which only Git writes; it is read, never changed."""
    cached = getattr(repo, "_shallow", None)
    if cached is not None:
        return cached
    path = repo._run(repo.top, ["rev-parse", "--git-path", "shallow"]).decode("utf-8", "surrogateescape").strip()
    path = path if os.path.isabs(path) else os.path.join(repo.top, path)
    try:
        with open(path, "rb") as handle:
            found = frozenset(line.strip().decode("ascii", "replace") for line in handle if line.strip())
    except FileNotFoundError:
        found = frozenset()
    except OSError as exc:
        raise GitError(f"cannot read the shallow clone's boundary {path}: {exc.strerror}") from None
    repo._shallow = found
    return found


def missing_parents(repo: Repo, commit: str) -> List[str]:
    """The parents ``commit``'s object names (a boundary commit still names them, though
    Git shows it as a root) that are not in the repository."""
    text = repo._run(repo.top, ["cat-file", "commit", commit]).decode("utf-8", "replace")
    parents = [line.split()[1] for line in text.split("\n\n", 1)[0].splitlines() if line.startswith("parent ")]
    if not parents:
        return []
    out = repo._run(repo.top, ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
                    stdin="".join(p + "\n" for p in parents).encode("ascii"))
    present = {line.split()[0] for line in out.decode("ascii", "replace").splitlines() if line.endswith(" commit")}
    return [p for p in parents if p not in present]


def stops_at(repo: Repo, commits: Iterable[str], need: str, fetch: str) -> GitError:
    """The error of history that stops at the boundary commits ``commits`` (the first one,
    sorted, is named with its missing parent): ``need`` says what needed the history beyond,
    ``fetch`` the command that fetches enough of it."""
    first = sorted(commits)[0]
    parents = missing_parents(repo, first)
    lost = f"its parent {parents[0]} is not in this clone" if parents else "its parents are not in this clone"
    return GitError(f"shallow clone: {need} needs history beyond commit {first[:12]}, where this clone's history "
                    f"stops ({lost}); run {fetch}, or {FULL}")


def merge_base(repo: Repo, a: str, b: str, names: str) -> str:
    """The merge base of two commits as :meth:`Repo.merge_base` finds it, checked against the
    shallow boundary: in a shallow clone Git may find none, or a worse one than the full
    history holds. The one found is exact when no boundary commit lies between it and
    either tip (every ancestor hidden behind the boundary is then one of its own)."""
    shallow = boundary(repo)
    if not shallow:
        return repo.merge_base(a, b, names)
    deepen = f"`git fetch --deepen=<N>` with N the commits {names} are apart from their common ancestor"
    try:
        found = repo.merge_base(a, b, names)
    except GitError:
        reached = _reached(repo, shallow, [a, b], [])
        raise stops_at(repo, reached or shallow, f"the merge base of {names}", deepen) from None
    reached = _reached(repo, shallow, [a, b], [found])
    if reached:
        raise stops_at(repo, reached, f"the merge base of {names}", deepen)
    return found


def require_window(repo: Repo, tip: str, since: int) -> None:
    """Raise when ``tip``'s first-parent history reaches the shallow boundary at a commit
    whose committer time is not before ``since`` (the window's start): its parent, which the
    window may hold, is missing. A boundary older than the window leaves the window whole."""
    shallow = boundary(repo)
    if not shallow:
        return
    # the whole first-parent line, filtered here: a shallow clone's is short, and the window
    # is every commit with its time in range (analyzer/history/window.py), not a walk that stops
    out = repo._run(repo.top, ["rev-list", "--first-parent", "--format=%H %ct", "--no-commit-header",
                               tip, "--"]).decode("ascii", "replace").split()
    inside = [sha for sha, time in zip(out[::2], out[1::2]) if sha in shallow and int(time) >= since]
    if inside:
        day = datetime.fromtimestamp(since, timezone.utc).strftime("%Y-%m-%d")
        raise stops_at(repo, inside, f"the readiness window (commits since {day})",
                       f"`git fetch --shallow-since={day}`")


def range_note(repo: Repo, base: str, head: str) -> str:
    """For ``analyze diff``: "" when the clone holds every commit of ``base..head`` (``head``
    "" is HEAD), else a note that the commits listed per change are only those it holds (the
    trees compared are whole: the changes themselves are exact)."""
    shallow = boundary(repo)
    if not shallow:
        return ""
    reached = _reached(repo, shallow, [head or repo.commit("HEAD")], [base])
    if not reached:
        return ""
    return (f"shallow clone: the history between the revisions stops at commit {reached[0][:12]}; the changes are "
            f"exact (two trees are compared), but the commits listed per change are only those this clone holds "
            f"(run `git fetch --deepen=<N>`, or {FULL})")


def require_commits(repo: Repo, commits: Sequence[str], need: str, fetch: str) -> None:
    """Raise when any of ``commits`` is a boundary commit (its history is cut)."""
    cut = [sha for sha in commits if sha in boundary(repo)]
    if cut:
        raise stops_at(repo, cut, need, fetch)


def _reached(repo: Repo, shallow: FrozenSet[str], tips: Sequence[str], bottoms: Sequence[str]) -> List[str]:
    """The boundary commits reachable from ``tips`` but not from ``bottoms``."""
    out = repo._run(repo.top, ["rev-list", *tips, "--not", *bottoms, "--"]).decode("ascii", "replace").split()
    return sorted(sha for sha in out if sha in shallow)
