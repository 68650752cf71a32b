"""Fail closed on history that does not decode: a managed file whose bytes at a commit are
not valid UTF-8 makes a history reading unreadable (exit 2), never a change counted as read.

Git's output is decoded with ``surrogateescape`` (analyzer/history/unit_hunks.py) so that a bad byte
survives as a lone surrogate instead of stopping the parse; :func:`refuse_undecodable` finds
such a byte in a commit's unit snippets and reports the file as ``read`` and ``check`` report
an undecodable file: ``path:line:col MA-FILE-ENCODING``, at the commit that holds it.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from analyzer.project import files
from analyzer.history.git import FileError, History


def _undecodable(text: Optional[str]) -> bool:
    if text is None or text.isascii():  # the common case, one C-level pass
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a surrogate: a byte that was not UTF-8
        return True
    return False


def refuse_undecodable(history: History, patches: Dict[str, Dict[str, Tuple[Optional[str], Optional[str]]]],
                       parents: Dict[str, str]) -> None:
    """Raise :class:`FileError` for the first (by commit id, path) snippet of ``patches``
    (sha -> folder-relative path -> (before, after)) holding bytes that are not UTF-8: the
    file at the commit (after) or at its first parent (``parents[sha]``; before)."""
    for sha in sorted(patches):
        for path, (before, after) in sorted(patches[sha].items()):
            if not files.name_is_utf8(path):  # as the work tree's inventory refuses it (analyzer/project/files.py)
                raise FileError("MA-FILE-NAME", files.shown_name(_shown(history, path)),
                                "file name is not valid UTF-8; not read", where=sha[:12])
            for side, text in ((parents.get(sha, ""), before), (sha, after)):
                if side and _undecodable(text):
                    raise file_error(history, side, path)


def file_error(history: History, commit: str, path: str) -> FileError:
    """The MA-FILE-ENCODING error of folder-relative ``path`` at ``commit``, with the
    position of its first bad byte (read from Git once: this is the failing path only)."""
    name = f"{commit}:{history.folder}/{path}"
    try:
        decode_blob(history, path, commit, history.repo.blobs([name]).get(name, b""))
    except FileError as exc:
        return exc
    return FileError("MA-FILE-ENCODING", _shown(history, path), "file is not valid UTF-8; not read", where=commit[:12])


def decode_blob(history: History, path: str, commit: str, data: bytes) -> str:
    """A managed file's bytes at ``commit`` (``path`` relative to the memory dir) as text;
    :class:`FileError` when they are not UTF-8 (:func:`decode_or_refuse`)."""
    return decode_or_refuse(data, _shown(history, path), commit[:12])


def decode_or_refuse(data: bytes, path: str, where: str) -> str:
    """``data``, the bytes of the managed file ``path`` (from the project root) at ``where``
    (a revision as given, a commit, "worktree"), as text (a BOM dropped); :class:`FileError`
    with the decoding problem's MA-FILE code and place when they are not UTF-8, never a
    text with replacement characters."""
    text, problems = files.decode(path, data)
    if text is None:
        problem = problems[-1]
        raise FileError(problem.code, path, problem.message, problem.line, problem.col, where)
    return text


def _shown(history: History, path: str) -> str:
    """A folder-relative path as the project root sees it (the memory dir, then the path)."""
    folder = history.folder[len(history.repo.prefix):] if history.repo.prefix else history.folder
    return f"{folder}/{path}"
