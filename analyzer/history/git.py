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
import re
import secrets
import subprocess
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

TIMEOUT = 120  # seconds per Git call; a hung Git is a failure, never a silent pass
REGULAR_MODES = ("100644", "100755")


class GitError(Exception):
    """A Git step failed; the message says why (shown after "Merge review unavailable: ")."""


class FileError(GitError):
    """A managed file of a revision (or of the work tree) that cannot be used: its path from
    the project root, the position of the fault, the tool's MA-FILE-* code, and which side
    (``where``: "base", "head", "worktree"...). Commands report it as ``read`` and ``check``
    report an unusable file (``path:line:col: CODE message``), not as a Git failure."""

    def __init__(self, code: str, path: str, message: str, line: int = 1, col: int = 1, where: str = ""):
        self.code, self.path, self.message, self.line, self.col, self.where = code, path, message, line, col, where
        super().__init__(f"{path}:{line}:{col}: {code} {self.detail}")

    @property
    def detail(self) -> str:
        """The message with the side it was met on."""
        if not self.where:
            return self.message
        return f"{self.message} ({'in the work tree' if self.where == 'worktree' else 'at ' + self.where})"


@dataclass(frozen=True)
class TreeFile:
    """One blob of a commit's tree below a folder."""

    path: str  # path relative to the repository top level
    mode: str  # "100644", "100755", "120000" (symlink), "160000" (submodule)
    kind: str  # "blob" or "commit"
    oid: str


# Configuration that would change what Git answers, fixed on every call whatever the user's,
# the system's or the repository's configuration says (`-c` outranks every file). The
# user's and the system's files are still read, so `safe.directory` keeps working; a
# repository's own .git/config cannot reach these. Why each (docs/reliability.md, "Git"):
SAFE_CONFIG = (
    "core.fsmonitor=false",  # no hook process on a query
    "core.quotePath=false", "core.commentChar=#",  # names as bytes; '#' comments for trailers
    "core.attributesFile=" + os.devnull,  # the user's attributes (callers name their own file)
    "core.bigFileThreshold=2g",  # a file over it would be "binary" to diff
    "i18n.logOutputEncoding=UTF-8",  # messages re-encoded to what the parser decodes
    "log.showSignature=false", "log.follow=false", "log.showRoot=true", "log.mailmap=false",
    "color.ui=never", "color.diff=never", "color.grep=never",
    "diff.external=", "diff.noprefix=false", "diff.mnemonicPrefix=false", "diff.relative=false",
    "diff.suppressBlankEmpty=false", "diff.algorithm=default", "diff.indentHeuristic=true",
    "diff.interHunkContext=0", "diff.context=3", "diff.renames=false", "diff.orderFile=" + os.devnull,
    "grep.lineNumber=false", "grep.column=false", "grep.fullName=false", "grep.patternType=basic",
    "grep.fallbackToNoIndex=false",
    "trailer.separators=:",  # what Git's trailer parser takes for "Key: value"
    # a bare repository reads no .gitattributes of a tree; Git 2.42+ can be told to read
    # one (attr.tree): a value that names no tree means the empty one
    "attr.tree=" + "0" * 40,
)


def _environment() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat", PAGER="cat", GIT_TERMINAL_PROMPT="0",
               GIT_ASKPASS="", SSH_ASKPASS="", LC_ALL="C", LANGUAGE="C",
               # the objects as they are: no `git replace` refs, no info/grafts, no
               # /etc/gitattributes
               GIT_NO_REPLACE_OBJECTS="1", GIT_GRAFT_FILE=os.devnull, GIT_ATTR_NOSYSTEM="1")
    # Git frees each blob it inflated before inflating the next; glibc's malloc then gives
    # the heap's top back to the system and takes it again, page by page, for the next blob
    # (a blob over its mmap threshold is mapped and unmapped each time). On the bench
    # history's first readiness reading that was most of `git log -p`'s system time (1.6 of
    # 4.1 s of Git's CPU; 31,000 brk calls, 634,000 page faults; docs/performance.md).
    # Keeping freed memory costs no peak memory (the heap keeps only what it once held);
    # blobs under 32 MiB (glibc's largest mmap threshold) then reuse the heap. Other
    # allocators ignore these names; a user's own setting is kept.
    env.setdefault("MALLOC_TRIM_THRESHOLD_", str(1 << 30))
    env.setdefault("MALLOC_MMAP_THRESHOLD_", str(32 << 20))
    # a partial clone's missing blob is an error, never fetched from its promisor remote:
    # the analyzer writes nothing into the repository and opens no connection
    env["GIT_NO_LAZY_FETCH"] = "1"
    return env


def _call(cwd: str, args: Sequence[str], stdin: Optional[bytes] = None, timeout: float = TIMEOUT) -> bytes:
    """Run ``git <args>`` in ``cwd``; its stdout, or :class:`GitError` with Git's own message."""
    argv = ["git", "--no-pager", *(a for pair in SAFE_CONFIG for a in ("-c", pair)), *args]
    try:
        try:
            code, stdout, stderr = _spooled(argv, cwd, stdin, timeout)
        except _NoSpool:  # no temporary file can be made: pipes
            proc = subprocess.run(argv, cwd=cwd, env=_environment(), capture_output=True, timeout=timeout, check=False,
                                  **({"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}))
            code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git could not run: {exc}") from None
    if code != 0:
        lines = stderr.decode("utf-8", "replace").strip().splitlines()
        lazy = next((line for line in lines if "from promisor remote" in line), None)
        if lazy is not None:  # a partial clone without the object (the lazy fetch is off)
            raise GitError(not_fetched(lazy))
        raise GitError(git_reason(lines) or f"git exited with status {code}")
    return stdout


class _NoSpool(Exception):
    """No temporary file could be made for Git's input or output."""


def _spooled(argv: List[str], cwd: str, stdin: Optional[bytes], timeout: float) -> Tuple[int, bytes, bytes]:
    """Run ``argv`` with its input and output in unnamed temporary files, not pipes: (exit
    status, stdout, stderr). Subprocess's pipe loop writes input 512 bytes a wakeup and reads
    output as Git writes it; on a first readiness reading of the bench history (0.4 MB in,
    9 MB out) that cost this process ~0.1 s of CPU, and with files it waits for Git once and
    reads each output whole. :class:`_NoSpool` when a file cannot be made."""
    with ExitStack() as files:
        try:
            out, err = (files.enter_context(tempfile.TemporaryFile()) for _ in range(2))
            feed = subprocess.DEVNULL
            if stdin is not None:
                feed = files.enter_context(tempfile.TemporaryFile())
                feed.write(stdin)
                feed.seek(0)
        except OSError as exc:
            raise _NoSpool() from exc
        code = subprocess.run(argv, cwd=cwd, env=_environment(), stdin=feed, stdout=out, stderr=err, timeout=timeout,
                              check=False).returncode
        out.seek(0)
        err.seek(0)
        return code, out.read(), err.read()


def git_reason(lines: Sequence[str]) -> str:
    """Git's own reason for failing, from its standard error ``lines``: its last ``fatal:`` or
    ``error:`` line, else its last line ('' for none). Git may print a note after the reason, which
    alone does not say what failed: outside a repository on a file system of its own (a tmpfs
    /tmp), "fatal: not a git repository (or any parent up to mount point /tmp)" is followed by
    "Stopping at filesystem boundary (GIT_DISCOVERY_ACROSS_FILESYSTEM not set)."."""
    reasons = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return reasons[-1] if reasons else (lines[-1] if lines else "")


def not_fetched(message: str) -> str:
    """The error of an object a partial clone does not hold (Git's ``message`` names it)."""
    found = re.search(r"[0-9a-f]{40,64}", message)
    return (f"partial clone: object {found.group(0) if found else '(unnamed)'} is not in this clone, and the "
            "analyzer fetches nothing (it never writes into the repository); fetch the memory dir's files of "
            "the revisions first (`git log -p --format= REV.. -- <memory dir>/ > /dev/null` lets Git fetch "
            "them), or clone without `--filter`")


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


WORK_TREE_COMMANDS = ("diff-index", "ls-files", "check-attr", "rev-parse")  # these need the work tree


def _command(args: Sequence[str]) -> str:
    """The Git command of ``args`` (after any ``-c name=value`` pairs)."""
    i = 0
    while i < len(args) and args[i] == "-c":
        i += 2
    return args[i] if i < len(args) else ""


def _one_line_names(names: Sequence[str]) -> None:
    """:class:`GitError` for an object name holding a newline: ``cat-file --batch`` reads
    one name per line, so ``x.md\\nHEAD:y.md`` would ask for two objects and every later
    answer would belong to the name before it."""
    for name in names:
        if "\n" in name or "\r" in name:
            raise GitError(f"a memory path holding a line break cannot be read from Git: {name!r}")


class Repo:
    """Read-only access to the Git repository that contains ``root`` (a project root)."""

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(root)
        top, prefix, gitdir, common, shallow = self._lines(
            self.root, "rev-parse", "--show-toplevel", "--show-prefix", "--absolute-git-dir", "--git-common-dir",
            "--is-shallow-repository", count=5)
        del shallow  # a shallow clone is read like any other (see below)
        self.top = top
        self.prefix = prefix  # the project root relative to the top level, "" or ending in "/"
        # a shallow clone is read like any other: what needs history beyond its boundary
        # (a merge base, the readiness window) checks it there (analyzer/history/shallow.py)
        self.gitdir = gitdir
        self.common_dir = os.path.join(self.root, common)  # shared by linked work trees (info/ is there)

    # ---- plumbing ---------------------------------------------------------------------------

    def _run(self, cwd: str, args: Sequence[str], stdin: Optional[bytes] = None) -> bytes:
        """``git <args>``; a command about commits and trees runs in the Git directory as a
        bare repository (:data:`WORK_TREE_COMMANDS` aside), where Git reads no
        ``.gitattributes`` of the work tree or the index: a line there (``*.md diff=x``,
        ``-diff``, ``binary``) cannot change what Git compares in history, and a cached
        answer cannot depend on it."""
        if cwd == getattr(self, "top", None) and _command(args) not in WORK_TREE_COMMANDS:
            # Git checks a bare repository's ownership against safe.directory by its Git
            # directory, not the work tree a user (or actions/checkout) listed: the work
            # tree was already found safe (rev-parse ran there), so the same trust is passed
            # on for its own Git directory (`-c safe.directory` is protected configuration)
            return _call(self.gitdir, ["-c", "core.bare=true", "-c", f"safe.directory={self.gitdir}", *args], stdin)
        return _call(cwd, args, stdin)

    def _lines(self, cwd: str, *args: str, count: int) -> List[str]:
        out = self._run(cwd, args).decode("utf-8", "replace").splitlines()
        if len(out) < count:
            raise GitError(f"git {args[0]} gave no answer")
        return out[:count] if count > 1 else out[:1]

    def refuse_diff_attributes(self) -> None:
        """:class:`GitError` when the repository's own ``info/attributes`` (the one attributes
        file a bare repository still reads, above every other) names a diff attribute or a
        macro: Git's diffs of history would then depend on it (``-diff``, ``binary``,
        ``diff=x``), and neither an answer nor a cached one may."""
        path = os.path.join(self.common_dir, "info", "attributes")
        try:
            with open(path, "rb") as handle:
                text = handle.read(1 << 20).decode("utf-8", "replace")
        except OSError:
            return
        if re.search(r"(?m)(^\s*\[attr\])|(^|\s)[-!]?(diff|binary)(=|\s|$)", text):
            raise GitError(f"{path} sets diff attributes or macros: Git's diffs of the history would follow it "
                           "(remove those lines to read the history)")

    # ---- queries ----------------------------------------------------------------------------

    def commit(self, ref: str) -> str:
        """The full commit id ``ref`` names (refs that look like options are refused)."""
        if not ref or ref.startswith("-"):
            raise GitError(f"invalid revision {ref!r}")
        try:
            return self._lines(self.top, "rev-parse", "--verify", "--quiet", "--end-of-options",
                               f"{ref}^{{commit}}", count=1)[0]
        except GitError:
            if self._unborn(ref):
                raise GitError(f"no commits yet: {ref} names no commit in this repository "
                               "(commit the memory first, or compare against another revision)") from None
            from analyzer.history.shallow import FULL, boundary

            hint = (f" (this is a shallow clone: the commit may be beyond its history; run `git fetch --deepen=<N>` "
                    f"or {FULL})" if boundary(self) else "")
            raise GitError(f"not a valid commit: {ref}{hint}") from None

    def _unborn(self, ref: str) -> bool:
        """Whether ``ref`` is HEAD (or the branch it points to) of a repository without a commit."""
        if ref not in ("HEAD", "@"):
            return False
        try:
            self._run(self.top, ("rev-parse", "--verify", "--quiet", "HEAD"))
        except GitError:
            return True
        return False

    def merge_base(self, a: str, b: str, names: str = "HEAD and the target") -> str:
        """The best common ancestor of two commit ids: the one ``git merge-base a b`` prints
        (the first of ``--all``'s when criss-cross merges leave several). ``names`` says
        which revisions they are in the error that no merge base raises."""
        try:
            out = self._run(self.top, ["merge-base", a, b]).decode("ascii", "replace").split()
        except GitError as exc:
            raise GitError(f"no merge base between {names} ({exc})") from None
        if not out:
            raise GitError(f"no merge base between {names}")
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
        _one_line_names(wanted)
        # names may be ``commit:path`` with a path Git printed as bytes (decoded with
        # surrogateescape): they go back as the same bytes
        names = ("\n".join(wanted) + "\n").encode("utf-8", "surrogateescape")
        out = self._run(self.top, ["cat-file", "--batch"], stdin=names)
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


# ---- history (analyze diff / readiness / check --autonomy) ----------------------------------

# A unit heading as Git's funcname pattern (POSIX ERE): the hunk header of `git log -p` then
# names the unit a change starts in, so no revision has to be parsed to attribute a commit
UNIT_FUNCNAME = "^ {0,3}##[ \t]+[Mm][Cc]-[A-Za-z]+-[0-9]{8}-[0-9A-Fa-f]{8}"
# The same heading in Python, capturing the ID (one per line with ``match``, every one of a
# text with ``finditer``): the units a history comparison reads beyond Git's hunks.
UNIT_ID_HEADING = re.compile(r"(?im)^ {0,3}##[ \t]+(MC-[A-Z]+-\d{8}-[0-9A-F]{8})(?![0-9A-Za-z])")
UNIT_HEADING = re.compile(UNIT_FUNCNAME)  # the line Git's funcname pattern takes as a unit start


# :data:`UNIT_ID_HEADING` from its "##" on: a pattern that starts with a literal is searched
# for by that literal, where one that starts at a line start is tried at every character
_HEADING_TAIL = re.compile(r"(?i)##[ \t]+(MC-[A-Z]+-\d{8}-[0-9A-F]{8})(?![0-9A-Za-z])")


def unit_heading_ids(text: str) -> List[str]:
    """The (casefolded) IDs the unit headings of ``text`` name (:data:`UNIT_ID_HEADING`): the
    matches of :data:`_HEADING_TAIL` with up to three spaces before them on their line (a
    first readiness reading scans 7 MB of snippets twice for them)."""
    found = []
    for match in _HEADING_TAIL.finditer(text):
        at = match.start()
        line = text.rfind("\n", 0, at) + 1
        if at - line <= 3 and text[line:at] == " " * (at - line):
            found.append(match.group(1).casefold())
    return found


_RECORD = "\x1e"  # marks a commit id in the patch logs (a line of Git's own, never of a message)


def _marker() -> str:
    """A field marker for one ``git log`` call: a NUL and 128 random bits. A commit message
    cannot hold it (its writer cannot know it; Git prints no NUL of a message), so the fields
    of one commit never run into another's."""
    return "%x00" + secrets.token_hex(16)


def _log_format(mark: str) -> str:
    """``git log``'s format: id, parents, committer time, author (header fields a message
    cannot reach), subject, the trailers as Git's own parser reads them, body; each field
    after ``mark``."""
    fields = ("%H", "%P", "%ct", "%an <%ae>", "%s", "%(trailers:only,unfold)", "%b")
    return "".join(mark + f for f in fields)


LOG_FIELDS = 7
TIME_LIMIT = 1 << 63  # Git's timestamps are below 2**63; anything else is a time Git cannot read


def commit_time(text: str) -> int:
    """A committer time as Git prints it with ``%ct``: seconds since the epoch, or 0 for one
    Git cannot read (negative, not a number, 2**63 or more: Git prints nothing or the raw
    digits and dates the commit at the epoch, as here)."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or int(text) >= TIME_LIMIT:
        return 0
    return int(text)


@dataclass(frozen=True)
class Commit:
    """One commit of a history, as ``git log`` reports it."""

    sha: str
    parents: Tuple[str, ...]
    time: int  # committer time, seconds since the epoch (never the wall clock); 0 when Git cannot read it
    author: str  # "Name <email>"
    subject: str
    trailers: Tuple[Tuple[str, str], ...]  # (key, value) in order, keys as written
    body: str


def _is_object_id(text: str) -> bool:
    """Whether ``text`` is a full object id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits."""
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _trailers(text: str) -> Tuple[Tuple[str, str], ...]:
    found = []
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and " " not in key.strip():
            found.append((key.strip(), value.strip()))
    return tuple(found)


def patch_file(line: str, following: str) -> Optional[Tuple[str, bool, bool]]:
    """For a line of a file's header in ``git diff`` output and the line after it: when they
    are the ``---``/``+++`` pair (``--no-prefix``), the file's path and whether it is new
    and whether it is gone; None otherwise. :class:`GitError` for a file Git shows as binary
    or a path Git quotes."""
    if line.startswith("Binary files "):
        raise GitError(f"Git reads a memory file as binary: {line}")
    if not (line.startswith("--- ") and following.startswith("+++ ")):
        return None
    old_path, new_path = _header_path(line[4:]), _header_path(following[4:])
    name = new_path if new_path != "/dev/null" else old_path
    if name.startswith('"'):
        raise GitError(f"a memory path Git quotes cannot be read: {name}")
    return name, old_path == "/dev/null", new_path == "/dev/null"


def _header_path(text: str) -> str:
    """A ``---``/``+++`` line's path: Git ends it with a tab when the path holds a space (as
    GNU diff does, so that patch(1) can tell the name from a timestamp); a path holding a tab
    itself is always quoted, so that one tab is never part of an unquoted name."""
    return text[:-1] if text.endswith("\t") and " " in text else text


class History:
    """Read-only queries over a repository's history below one folder (the memory dir)."""

    def __init__(self, repo: "Repo", folder: str) -> None:
        self.repo = repo
        self.folder = repo.prefix + folder.strip("/")
        # commit id -> its parents, of every commit :meth:`log` gave (who asks which of them
        # are roots needs no `git rev-list` then: analyzer/history/unit_hunks.py)
        self.parents: Dict[str, Tuple[str, ...]] = {}
        # commit id -> :meth:`changes` of it, as a `git log -p --raw` of it showed them
        # (analyzer/history/unit_hunks.py): a first reading then asks Git for them once
        self.read_changes: Dict[str, List[Tuple[str, str, str]]] = {}
        repo.refuse_diff_attributes()

    def log(self, revisions: Sequence[str]) -> List[Commit]:
        """The commits ``revisions`` select (e.g. ``["A..B"]``) that touched the folder,
        oldest first, with trailers and bodies."""
        mark = _marker()
        out = self.repo._run(self.repo.top, ["log", "--reverse", "--no-color", "--encoding=UTF-8",
                                             f"--format={_log_format(mark)}", *revisions, "--", self.folder + "/"])
        fields = out.split(b"\0" + mark[4:].encode("ascii"))
        if fields[0].strip() or (len(fields) - 1) % LOG_FIELDS:
            raise GitError("git log gave a record it could not split")
        commits = []
        for i in range(1, len(fields), LOG_FIELDS):
            # between two commits Git puts a newline: it ends the body field
            sha, parents, time, author, subject, trailers, body = (
                f.decode("utf-8", "replace") for f in fields[i:i + LOG_FIELDS])
            if not _is_object_id(sha) or not all(map(_is_object_id, parents.split())):
                raise GitError("git log gave a record it could not split")
            commits.append(Commit(sha, tuple(parents.split()), commit_time(time), author, subject,
                                  _trailers(trailers), body.strip("\n")))
            self.parents[sha] = commits[-1].parents
        return commits

    def touched_ids(self, args: Sequence[str], stdin: Optional[bytes] = None) -> Dict[str, set]:
        """Commit (or ``"worktree"`` for ``git diff`` arguments) -> the IDs whose units its
        changes touch: the unit a hunk starts in (Git's funcname, from :data:`UNIT_FUNCNAME`)
        and every heading among the changed lines. ``args`` are ``log`` or ``diff`` arguments
        (``stdin``: what ``--stdin`` reads)."""
        import re
        import tempfile

        ident = re.compile(r"(?i)MC-[A-Z]+-\d{8}-[0-9a-f]{8}")
        heading = re.compile(r"(?i)^[+-] {0,3}##[ \t]+(MC-[A-Z]+-\d{8}-[0-9a-f]{8})")
        # the plumbing diff-index, not porcelain `git diff`: the latter refreshes a stale
        # index and writes .git/index even under GIT_OPTIONAL_LOCKS=0 (the commands are
        # read-only); the patch text is the same
        command = "diff-index" if args[0] == "diff" else args[0]
        drivers = self._work_tree_drivers(args[1:]) if command == "diff-index" else ()
        if drivers is None:  # the work tree has no change below the folder
            return {"worktree": set()}
        with tempfile.NamedTemporaryFile("w", suffix=".attributes") as attrs:
            attrs.write("*.md diff=memoryunit\n*.MD diff=memoryunit\n")
            attrs.flush()
            config = ["-c", f"core.attributesFile={attrs.name}"]
            for driver in ("memoryunit", *drivers):
                config += ["-c", f"diff.{driver}.xfuncname={UNIT_FUNCNAME}"]
            fmt = [f"--format={_RECORD}%H"] if args[0] == "log" else []
            out = self.repo._run(self.repo.top, [*config, command, "-p", "-U0", "--no-renames", "--no-ext-diff",
                                                 "--no-textconv", "--text", "--no-color", *fmt, *args[1:],
                                                 "--", self.folder + "/"], stdin)
        touched: Dict[str, set] = {}
        current = touched.setdefault("worktree", set()) if args[0] == "diff" else None
        for raw in out.split(b"\n"):
            line = raw.decode("utf-8", "replace")
            if line.startswith(_RECORD):
                current = touched.setdefault(line[1:].strip(), set())
            elif current is None:
                continue
            elif line.startswith("@@"):
                func = line.split("@@", 2)[-1]
                current.update(m.casefold() for m in ident.findall(func)[:1])
            elif line[:1] in "+-" and not line.startswith(("+++", "---")):
                m = heading.match(line)
                if m:
                    current.add(m.group(1).casefold())
        return touched

    def _work_tree_drivers(self, args: Sequence[str]) -> Optional[Tuple[str, ...]]:
        """The diff drivers the work tree's ``.gitattributes`` give the folder's changed files
        (a comparison with the work tree reads them; one of history runs in a bare
        repository, :meth:`Repo._run`), so that each gets the unit-heading funcname too;
        None when no file below the folder differs. :class:`GitError` for a file whose
        ``diff`` attribute is set or unset (``diff``, ``-diff``, ``binary``): Git would name
        no unit of its hunks, and a guess is never reported."""
        out = self.repo._run(self.repo.top, ["diff-index", "--name-only", "-z", "--no-renames", *args,
                                             "--", self.folder + "/"])
        paths = [p for p in out.split(b"\0") if p]
        if not paths:
            return None
        found = self.repo._run(self.repo.top, ["check-attr", "-z", "--stdin", "diff"],
                               stdin=b"\0".join(paths) + b"\0").split(b"\0")
        drivers = set()
        for path, value in zip(found[0::3], found[2::3]):
            name = value.decode("utf-8", "replace")
            if name in ("set", "unset"):
                shown = path.decode("utf-8", "replace")
                raise GitError(f"the work tree's .gitattributes give {shown} the diff attribute {name!r}: "
                               "Git cannot name the units its changes are in (commit the change, or remove the line)")
            if name != "unspecified" and re.fullmatch(r"[A-Za-z0-9_.-]+", name):
                drivers.add(name)
            elif name != "unspecified":
                raise GitError(f"the work tree's .gitattributes give {path.decode('utf-8', 'replace')} "
                               f"a diff driver this tool does not pass to Git: {name!r}")
        return tuple(sorted(drivers))

    def files_matching(self, pattern: str, commits: Sequence[str]) -> List[str]:
        """``commit:path`` of every file below the folder, at each of ``commits``, with a line
        matching ``pattern`` (extended regular expression, case-insensitive): one ``git
        grep`` over all the commits' trees."""
        try:
            out = self.repo._run(self.repo.top, ["grep", "-l", "-z", "-a", "-i", "-E", "--no-color", "-e", pattern,
                                                 *commits, "--", self.folder + "/"])
        except GitError as exc:
            if "exited with status 1" in str(exc):  # git grep: nothing matched
                return []
            raise
        return [name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name]

    def heading_lines(self, commit: str) -> List[str]:
        """Every line of every file below the folder at ``commit`` that starts like a
        level-2 heading (the lines :data:`UNIT_ID_HEADING` can match): one ``git grep``
        over the commit's tree, binary files read as text."""
        try:
            out = self.repo._run(self.repo.top, ["grep", "-h", "-a", "-E", "--no-color", "-e", "^ {0,3}##[ \t]",
                                                 commit, "--", self.folder + "/"])
        except GitError as exc:
            if "exited with status 1" in str(exc):  # git grep: nothing matched
                return []
            raise
        return out.decode("utf-8", "surrogateescape").split("\n")

    def folder_trees(self, commits: Sequence[str]) -> Dict[str, str]:
        """commit -> the id of the folder's tree at it ("" when the commit has no such
        folder): one ``git cat-file --batch-check``."""
        wanted = sorted(set(commits))
        if not wanted:
            return {}
        names = "".join(f"{sha}:{self.folder}\n" for sha in wanted)
        out = self.repo._run(self.repo.top, ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
                             stdin=names.encode("utf-8", "surrogateescape")).decode("utf-8", "replace").split("\n")
        found = {}
        for sha, line in zip(wanted, out):
            oid, _, kind = line.partition(" ")
            found[sha] = oid if kind == "tree" else ""
        if len(found) != len(wanted):
            raise GitError("git cat-file gave fewer answers than it was asked")
        return found

    def changes(self, revisions: Sequence[str],
                shas: Optional[Sequence[str]] = None) -> Dict[str, List[Tuple[str, str, str]]]:
        """Commit -> ``(path, old blob, new blob)`` for every file below the folder it changed
        against its first parent (``""`` for a side where the file does not exist), from one
        ``git log --raw --first-parent`` call; paths are relative to the folder. ``shas``:
        the only commits asked about, answered from :attr:`read_changes` when it has them all."""
        if shas is not None and all(sha in self.read_changes for sha in shas):
            return {sha: self.read_changes[sha] for sha in shas}
        out = self.repo._run(self.repo.top, ["log", "--first-parent", "--raw", "-z", "--no-renames", "--no-abbrev",
                                             "--no-color", f"--format={_RECORD}%H", *revisions,
                                             "--", self.folder + "/"])
        found: Dict[str, List[Tuple[str, str, str]]] = {}
        current: Optional[List[Tuple[str, str, str]]] = None
        fields = out.split(b"\0")
        i = 0
        while i < len(fields):
            item = fields[i].decode("utf-8", "surrogateescape").lstrip("\n")
            i += 1
            if item.startswith(_RECORD):
                current = found.setdefault(item[1:].strip(), [])
                if "\n:" in item:  # the first raw line follows the header in the same field
                    item = item[item.index("\n:") + 1:]
                else:
                    continue
            if item.startswith(":") and current is not None and i < len(fields):
                meta = item[1:].split(" ")
                path = fields[i].decode("utf-8", "surrogateescape")
                i += 1
                zero = "0" * len(meta[2])
                old, new = ("" if meta[2] == zero else meta[2]), ("" if meta[3] == zero else meta[3])
                current.append((path[len(self.folder) + 1:], old, new))
        return found

    def unit_patches(self, revisions: Sequence[str],
                     stdin: Optional[bytes] = None) -> Dict[str, Dict[str, Tuple[Optional[str], Optional[str]]]]:
        """Commit -> folder-relative path -> (text before, text after) of the units each
        commit changed against its first parent (the fallback of analyzer/history/unit_hunks.py, which
        builds the same from Git's changed lines), from ``git log -p --function-context`` with
        :data:`UNIT_FUNCNAME`: every hunk is widened to whole units (heading to the next
        heading), so a commit costs what it changed, never the size of its files; with no
        other context (``-U0``), so the next unit's heading line is not dragged in as a
        truncated unit whose missing fields would become parse facts of every commit. A side
        where the file does not exist is None. The texts hold only the changed units (and the
        file's lines before its first unit heading when a change reaches them). ``stdin``:
        what ``--stdin`` reads."""
        import tempfile

        with tempfile.NamedTemporaryFile("w", suffix=".attributes") as attrs:
            attrs.write("*.md diff=memoryunit\n*.MD diff=memoryunit\n")
            attrs.flush()
            out = self.repo._run(self.repo.top, [
                "-c", f"core.attributesFile={attrs.name}", "-c", f"diff.memoryunit.xfuncname={UNIT_FUNCNAME}",
                "-c", "core.quotePath=false", "log", "-p", "-U0", "--function-context", "--no-renames", "--no-ext-diff",
                "--no-textconv", "--text", "--no-color", "--no-prefix", f"--format={_RECORD}%H", *revisions,
                "--", self.folder + "/"], stdin)
        found: Dict[str, Dict[str, Tuple[Optional[str], Optional[str]]]] = {}
        sides: Dict[str, List[List[str]]] = {}
        absent: Dict[str, List[bool]] = {}
        sha = path = ""
        header = False  # between `diff --git` and the first hunk: `---`/`+++` are file names
        prefix = self.folder + "/"

        def flush() -> None:
            if sha and path:
                old, new = sides[path]
                gone, born = absent[path]
                found.setdefault(sha, {})[path[len(prefix):]] = (None if gone else "\n".join(old),
                                                                  None if born else "\n".join(new))

        lines = out.decode("utf-8", "surrogateescape").split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if line.startswith(_RECORD):
                flush()
                sha, path = line[1:].strip(), ""
            elif line.startswith("diff --git "):
                flush()
                path, header = "", True
            elif header and (names := patch_file(line, lines[i] if i < len(lines) else "")):
                i += 1
                path, born, gone = names
                sides[path], absent[path] = [[], []], [born, gone]
            elif line.startswith("@@") and path:
                header = False
                if sides[path][0] or sides[path][1]:  # hunks of one file: keep them apart
                    sides[path][0].append("")
                    sides[path][1].append("")
            elif path and not header and line[:1] in (" ", "-", "+"):
                if line[:1] != "+":
                    sides[path][0].append(line[1:])
                if line[:1] != "-":
                    sides[path][1].append(line[1:])
        flush()
        return found

    def blob_at(self, commit: str, path: str) -> str:
        """The blob id of ``path`` (folder-relative) at ``commit``, or "" when it has none."""
        out = self.repo._run(self.repo.top, ["ls-tree", "-z", "--full-tree", commit, "--",
                                             f"{self.folder}/{path}"])
        for record in out.split(b"\0"):
            meta = record.partition(b"\t")[0].decode("ascii", "replace").split(" ")
            if len(meta) == 3 and meta[1] == "blob":
                return meta[2]
        return ""
