"""Read-only Git: ``git`` subprocesses in the project, never a write into the repository.

Every command used is a query (``rev-parse``, ``merge-base``, ``ls-tree``, ``cat-file
--batch``, ``diff --name-only`` between two commits): none changes refs, the index, objects
or the work tree; ``GIT_OPTIONAL_LOCKS=0`` stops even optional lock files (such as an index
refresh), and no pager, editor, prompt, external diff or text conversion can start.
:func:`run_git` reports a failure as ``(False, reason)``; :class:`Repo` (the merge review's
layer, spec §9.5) raises :class:`GitError` for any failure (no ``git`` binary, not a
repository, a bad ref, no merge base, a shallow clone, a file that cannot be read), which the
merge review reports as "Merge review unavailable", never as CLEAR.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

TIMEOUT = 120  # seconds per Git call; a hung Git is a failure, never a silent pass
REGULAR_MODES = ("100644", "100755")


class GitError(Exception):
    """A Git step failed; the message says why (shown after "Merge review unavailable: ")."""


@dataclass(frozen=True)
class TreeFile:
    """One blob of a commit's tree below a folder."""

    path: str  # path relative to the repository top level
    mode: str  # "100644", "100755", "120000" (symlink), "160000" (submodule)
    kind: str  # "blob" or "commit"
    oid: str


def _environment() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat", PAGER="cat", GIT_TERMINAL_PROMPT="0",
               GIT_ASKPASS="", SSH_ASKPASS="", LC_ALL="C", LANGUAGE="C")
    return env


def _call(cwd: str, args: Sequence[str], stdin: Optional[bytes] = None, timeout: float = TIMEOUT) -> bytes:
    """Run ``git <args>`` in ``cwd``; its stdout, or :class:`GitError` with Git's own message."""
    argv = ["git", "--no-pager", "-c", "core.fsmonitor=false", *args]
    feed = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    try:
        proc = subprocess.run(argv, cwd=cwd, env=_environment(), capture_output=True, timeout=timeout,
                              check=False, **feed)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git could not run: {exc}") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(err[-1] if err else f"git exited with status {proc.returncode}")
    return proc.stdout


def run_git(root: str, *args: str, timeout: float = 30.0) -> Tuple[bool, str]:
    """Run ``git <args>`` in ``root``; ``(True, stdout)`` on success, else ``(False, reason)``."""
    try:
        return True, _call(root, args, timeout=timeout).decode("utf-8", "replace")
    except GitError as exc:
        return False, str(exc)


def head_commit(root: str) -> Tuple[bool, str]:
    """The full hash HEAD names, or ``(False, reason)``."""
    ok, out = run_git(root, "rev-parse", "--verify", "--quiet", "HEAD")
    if not ok:
        return False, out if out and not out.startswith("git exited") else "no Git HEAD commit"
    return True, out.strip()


class Repo:
    """Read-only access to the Git repository that contains ``root`` (a project root)."""

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(root)
        top, prefix = self._lines(self.root, "rev-parse", "--show-toplevel", "--show-prefix", count=2)
        self.top = top
        self.prefix = prefix  # the project root relative to the top level, "" or ending in "/"
        if self._lines(self.top, "rev-parse", "--is-shallow-repository", count=1)[0] == "true":
            raise GitError("the repository is a shallow clone; its history may not contain the merge base")

    # ---- plumbing ---------------------------------------------------------------------------

    def _run(self, cwd: str, args: Sequence[str], stdin: Optional[bytes] = None) -> bytes:
        return _call(cwd, args, stdin)

    def _lines(self, cwd: str, *args: str, count: int) -> List[str]:
        out = self._run(cwd, args).decode("utf-8", "replace").splitlines()
        if len(out) < count:
            raise GitError(f"git {args[0]} gave no answer")
        return out[:count] if count > 1 else out[:1]

    # ---- queries ----------------------------------------------------------------------------

    def commit(self, ref: str) -> str:
        """The full commit id ``ref`` names (refs that look like options are refused)."""
        if not ref or ref.startswith("-"):
            raise GitError(f"invalid revision {ref!r}")
        try:
            return self._lines(self.top, "rev-parse", "--verify", "--quiet", "--end-of-options",
                               f"{ref}^{{commit}}", count=1)[0]
        except GitError:
            raise GitError(f"not a valid commit: {ref}") from None

    def merge_base(self, a: str, b: str) -> str:
        """The best common ancestor of two commit ids."""
        try:
            out = self._run(self.top, ["merge-base", a, b]).decode("ascii", "replace").split()
        except GitError as exc:
            raise GitError(f"no merge base between HEAD and the target ({exc})") from None
        if not out:
            raise GitError("no merge base between HEAD and the target")
        return out[0]

    def tree(self, commit: str, folder: str) -> List[TreeFile]:
        """Every entry of ``commit``'s tree below ``folder`` (top-level relative), recursively."""
        out = self._run(self.top, ["ls-tree", "-r", "-z", "--full-tree", commit, "--", folder.rstrip("/") + "/"])
        files = []
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, _, path = record.partition(b"\t")
            mode, kind, oid = meta.decode("ascii").split(" ")
            files.append(TreeFile(path.decode("utf-8", "surrogateescape"), mode, kind, oid))
        return files

    def is_tree_symlink(self, commit: str, path: str) -> bool:
        """Whether ``path`` (top-level relative) is a symlink in ``commit``'s tree."""
        out = self._run(self.top, ["ls-tree", "-z", "--full-tree", commit, "--", path.rstrip("/")])
        return any(rec.startswith(b"120000 ") for rec in out.split(b"\0") if rec)

    def blobs(self, oids: Iterable[str]) -> Dict[str, bytes]:
        """The contents of blobs, read in one ``git cat-file --batch`` call."""
        wanted = sorted(set(oids))
        if not wanted:
            return {}
        out = self._run(self.top, ["cat-file", "--batch"], stdin=("\n".join(wanted) + "\n").encode("ascii"))
        found: Dict[str, bytes] = {}
        pos = 0
        for oid in wanted:
            end = out.index(b"\n", pos)
            header = out[pos:end].decode("ascii", "replace").split(" ")
            if len(header) != 3 or header[1] != "blob":
                raise GitError(f"blob {oid} cannot be read ({' '.join(header[1:]) or 'missing'})")
            size = int(header[2])
            found[oid] = out[end + 1:end + 1 + size]
            pos = end + 1 + size + 1
        return found

    def changed_paths(self, a: str, b: str) -> List[str]:
        """Paths that differ between two commits, relative to the project root (renames as
        a deletion plus an addition; paths outside the project root are left out)."""
        args = ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", a, b]
        if self.prefix:
            args.insert(1, f"--relative={self.prefix}")
        out = self._run(self.top, args)
        return sorted({p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p})
