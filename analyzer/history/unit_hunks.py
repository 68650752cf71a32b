"""Readiness's unit snippets from ``git log -p -U0``, widened to whole units here.

:meth:`analyzer.history.git.History.unit_patches` has Git widen every hunk to whole units
(``--function-context`` with the unit-heading funcname). That makes Git hash both whole
versions of every changed file (Git trims the common tail of two versions only for a diff
without context), which was most of a first reading's CPU and grew with the size of the
changed files. Here Git shows only the changed lines (``-U0``, ``--full-index``), and each
hunk is widened as Git's function context widens it (xdiff's ``xdl_emit_diff``: up to the
unit heading at or before the change, then over the non-blank lines above it; down to the
line before the next heading, less trailing blank lines; changes whose units overlap in
one hunk), on the file versions rebuilt here: the parent's version of a file is read once
(``git cat-file --batch``) or is the version the previous commit's hunks produced, and the
commit's version is that one with the hunks applied. The result is what ``unit_patches``
gives, line for line (tests/history/test_unit_hunks.py compares both), and it is checked as
it is built: every removed line must be the parent's line at its place, and every rebuilt
version must have the size Git records for its blob; anything else raises
:class:`Mismatch`, and the caller asks Git to widen instead. Read-only, like every Git
command of analyzer/history/git.py. Nothing is decided here.
"""

from __future__ import annotations

import hashlib
import re
from typing import Dict, List, Optional, Sequence, Tuple

from analyzer.history.git import _RECORD, UNIT_HEADING as HEADING, GitError, History, patch_file

# a character that makes Git quote a path even with core.quotePath=false (patch_file refuses those)
_QUOTED = re.compile(r'[\x00-\x1f"\\\x7f]')
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

# the `git log` whose output :func:`_parse` reads (revisions and the folder follow)
# (--raw: each commit's changed files as :meth:`History.changes` reads them, from the same diff)
LOG = ("-c", "core.quotePath=false", "log", "-p", "--raw", "--no-abbrev", "-U0", "--full-index", "--no-renames",
       "--no-ext-diff", "--no-textconv", "--text", "--no-color", "--no-prefix", "--inter-hunk-context=0",
       f"--format={_RECORD}%H")

Change = Tuple[int, int, int, int, List[str], List[str]]  # i1, chg1, i2, chg2, removed, added lines


class Mismatch(Exception):
    """A rebuilt file version does not match what Git holds: let Git widen the hunks."""


class _File:
    """One file of one commit's -U0 diff."""

    __slots__ = ("path", "old", "new", "gone", "born", "changes", "old_eol", "new_eol")

    def __init__(self, path: str, old: str, new: str, gone: bool, born: bool) -> None:
        self.path, self.old, self.new, self.gone, self.born = path, old, new, gone, born
        self.changes: List[Change] = []
        # False when Git marks a removed (old) / an added (new) line "\\ No newline at end of file"
        self.old_eol = self.new_eol = True


class _Version:
    """A file version as lines without their "\\n", whether its last line has one, and its
    size in bytes with every line's "\\n" counted."""

    __slots__ = ("lines", "eol", "full")

    def __init__(self, lines: List[str], eol: bool, full: int) -> None:
        self.lines, self.eol, self.full = lines, eol, full

    def size(self) -> int:
        """The version's size in bytes."""
        return self.full - (0 if self.eol or not self.lines else 1)


def unit_patches(history: History, revisions: Sequence[str],
                 stdin: Optional[bytes] = None) -> Dict[str, Dict[str, Tuple[Optional[str], Optional[str]]]]:
    """What :meth:`analyzer.history.git.History.unit_patches` gives for the same arguments, from
    ``git log -p -U0``. Commits may come in any order; newest first costs Git least (its
    packs keep the newest version of a file whole and older ones as deltas), and a file's
    versions are then rebuilt backwards, each parent's version from its child's."""
    order = stdin.decode("ascii", "replace").split() if stdin is not None else []
    roots = _roots(history, order)
    if roots:  # Git is not asked for them: their files are read whole (:func:`_root_files`)
        stdin = "".join(f"{sha}\n" for sha in order if sha not in roots).encode("ascii")
    out = history.repo._run(history.repo.top, [*LOG, *revisions, "--", history.folder + "/"], stdin) \
        if not roots or len(roots) < len(order) else b""
    raw: Dict[str, Optional[list]] = {}
    commits = _parse(out.decode("utf-8", "surrogateescape"), raw)
    if "--diff-merges=first-parent" in revisions:  # what `log --first-parent --raw` shows of each
        _keep_changes(history, raw, roots)
    if roots:  # in the order given, as Git shows them (--no-walk=unsorted)
        shown = dict(commits)
        shown.update(roots)
        commits = [(sha, shown[sha]) for sha in order if sha in shown]
    prefix = history.folder + "/"
    whole = {f for files in roots.values() for f in files}  # a root's files, their lines not read yet
    known, wanted, refs = set(), set(), {}
    for _sha, files in commits:  # which versions must be read: those no other one gives
        for f in files:
            if f in whole:
                if f.new not in known:  # else an earlier change gives it (kept: the root refers to it)
                    wanted.add(f.new)
            elif not (f.born or f.gone or f.old in known or f.new in known):
                wanted.add(f.old)
            for oid in _sides(f):
                known.add(oid)
                refs[oid] = refs.get(oid, 0) + 1
    try:
        versions = {oid: _read(data) for oid, data in history.repo.blobs(wanted).items()}
        sizes = _sizes(history, sorted(known - wanted))
    except GitError as exc:  # e.g. a submodule's commit id where a blob was expected
        raise Mismatch(str(exc)) from None
    sizes.update((oid, version.size()) for oid, version in versions.items())
    found: Dict[str, Dict[str, Tuple[Optional[str], Optional[str]]]] = {}
    for sha, files in commits:
        for f in files:
            if f in whole and not f.changes:  # the root's file is one change adding every line of its version
                version = versions[f.new]
                f.changes.append((0, 0, 0, len(version.lines), [], version.lines))
                f.new_eol = version.eol
            for oid in _sides(f):
                refs[oid] -= 1
            old, new = _versions(f, versions, refs, sizes)
            if not f.old_eol and old.eol:
                raise Mismatch(f"{f.path}: the parent's last line is not as Git shows it")
            before, after = _snippets(old.lines, f.changes)
            found.setdefault(sha, {})[f.path[len(prefix):]] = (None if f.born else before, None if f.gone else after)
            if not f.gone and new is None and refs[f.new]:  # a later change starts from it
                new = _checked(_apply(_own(old, f.old, refs), f), f.new, sizes, f.path)
            for oid, version in ((f.old, old), (f.new, new)):
                if refs.get(oid) and version is not None:
                    versions[oid] = version
                elif not refs.get(oid):
                    versions.pop(oid, None)
    return found


def _keep_changes(history: History, raw: Dict[str, Optional[list]], roots: Dict[str, List["_File"]]) -> None:
    """Give :attr:`History.read_changes` each commit's raw lines (a commit whose raw lines
    name a path Git quotes is left out: :meth:`History.changes` asks Git for it) and each
    root's files (every one added)."""
    cut = len(history.folder) + 1
    for sha, found in raw.items():
        if found is not None:
            history.read_changes[sha] = [(path[cut:], old, new) for path, old, new in found]
    for sha, files in roots.items():
        history.read_changes[sha] = [(f.path[cut:], "", f.new) for f in files]


def _raw_line(line: str, found: Optional[list]) -> Optional[list]:
    """``found`` with one ``--raw`` line's (path, old blob, new blob) added ("" for a side
    that does not exist); None once a path is quoted (or the line is not as expected)."""
    meta, tab, path = line.partition("\t")
    fields = meta[1:].split(" ")
    if found is None or not tab or len(fields) != 5 or path.startswith('"'):
        return None
    old, new = fields[2], fields[3]
    found.append((path, "" if not old.strip("0") else old, "" if not new.strip("0") else new))
    return found


def _roots(history: History, shas: List[str]) -> Dict[str, List[_File]]:
    """root commit id -> its files below the folder as Git's ``-U0`` diff of it gives them
    (each a new file, one change adding every line), for the root commits among ``shas``.
    Git's diff of a root commit is every file of its tree printed as added lines: on the
    bench history's first readiness reading that was half of the text Git printed and this
    module parsed, and a fifth of Git's CPU there; the tree's blobs are read whole instead.
    A root whose files Git would show otherwise (an empty file: no hunk; a path Git quotes;
    an entry that is not a blob) is left to Git."""
    if len(shas) < 1:
        return {}
    if all(sha in history.parents for sha in shas):  # `git log` gave their parents already
        listed = [sha for sha in shas if not history.parents[sha]]
    else:
        listed = history.repo._run(history.repo.top, ["rev-list", "--no-walk=unsorted", "--max-parents=0", "--stdin"],
                                   ("".join(f"{sha}\n" for sha in shas)).encode("ascii")).decode("ascii", "replace").split()
    found: Dict[str, List[_File]] = {}
    for sha in listed:
        files = _root_files(history, sha)
        if files is not None:
            found[sha] = files
    return found


def _root_files(history: History, sha: str) -> Optional[List[_File]]:
    """The files of root commit ``sha`` below the folder as :func:`_parse` reads them from
    Git's diff of it, their one change (every line added) still to be given from the
    version's lines (:func:`unit_patches`: the version a later commit's change starts from
    is rebuilt backwards anyway, and the root's blobs, deepest in Git's delta chains, cost
    Git most to read); None: leave it to Git."""
    entries = history.repo.tree(sha, history.folder)
    if any(entry.kind != "blob" or _QUOTED.search(entry.path) or entry.oid in _EMPTY for entry in entries):
        return None
    return [_File(entry.path, "0" * len(entry.oid), entry.oid, False, True) for entry in entries]  # in tree order


# the ids of an empty blob (SHA-1 and SHA-256 repositories): Git's diff of an empty new file has no hunk
_EMPTY = {hashlib.new(name, b"blob 0\0").hexdigest() for name in ("sha1", "sha256")}


def _sides(f: _File) -> List[str]:
    """The blob ids of the versions of a file change that exist."""
    return [f.old] if f.gone else [f.new] if f.born else [f.old, f.new]


def _versions(f: _File, versions: Dict[str, _Version], refs: Dict[str, int],
              sizes: Dict[str, int]) -> Tuple[_Version, Optional[_Version]]:
    """The file's old version, and its new version when it came without work: a new file's
    is its added lines, and an old version rebuilt backwards comes from the new one."""
    if f.born or f.gone:  # the one change holds the whole file
        if len(f.changes) != 1 or f.changes[0][0] != 0 or f.changes[0][2] != 0:
            raise Mismatch(f"{f.path}: a whole file is not one change")
        lines = f.changes[0][5 if f.born else 4]
        whole = _checked(_Version(list(lines), f.new_eol if f.born else f.old_eol, _bytes(lines)),
                         f.new if f.born else f.old, sizes, f.path)
        return (_Version([], True, 0), whole) if f.born else (versions.get(f.old) or whole, None)
    if f.old in versions:
        return versions[f.old], None
    new = versions[f.new]
    old = _checked(_apply(_own(new, f.new, refs), f, backwards=True), f.old, sizes, f.path)
    return old, new if refs[f.new] else None


def _own(version: _Version, oid: str, refs: Dict[str, int]) -> _Version:
    """``version`` to change in place: a copy when a later change still needs it."""
    return _Version(list(version.lines), version.eol, version.full) if refs.get(oid) else version


def _checked(version: _Version, oid: str, sizes: Dict[str, int], path: str) -> _Version:
    if version.size() != sizes.get(oid):
        raise Mismatch(f"{path}: rebuilt {version.size()} bytes, Git holds {sizes.get(oid)}")
    return version


# Git's -U0 output as it always looks for a changed text file (one pattern match per file
# header and per hunk, not a loop over its lines): the extended header lines Git writes for a
# new, deleted or re-moded file, the index line with both full blob ids, the two names; a
# hunk's header, its removed lines, "\\ No newline at end of file", its added lines, and
# that mark again
_FAST_FILE = re.compile(r"diff --git [^\n]*\n(?:(?:old|new|deleted) [^\n]*\n)*index ([0-9a-f]+)\.\.([0-9a-f]+)"
                        r"(?: [0-7]+)?\n--- ([^\n]*)\n\+\+\+ ([^\n]*)\n")
_FAST_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@[^\n]*\n((?:-[^\n]*\n)*)(\\[^\n]*\n)?"
                        r"((?:\+[^\n]*\n)*)(\\[^\n]*\n)?")


def _parse(text: str, raw: Optional[Dict[str, Optional[list]]] = None) -> List[Tuple[str, List[_File]]]:
    """(commit, files with their -U0 changes) in Git's order: :func:`_parse_fast`, or, for
    output it does not expect, :func:`_parse_lines` (which also says what is wrong).
    ``raw``: filled with commit -> its ``--raw`` lines (:func:`_raw_line`)."""
    raw = {} if raw is None else raw
    found = _parse_fast(text, raw)
    if found is None:
        raw.clear()
        return _parse_lines(text, raw)
    return found


def _parse_fast(text: str, raw: Dict[str, Optional[list]]) -> Optional[List[Tuple[str, List[_File]]]]:
    """:func:`_parse_lines`'s result for output of the shapes :data:`_FAST_FILE` and
    :data:`_FAST_HUNK` match, read a file header and a hunk at a time (a first reading of
    the bench history parses 10,000 file headers and hunks: per line this was a quarter of
    this module's time); None for anything else (a path Git quotes, a file without hunks, a
    hunk whose lines are not as its header counts), which :func:`_parse_lines` then reads."""
    commits: List[Tuple[str, List[_File]]] = []
    at, end = 0, len(text)
    file_match, hunk_match = _FAST_FILE.match, _FAST_HUNK.match
    while at < end:
        char = text[at]
        if char == _RECORD:
            stop = text.find("\n", at)
            if stop < 0:
                return None
            commits.append((text[at + 1:stop].strip(), []))
            raw[commits[-1][0]] = []
            at = stop + 1
            continue
        if char == "\n":  # the empty line after a commit's id
            at += 1
            continue
        if char == ":" and commits:  # a --raw line
            stop = text.find("\n", at)
            if stop < 0:
                return None
            raw[commits[-1][0]] = _raw_line(text[at:stop], raw[commits[-1][0]])
            at = stop + 1
            continue
        found = file_match(text, at)
        if found is None or not commits:
            return None
        old, new, minus, plus = found.groups()
        born, gone = minus == "/dev/null", plus == "/dev/null"
        name = minus if gone else plus
        if (name.endswith("\t") or name.startswith('"') or min(len(old), len(new)) < 40
                or (old.strip("0") == "") != born or (new.strip("0") == "") != gone):
            return None
        current = _File(name, old, new, gone, born)
        commits[-1][1].append(current)
        at = found.end()
        changes = current.changes
        while at < end and text[at] == "@":
            hunk = hunk_match(text, at)
            if hunk is None:
                return None
            a, b, c, d, minus, old_mark, plus, new_mark = hunk.groups()
            b = 1 if b is None else int(b)
            d = 1 if d is None else int(d)
            removed = minus[1:-1].split("\n-") if minus else []
            added = plus[1:-1].split("\n+") if plus else []
            if len(removed) != b or len(added) != d or (old_mark and not b) or (new_mark and not d):
                return None
            if old_mark:
                current.old_eol = False
            if new_mark:
                current.new_eol = False
            a, c = int(a), int(c)
            changes.append((a if b == 0 else a - 1, b, c if d == 0 else c - 1, d, removed, added))
            at = hunk.end()
    return commits


def _parse_lines(text: str, raw: Dict[str, Optional[list]]) -> List[Tuple[str, List[_File]]]:
    """(commit, files with their -U0 changes) in Git's order, line by line. A hunk's removed
    and added lines are taken as the slices its header counts: a line of another side where
    a slice should be, or a changed line no header counts, is a :class:`Mismatch`."""
    commits: List[Tuple[str, List[_File]]] = []
    lines = text.split("\n")
    count = len(lines)
    current: Optional[_File] = None
    oids = ("", "")
    header = False
    i = 0
    while i < count:
        line = lines[i]
        i += 1
        c = line[:1]
        if c == "@" and current is not None:
            header = False
            m = HUNK.match(line)
            if not m:
                raise Mismatch(f"{current.path}: unreadable hunk header {line!r}")
            a, b, c2, d = (int(g) if g is not None else 1 for g in m.groups())
            removed, i = _side(lines, i, b, "-", current.path)
            if b and i < count and lines[i][:1] == "\\":  # "\\ No newline at end of file" of the old side
                current.old_eol = False
                i += 1
            added, i = _side(lines, i, d, "+", current.path)
            if d and i < count and lines[i][:1] == "\\":
                current.new_eol = False
                i += 1
            current.changes.append((a if b == 0 else a - 1, b, c2 if d == 0 else c2 - 1, d, removed, added))
        elif not header and current is not None and (c == "-" or c == "+" or c == "\\"):
            raise Mismatch(f"{current.path}: a changed line outside the hunk that counts it")
        elif line.startswith(_RECORD):
            commits.append((line[1:].strip(), []))
            raw[commits[-1][0]] = []
            current, header = None, False
        elif c == ":" and current is None and not header and commits:
            raw[commits[-1][0]] = _raw_line(line, raw[commits[-1][0]])
        elif line.startswith("diff --git "):
            current, header, oids = None, True, ("", "")
        elif header and line.startswith("index "):
            pair = line[6:].split(" ", 1)[0].split("..")
            if len(pair) == 2:
                oids = (pair[0], pair[1])
        elif header and (names := patch_file(line, lines[i] if i < count else "")):
            i += 1
            name, born, gone = names
            if min(map(len, oids)) < 40 or (set(oids[0]) == {"0"}) != born or (set(oids[1]) == {"0"}) != gone:
                raise Mismatch(f"{name}: no full blob ids")
            current = _File(name, oids[0], oids[1], gone, born)
            commits[-1][1].append(current)
    return commits


def _side(lines: List[str], at: int, count: int, mark: str, path: str) -> Tuple[List[str], int]:
    """The ``count`` lines of one side of a hunk from ``lines[at]`` on, without their
    ``mark``, and where the next line is."""
    taken = lines[at:at + count]
    if len(taken) != count or "".join([line[:1] for line in taken]) != mark * count:
        raise Mismatch(f"{path}: a hunk's lines are not as its header counts them")
    return [line[1:] for line in taken], at + count


def _read(data: bytes) -> _Version:
    """A blob as a :class:`_Version`."""
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    eol = lines[-1] == ""
    if eol:
        lines.pop()
    return _Version(lines, eol, len(data) + (0 if eol else 1))


def _sizes(history: History, oids: List[str]) -> Dict[str, int]:
    """blob id -> size in bytes, from one ``git cat-file --batch-check``."""
    if not oids:
        return {}
    out = history.repo._run(history.repo.top, ["cat-file", "--batch-check=%(objectname) %(objectsize)"],
                            stdin=("\n".join(oids) + "\n").encode("ascii")).decode("ascii", "replace")
    sizes = {}
    for line in out.split("\n"):
        oid, _, size = line.partition(" ")
        if size.isdigit():
            sizes[oid] = int(size)
    return sizes


def _apply(version: _Version, f: _File, backwards: bool = False) -> _Version:
    """``version`` with the file's changes applied in place (``backwards``: undone, from the
    new version to the old); :class:`Mismatch` when a line a change replaces is not the
    version's line at its place."""
    lines = version.lines
    full = version.full
    at = len(lines) + 1
    for i1, chg1, i2, chg2, removed, added in reversed(f.changes):
        start, count, gone, put = (i2, chg2, added, removed) if backwards else (i1, chg1, removed, added)
        if start + count > at or len(gone) != count or lines[start:start + count] != gone or len(put) != (
                chg1 if backwards else chg2):
            raise Mismatch(f"{f.path}: a changed line is not the version's line at its place")
        lines[start:start + count] = put
        at = start
        full += _bytes(put) - _bytes(gone)
    # "\\ No newline at end of file" after a line marks that side's last line; a side without
    # a marked line ends in "\\n" if the other side did, or if the other's marked last line went
    if backwards:
        return _Version(lines, f.old_eol and (version.eol or not f.new_eol), full)
    return _Version(lines, f.new_eol and (version.eol or not f.old_eol), full)


def _bytes(lines: List[str]) -> int:
    """The size in bytes of ``lines`` with a "\\n" after each (one encoding of their join)."""
    return len("\n".join(lines).encode("utf-8", "surrogateescape")) + 1 if lines else 0


def _is_func(line: str) -> bool:
    return "#" in line[:4] and HEADING.match(line) is not None


def _is_empty(line: str) -> bool:
    # xdiff's is_empty_rec uses Git's own isspace (git-compat-util's sane_ctype): space, \t,
    # \n and \r only; \v and \f are not blank to Git, so a line of them ends a function context
    return not line.strip(" \t\n\r")


def _func_line(lines: List[str], start: int, limit: int) -> int:
    """xdiff's get_func_line: the first heading from ``start`` towards ``limit`` (exclusive)."""
    if not 0 <= start < len(lines):
        return -1
    match = HEADING.match  # as _is_func, inline: a first reading tests 130,000 lines here
    for at in range(start, max(limit, -1), -1) if start > limit else range(start, min(limit, len(lines))):
        line = lines[at]
        if "#" in line[:4] and match(line) is not None:
            return at
    return -1


def _hunks(old: List[str], changes: List[Change]) -> List[Tuple[int, int, int, int]]:
    """xdl_emit_diff's hunks with function context and no other context, as (first change,
    last change, new-side start, new-side end); the new version is not needed: its lines
    outside the changes are the old ones, and an appended change is the last one."""
    out = []
    n1 = len(old)
    n2 = n1 + sum(c[3] - c[1] for c in changes)
    k = 0
    while k < len(changes):
        i1, _c1, i2, _c2 = changes[k][:4]
        s1, s2 = i1, i2
        appended = i1 >= n1
        # an appended change adding a whole unit needs no context above it
        if not (appended and any(_is_func(line) for c in changes[k:] for line in c[5])):
            fs1 = _func_line(old, n1 - 1 if appended else i1, -1)
            while fs1 > 0 and not _is_empty(old[fs1 - 1]) and not _is_func(old[fs1 - 1]):
                fs1 -= 1
            fs1 = max(fs1, 0)
            if fs1 < s1:
                s2 = max(s2 - (s1 - fs1), 0)
        last = k
        while True:
            e1 = changes[last][0] + changes[last][1]
            e2 = changes[last][2] + changes[last][3]
            fe1 = _func_line(old, e1, n1)
            while fe1 > 0 and _is_empty(old[fe1 - 1]):
                fe1 -= 1
            if fe1 < 0:
                fe1 = n1
            if fe1 > e1:
                e2 = min(e2 + (fe1 - e1), n2)
                e1 = fe1
            if last + 1 < len(changes):
                nxt = min(changes[last + 1][0], n1 - 1)
                if nxt <= e1 or _func_line(old, nxt, e1) < 0:  # the next change is in this unit
                    last += 1
                    continue
            break
        out.append((k, last, s2, e2))
        k = last + 1
    return out


def _snippets(old: List[str], changes: List[Change]) -> Tuple[str, str]:
    """The two sides of the widened hunks as :meth:`History.unit_patches` joins them. Git
    prints context lines from the new version; outside the changes those are the old
    version's lines, shifted by what the changes before them added or removed."""
    before: List[str] = []
    after: List[str] = []
    for first, last, s2, e2 in _hunks(old, changes):
        if before or after:  # hunks of one file: kept apart by an empty line
            before.append("")
            after.append("")
        i1, _c1, i2, _c2 = changes[first][:4]
        if s2 - (i2 - i1) < 0:
            raise Mismatch("a unit starts inside an earlier change")
        context = old[s2 - (i2 - i1):i1]
        before += context
        after += context
        p1, p2 = i1, i2
        for i1, chg1, i2, chg2, removed, added in changes[first:last + 1]:
            gap = old[p1:p1 + min(i1 - p1, i2 - p2)]
            before += gap + removed
            after += gap + added
            p1, p2 = i1 + chg1, i2 + chg2
        context = old[p1:p1 + e2 - p2]
        before += context
        after += context
    return "\n".join(before), "\n".join(after)
