"""Find and read memory files safely: inventory (§2.1), symlink refusal, bounded reads, decoding.

Nothing here follows a symlink: the walk uses ``os.scandir`` without following links and
files are opened with ``O_NOFOLLOW``. Problems become :class:`FileProblem` records that the
caller turns into diagnostics; one bad file never stops the others from being read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import List, Optional, Tuple

SIZE_CAP = 10 * 1024 * 1024  # bytes; larger files are refused, never read (--max-file-bytes changes it)
MANAGED_DIR_NAMES = ("areas", "rules", "profiles", "archive")
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, order=True)
class FileProblem:
    """A problem with one path (relative to the memory dir), with its position when known."""

    module: str
    code: str
    message: str
    line: int = 1
    col: int = 1
    severity: str = "error"


@dataclass
class Inventory:
    """The managed ``*.md`` files under the memory dir (sorted) and the problems met."""

    modules: List[str]
    problems: List[FileProblem]
    not_files: List[str]  # managed *.md names that are not regular files


def name_is_utf8(name: str) -> bool:
    """Whether a file name the system gave (bytes that are not UTF-8 become lone surrogates,
    Python's ``surrogateescape``) is valid UTF-8: the manifest, the facts and every output
    name files in UTF-8, so a name that is not cannot be read, named or written."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(name: str) -> str:
    """A file name with each byte that is not UTF-8 escaped as ``\\xNN``: printable anywhere,
    and never the name of another file (a backslash in a name is shown as it is)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _inside(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def inventory(memory_dir: str, project_root: str) -> Inventory:
    """Walk ``memory_dir`` without following symlinks and list the managed Markdown files."""
    modules: List[str] = []
    problems: List[FileProblem] = []
    not_files: List[str] = []
    real_root = os.path.realpath(project_root)
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            with os.scandir(os.path.join(memory_dir, rel_dir)) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            problems.append(FileProblem(rel_dir or ".", "MA-FILE-UNREADABLE", f"cannot list directory: {exc.strerror}"))
            continue
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            is_md = entry.name.casefold().endswith(".md")
            if not name_is_utf8(entry.name):
                if is_md or entry.is_dir(follow_symlinks=False):  # managed, or may hold managed files
                    problems.append(FileProblem(shown_name(rel), "MA-FILE-NAME",
                                                "file name is not valid UTF-8; not read"))
                    if is_md:
                        not_files.append(shown_name(rel))
                continue
            if entry.is_symlink():
                if is_md or (not rel_dir and entry.name in MANAGED_DIR_NAMES):
                    problems.append(FileProblem(rel, "MA-FILE-SYMLINK", "Managed memory path must not be a symlink"))
                    if is_md:
                        not_files.append(rel)
                elif not _inside(entry.path, real_root):
                    problems.append(FileProblem(rel, "MA-FILE-SYMLINK",
                                                "symlink points outside the project; not followed", severity="warning"))
                continue
            if entry.is_dir(follow_symlinks=False):
                if is_md:
                    problems.append(FileProblem(rel, "MA-FILE-NOT-REGULAR", "Managed memory path is not a regular file"))
                    not_files.append(rel)
                else:
                    stack.append(rel)
                continue
            if not is_md:
                continue
            if entry.is_file(follow_symlinks=False):
                modules.append(rel)
            else:
                problems.append(FileProblem(rel, "MA-FILE-NOT-REGULAR", "Managed memory path is not a regular file"))
                not_files.append(rel)
    return Inventory(sorted(modules), sorted(problems), sorted(not_files))


def read_bytes(path: str, limit: int = SIZE_CAP, follow_symlinks: bool = False) -> Tuple[Optional[bytes], Optional[str]]:
    """Read a regular file of at most ``limit`` bytes without following a symlink (unless
    ``follow_symlinks``: a file the user named); never blocks on a FIFO, never reads a
    device; returns (data, error message)."""
    flags = os.O_RDONLY | (0 if follow_symlinks else getattr(os, "O_NOFOLLOW", 0)) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        return None, f"cannot open: {exc.strerror}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, "not a regular file"
        if info.st_size > limit:
            return None, f"file is {info.st_size} bytes, over the {limit}-byte limit (--max-file-bytes); not read"
        chunks = []
        total = 0
        # the size fstat gave and one byte more: one read of a file that did not change
        # (a fixed 1 MiB buffer per read cost a cold 10,000-entry read a few ms of page faults)
        size = min(info.st_size, limit) + 1
        while True:
            chunk = os.read(fd, size)
            size = 1 << 20
            if not chunk:
                break
            total += len(chunk)
            if total > limit:  # the file grew while we read it
                return None, f"file is over the {limit}-byte limit (--max-file-bytes); not read"
            chunks.append(chunk)
        return b"".join(chunks), None
    except OSError as exc:
        return None, f"cannot read: {exc.strerror}"
    finally:
        os.close(fd)


def decode(module: str, data: bytes) -> Tuple[Optional[str], List[FileProblem]]:
    """Decode UTF-8 (a leading BOM is dropped); report BOM, CRLF, NUL and invalid bytes."""
    problems: List[FileProblem] = []
    if data.startswith(BOM):
        data = data[len(BOM):]
        problems.append(FileProblem(module, "MA-FILE-BOM", "UTF-8 byte order mark ignored", severity="warning"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        problems.append(FileProblem(module, "MA-FILE-ENCODING",
                                    f"file is not valid UTF-8 (byte 0x{data[exc.start]:02x}); not read", line, col))
        return None, problems
    # searched in the bytes first (a byte search; the text may take two bytes a character)
    # and in the text only when found: in UTF-8 these bytes stand for these characters only.
    # A lone CR first: a one-byte search is a memchr, the two-byte one scanned a file without
    # CR 100x slower (4 ms of a 2.6 MB subjects.md, which analyze diff decodes on every run)
    crlf = text.find("\r\n") if b"\r" in data and b"\r\n" in data else -1
    if crlf >= 0:
        problems.append(FileProblem(module, "MA-FILE-CRLF", "CRLF line endings read as LF",
                                    text.count("\n", 0, crlf) + 1, severity="warning"))
    nul = text.find("\x00") if b"\x00" in data else -1
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        col = nul - (text.rfind("\n", 0, nul) + 1) + 1
        problems.append(FileProblem(module, "MA-FILE-NUL", "file contains NUL bytes", line, col, severity="warning"))
    return text, problems


DEFAULT_MEMORY_DIR = "docs/memory"
MEMORY_DIR_MISSING = "memory dir does not exist"  # check_memory_dir's answer for a dir that is not there


def memory_dir_missing(project_root, memory_dir: str) -> str:
    """The message of a missing memory dir, as every command words it: the path under the
    root as given (``/abs/root/docs/memory``, or ``./docs/memory`` for ``--project-root .``)."""
    return f"Memory directory missing: {os.path.join(str(project_root), memory_dir)}"


def memory_dir_name(value: str) -> str:
    """``--memory-dir`` as commands use and show it: backslashes as slashes and trailing
    slashes dropped, the rest as given. An absolute path stays absolute (``/etc`` is shown as
    ``/etc`` and refused, never read as ``etc``: docs/decisions.md); empty means the default."""
    text = value.replace("\\", "/")
    if not text.strip("/"):
        return text or DEFAULT_MEMORY_DIR
    return text.rstrip("/")


def memory_dir_shape(memory_dir: str) -> Optional[str]:
    """Why the name ``memory_dir`` is not a memory dir (§1: a strict subdirectory of docs/),
    or None; the part of :func:`check_memory_dir` that needs no work tree (a Git revision's)."""
    parts = memory_dir.replace("\\", "/").strip("/").split("/")
    if memory_dir.startswith("/") or len(parts) < 2 or parts[0] != "docs" or any(p in ("", ".", "..") for p in parts):
        return "memory dir must be a strict subdirectory of docs/"
    return None


def check_memory_dir(project_root: str, memory_dir: str) -> Optional[str]:
    """Why ``memory_dir`` (relative to the root) is not usable, or None (§1: under docs/, no symlinks)."""
    shape = memory_dir_shape(memory_dir)
    if shape is not None:
        return shape
    parts = memory_dir.replace("\\", "/").strip("/").split("/")
    current = project_root
    for part in parts:
        current = os.path.join(current, part)
        if os.path.islink(current):
            return f"memory dir component {part!r} is a symlink"
        if not os.path.exists(current):
            return MEMORY_DIR_MISSING
    if not os.path.isdir(current):
        return "memory dir is not a directory"
    return None


def source_state(root: str, real_root: str, path: str) -> str:
    """What the filesystem says about an evidence source path (stat only, never read):
    "escapes" (resolves outside the project root), "dir", "file" or "missing"."""
    full = os.path.join(root, path)
    real = os.path.realpath(full)
    if real != real_root and not real.startswith(real_root + os.sep):
        return "escapes"
    if os.path.isdir(full):
        return "dir"
    if os.path.exists(full):
        return "file"
    return "missing"
