"""Reading the engine's inputs (programs, ``.include`` targets, ``.facts`` files): regular
files only, and never a read that can block.

A FIFO given as a program or facts file used to block the process forever, and a directory
was reported as missing. Files are opened with ``O_NONBLOCK`` (which makes opening a FIFO
return at once) and checked with ``fstat`` before anything is read; anything else raises
:class:`NotRegularFile`, an ``OSError`` whose ``strerror`` names what the path is.
"""

from __future__ import annotations

import errno
import os
import stat

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotRegularFile(OSError):
    """The path exists but is not a regular file; ``strerror`` says what it is."""


def kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words (``"a FIFO (named pipe)"``)."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _refuse(path, mode: int) -> NotRegularFile:
    return NotRegularFile(errno.EINVAL, f"{kind(mode)}, not a regular file", str(path))


def require_regular(path) -> None:
    """Raise ``OSError`` when ``path`` (symlinks followed) is missing or not a regular file."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(path, info.st_mode)


def read_bytes(path) -> bytes:
    """The content of the regular file ``path``; ``OSError`` (:class:`NotRegularFile` for a
    FIFO, directory, device or socket) otherwise. Never blocks on a FIFO."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _refuse(path, info.st_mode)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def read_text(path) -> str:
    """:func:`read_bytes` decoded as UTF-8 (``UnicodeDecodeError`` when it is not)."""
    return read_bytes(path).decode("utf-8")
