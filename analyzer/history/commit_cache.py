"""What Git's diff of one commit says about the memory dir, kept between runs.

A commit id names its tree and its parents' for good, so what ``git log -p`` shows for one
commit below one folder never changes: the units each commit changed (readiness,
:meth:`analyzer.history.git.History.unit_patches`) and the IDs whose unit texts it changed
(``analyze diff``, analyzer/history/unit_touch.py, from those units). Diffing is most of the Git work of those commands
(10,000 file versions of ~90 KB on the 1,000-commit bench history); with this cache a run
diffs only the commits no earlier run has, so a reading's Git work grows with the new
commits, not with the window.

Entries live in the analyzer's verified store (analyzer/core/cache.py, area ``history``), never in
the project or its .git, keyed by what the result depends on: the kind of result, the
commit, the folder (top-level relative), the Git options and parser that produced it
(:data:`VERSION` with the funcname pattern) and the ``git`` program (:func:`git_identity`).
An entry of the wrong shape reads as a miss.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import shutil
from functools import lru_cache
from typing import Callable, Dict, Iterator, List, Tuple

from analyzer.core.cache import Area

AREA = Area("history", ".marshal", fanout=True)
# bump when the Git options or the parsing of a cached result change; "2": history is read in
# a bare repository with --text (results of "1" may hold what a .gitattributes line made Git say)
VERSION = "3"


@lru_cache(maxsize=1)  # once per process: a key is made per commit
def git_identity() -> str:
    """The ``git`` program the answers come from (its path, size and modification time): a
    new Git may diff differently (heuristics, defaults), so its answers are kept apart.
    Nothing the analyzed repository writes can change an answer (analyzer/history/git.py)."""
    path = shutil.which("git") or ""
    try:
        info = os.stat(path)
    except OSError:
        return path
    return f"{path}\0{info.st_size}\0{info.st_mtime_ns}"


def _key(kind: str, folder: str, sha: str, variant: str) -> str:
    text = f"{VERSION}\0{git_identity()}\0{variant}\0{kind}\0{folder}\0{sha}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


CHUNK_MARK = "0"  # a run of commits ends at each commit whose id starts with this (one in 16)


def runs(shas: List[str]) -> Iterator[Tuple[List[str], bool]]:
    """``(shas, closed)``: ``shas`` cut after each commit whose id starts with
    :data:`CHUNK_MARK` (a closed run); the commits after the last such one are the open run.
    Where a run ends depends on its commits alone: in any contiguous stretch of a history, a
    commit's closed run ends at the same commit."""
    run: List[str] = []
    for sha in shas:
        run.append(sha)
        if sha.startswith(CHUNK_MARK):
            yield run, True
            run = []
    if run:
        yield run, False


def per_commit(kind: str, folder: str, shas: List[str], compute: Callable[[List[str]], Dict[str, object]],
               valid: Callable[[object], bool], empty, variant: str = "", use_cache: bool = True) -> Dict[str, object]:
    """sha -> the ``kind`` result of every commit of ``shas``: stored results, and
    ``compute(missing shas)`` for the others (a commit ``compute`` leaves out has the result
    ``empty``), which are then stored. ``valid`` checks a stored value's shape.

    The results of a closed run of commits (:func:`runs`) are kept as one entry, named by
    the run's last commit, and those of the open run one entry per commit: a first reading
    of a 1,000-commit window created 2,000 entry files, which cost it more system time than
    anything but Git. A new commit still costs only its own result: it joins the open run;
    when a commit closes the run, its commits' own entries are read once more and kept as
    the run's entry. A run's entry that lacks one of its commits (it was written for a
    stretch that began inside the run) is read for the commits it holds and written again."""
    found: Dict[str, object] = {}
    ordered = list(runs(shas))
    held: Dict[str, dict] = {}  # closed run's last commit -> its stored entry
    for run, closed in ordered if use_cache else ():
        if closed:
            held[run[-1]] = kept = AREA.get_marshal(_key(kind, folder, _RUN + run[-1], variant),
                                                    lambda value: _is_run(value, valid)) or {}
            found.update((sha, kept[sha]) for sha in run if sha in kept)
        for sha in run:
            if sha not in found:
                value = AREA.get_marshal(_key(kind, folder, sha, variant), valid)
                if value is not None:
                    found[sha] = value
    missing = {sha: True for sha in shas if sha not in found}  # in order
    if missing:
        computed = compute(list(missing))
        found.update((sha, computed.get(sha, empty)) for sha in missing)
    for run, closed in ordered if use_cache else ():
        if closed and any(sha not in held[run[-1]] for sha in run):
            entry = {**held[run[-1]], **{sha: found[sha] for sha in run}}
            AREA.put(_key(kind, folder, _RUN + run[-1], variant), marshal.dumps(entry))
        elif not closed:
            for sha in run:
                if sha in missing:
                    AREA.put(_key(kind, folder, sha, variant), marshal.dumps(found[sha]))
    return found


_RUN = "run\0"  # the key of a closed run's entry: its last commit's, marked apart


def _is_run(value, valid: Callable[[object], bool]) -> bool:
    return isinstance(value, dict) and all(isinstance(sha, str) and valid(result) for sha, result in value.items())


def commit_patches(history, shas: List[str], use_cache: bool = True) -> Dict[str, Dict[str, tuple]]:
    """sha -> folder-relative path -> (units before, units after) of what each commit changed
    against its first parent (:meth:`analyzer.history.git.History.unit_patches`)."""
    from analyzer.history.git import UNIT_FUNCNAME

    def compute(missing: List[str]):
        from analyzer.history.git import GitError
        from analyzer.history.unit_hunks import Mismatch, unit_patches

        # Git before 2.31 has no --diff-merges: -m with --first-parent was its spelling
        for merges in (["--diff-merges=first-parent"], ["-m", "--first-parent"]):
            args = ["--no-walk=unsorted", *merges, "--stdin"]
            try:
                try:  # Git shows the changed lines, widened to units here (analyzer/history/unit_hunks.py)
                    return unit_patches(history, args, stdin=_lines(missing))
                except Mismatch:  # a rebuilt version is not Git's: Git widens the hunks itself
                    return history.unit_patches(args, stdin=_lines(missing))
            except GitError as exc:
                if "diff-merges" not in str(exc) or merges[0] == "-m":
                    raise
        raise AssertionError("unreachable")

    return per_commit("unit-patches", history.folder, shas, compute, _is_patches, {}, UNIT_FUNCNAME, use_cache)


def commit_touches(history, shas: List[str], use_cache: bool = True) -> Dict[str, set]:
    """sha -> the IDs whose units each commit changed by their text (analyzer/history/unit_touch.py),
    from the commits' unit snippets (:func:`commit_patches`, shared with readiness)."""
    from analyzer.history.git import UNIT_FUNCNAME
    from analyzer.history.unit_touch import patch_touches

    def compute(missing: List[str]):
        found = patch_touches(commit_patches(history, missing, use_cache))
        return {sha: sorted(ids) for sha, ids in found.items()}

    stored = per_commit("unit-touches", history.folder, shas, compute, _is_names, [], UNIT_FUNCNAME, use_cache)
    return {sha: set(ids) for sha, ids in stored.items() if ids}


def _lines(shas: List[str]) -> bytes:
    """What ``git log --no-walk=unsorted --stdin`` reads for ``shas`` (oldest first, as the
    callers list them): newest first. Git's packs keep a file's newest version whole and
    older ones as deltas against newer ones, so diffing from new to old let Git's delta
    cache serve each next version: 2.4x less Git CPU on a 20,000-entry bench history."""
    return ("\n".join(reversed(shas)) + "\n").encode("ascii")


def _is_names(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_patches(value) -> bool:
    return isinstance(value, dict) and all(
        isinstance(path, str) and isinstance(sides, tuple) and len(sides) == 2
        and all(side is None or isinstance(side, str) for side in sides) for path, sides in value.items())
