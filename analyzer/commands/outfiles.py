"""Every file the analyzer writes for its user goes through here: ``--output [FORMAT:]FILE``,
the ``$GITHUB_STEP_SUMMARY`` report, ``facts --out DIR``.

The analyzer is read-only for the project it analyzes, and in CI that project is written by
whoever opened the pull request. So a target is refused (:class:`OutputRefused`, reported
as ``MA-OUTPUT`` with exit 2) when it is

- inside the memory dir, or inside a ``.git`` directory (any: the project's, a submodule's,
  one a symlinked parent leads to), judged on the path with every symlink of its parent
  resolved;
- a symlink (never followed: ``O_NOFOLLOW``), or an existing path that is not a regular
  file: a directory, a FIFO (opening one for writing blocked forever), a device, a socket.

The path is opened with ``O_NOFOLLOW | O_NONBLOCK`` and checked again with ``fstat`` after
opening, so a target swapped for a FIFO or device between the check and the open is refused
too, without blocking. Output paths themselves come only from the command line
(docs/decisions.md: the project's configuration cannot name one).
"""

from __future__ import annotations

import os
import stat
from typing import Optional


class OutputRefused(Exception):
    """A target the analyzer will not write; the message names the path and why."""


def refusal(path: str, project_root: str, memory_dir: str, directory: bool = False) -> Optional[str]:
    """Why ``path`` may not be written (None when it may): memory dir, ``.git``, symlink,
    not a regular file (with ``directory``: not a directory, for a directory of outputs)."""
    from analyzer.engine.sourcefile import kind

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return f"cannot inspect it: {exc.strerror}"
    if info is not None and stat.S_ISLNK(info.st_mode):
        return "it is a symlink (never followed when writing)"
    if info is not None and directory and not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if info is not None and not directory and not stat.S_ISREG(info.st_mode):
        return f"it is {kind(info.st_mode)}, not a regular file"
    real = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
    if ".git" in real.split(os.sep):
        return "it is inside a .git directory"
    memory = os.path.realpath(os.path.join(project_root, memory_dir))
    if real == memory or real.startswith(memory.rstrip(os.sep) + os.sep):
        return "it is inside the memory dir, which the analyzer only reads"
    return None


def write_text(path: str, text: str, project_root: str, memory_dir: str, append: bool = False) -> None:
    """Write (or append) ``text`` as UTF-8 to ``path``; :class:`OutputRefused` for a refused
    target, ``OSError`` when the write itself fails."""
    reason = refusal(path, project_root, memory_dir)
    if reason is not None:
        raise OutputRefused(f"refused to write {path}: {reason}")
    flags = (os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else 0) | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        raise _opened_refusal(path, exc) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # swapped after the check: nothing was truncated
            from analyzer.engine.sourcefile import kind

            raise OutputRefused(f"refused to write {path}: it is {kind(info.st_mode)}, not a regular file")
        if not append:
            os.ftruncate(fd, 0)
        data = text.encode("utf-8", "backslashreplace")
        while data:
            written = os.write(fd, data)
            data = data[written:]
    finally:
        os.close(fd)


def _opened_refusal(path: str, exc: OSError) -> Exception:
    import errno

    if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink made after the check
        return OutputRefused(f"refused to write {path}: it is a symlink (never followed when writing)")
    if exc.errno == errno.ENXIO:  # O_NONBLOCK on a FIFO without a reader
        return OutputRefused(f"refused to write {path}: it is a FIFO (named pipe), not a regular file")
    return exc
