"""Did-you-mean hints for words people type: commands, options, choices, module names, IDs and
status values. A hint never changes an answer or an exit status; it only names the closest
known word when one is close."""

from __future__ import annotations

from typing import Iterable, List


def closest(word: str, candidates: Iterable[str], n: int = 1, cutoff: float = 0.6) -> List[str]:
    """The up to ``n`` candidates closest to ``word`` (difflib's ratio >= ``cutoff``, best
    first; case-insensitive, since a case slip is the commonest typo), or none."""
    import difflib  # only on an error or hint path

    by_fold = {}
    for candidate in candidates:
        by_fold.setdefault(str(candidate).casefold(), str(candidate))
    near = difflib.get_close_matches(word.casefold(), list(by_fold), n=n, cutoff=cutoff)
    return [by_fold[k] for k in near]


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the candidate closest to ``word``, or ``""``."""
    near = closest(word, candidates)
    return f"; did you mean {near[0]!r}?" if near else ""


def prefixed(prefix: str, candidates: Iterable[str], most: int = 5) -> List[str]:
    """Candidates that start with ``prefix`` (case-insensitive), sorted, at most ``most``: a
    truncated ID names the IDs it could be."""
    fold = prefix.casefold()
    return sorted(c for c in set(candidates) if c.casefold().startswith(fold) and c.casefold() != fold)[:most]
