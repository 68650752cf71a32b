"""A history command's :class:`~analyzer.contract.results.Failure` from the Git step that failed.

Kept apart from the commands so that diff, restore, readiness and the autonomy check name a
failure the same way: a managed file that cannot be used at its place with its MA-FILE-*
code, any other Git failure as MA-GIT with no file at fault (the command line).
"""

from __future__ import annotations

from analyzer.contract.results import Failure
from analyzer.core.span import Span
from analyzer.history.git import FileError


def git_failure(exc: Exception) -> Failure:
    """The failure of a history command whose Git step (or its time window) raised ``exc``
    (exit 2)."""
    if isinstance(exc, FileError):
        return Failure(exc.code, exc.detail, Span(exc.path, exc.line, exc.col))
    return Failure("MA-GIT", str(exc))
