"""The security and privacy scan of spec §9.8.6: which lines of a text match which pattern,
and each line's redacted preview.

The twelve patterns are data (:data:`PATTERNS`, in the spec's table order); what a kind
means (its category and severity, whether it is a finding at all) is decided by
rules/check/scan.dl, never here. This module only answers "which kinds match line n, and what
does line n look like with every match hidden".

No matched text leaves this module: :func:`scan_text` yields the line number, the kind and
the redacted preview only. The preview is §9.8.6's: every match of all twelve patterns on
the line, spans merged when they overlap or touch, each merged span replaced by
``[redacted]``, surrounding whitespace stripped, the first 120 characters kept.

Linear time (docs/decisions.md, "Secret scan in linear time"): Python's ``re`` backtracks
and retries at every start position, so three of the reference's patterns take time
quadratic in the length of a hostile line (``credential-url`` and ``personal-email`` rescan a
long run of their first class from every word boundary in it; ``dotenv-credential`` tries
every split of a long upper-case name). Those three are found by :data:`FINDERS`: the same
regular expression, tried only at the one start position per candidate that can succeed
(tests/extract/test_secrets.py checks they find exactly the spans ``finditer`` finds). As a
backstop, a line longer than :data:`MAX_LINE` characters is not matched but reported as the
kind ``unscanned-line`` (an ERROR by the rules): a line that could not be scanned is never
passed as clean.

The expressions are compiled on first use (:func:`_compile`), not at import: ``check``
imports this module through its scans, and a check answered from its result cache matches
nothing (its result was redacted before it was stored); compiling them was about 11 ms of
that run's ~140 ms.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator, List, Optional, Tuple

#: The kind of a line too long to be matched (see the module docstring).
UNSCANNED = "unscanned-line"

#: Lines longer than this many characters are not matched (a backstop: every pattern is
#: matched in linear time, docs/decisions.md). Hand-written Markdown lines are far shorter,
#: even a paragraph kept on one line; a line this long is machine-made.
MAX_LINE = 65536

PREVIEW = 120  # characters of a preview (§9.8.6)
REDACTED = "[redacted]"

Span = Tuple[int, int]
#: characters whose case folding re.IGNORECASE treats specially (see _FOLDED)
_SPECIAL_FOLDS = ("\u017f", "\u212a", "\u0130", "\u0131")
_PHONE = "phone-number"
#: the separators ``phone-number``'s ``[\\s().-]`` allows within a line (``\\s`` less the line
#: breaks of ``splitlines``), as a character class body
_PHONE_SEPARATORS = "().\\-\t\x1f \xa0\u1680\u2000-\u200a\u202f\u205f\u3000"


#: Per kind of :data:`PATTERNS`, the literals its pattern needs, as plain text: a line with none
#: of them is never matched against that pattern (``phone-number`` has none: it needs ten
#: digits, :data:`_PHONE_GATE`). Matched in the pattern's own case rule (case-insensitively for
#: a pattern compiled with ``re.I``). The quick gates (:data:`_TRIGGER`, :data:`_TRIGGER_I`,
#: :func:`_secret_trigger`, :data:`_TRIGGER_WORDS`) and the per-kind searches of
#: :func:`scan_text` are all derived from this one table.
LITERALS = {
    "private-key": ("PRIVATE KEY-----",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "aws-access-key": ("AKIA", "ASIA"),
    "openai-key": ("sk-",),
    "anthropic-key": ("sk-ant-",),
    "bearer-token": ("bearer",),
    "credential-assignment": ("password", "secret", "api_key"),
    "dotenv-credential": ("TOKEN", "KEY", "SECRET", "PASSWORD"),
    "credential-url": ("://",),
    "machine-path": ("/Users/", "/home/", "/Volumes/", "C:\\Users\\"),
    "personal-email": ("@",),
}
#: what a ``phone-number`` match needs: ten digits
_PHONE_GATE = r"\d(?:\D*\d){9}"

#: The kinds of :data:`PATTERNS` that are secrets (rules/check/scan.dl's "security"
#: category; tests/extract/test_secrets.py keeps the two in step). Every check output hides
#: their matches, whatever finding prints a line (:func:`hide_secrets`).
SECRET_KINDS = ("private-key", "github-token", "aws-access-key", "openai-key", "anthropic-key", "bearer-token",
                "credential-assignment", "dotenv-credential", "credential-url")


def _shortest(words) -> Tuple[str, ...]:
    """``words`` without those that hold another of them (a text holding ``api_key`` holds
    ``key``), in their order."""
    words = tuple(dict.fromkeys(words))
    return tuple(w for w in words if not any(other != w and other in w for other in words))


#: the literals of the secret kinds in lower case, for ASCII text (where re.I is plain case
#: folding): a text holding none of them holds no secret (:func:`_may_hold_secret`)
_TRIGGER_WORDS = _shortest(word.lower() for kind in SECRET_KINDS for word in LITERALS[kind])

_compiled = False  # whether :func:`_compile` has run


def _compile() -> None:
    """Compile the module's regular expressions into its globals, once (module docstring);
    every function that matches calls it first."""
    global _compiled
    if not _compiled:
        globals().update(_expressions())
        _compiled = True


def _expressions() -> dict:
    """The module's compiled expressions by name: every name this function binds becomes a
    global of the module (:func:`_compile`), so that each is named once, here."""
    #: (kind, regular expression) in the spec's table order (§9.8.6); the order is the order of
    #: the findings on one line. Python ``re`` semantics: Unicode ``\w``, ``\s``, ``\b``.
    PATTERNS = (
        ("private-key", re.compile(r"-----BEGIN (RSA |EC |OPENSSH )?PRIVATE KEY-----")),
        ("github-token", re.compile(r"\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b")),
        ("aws-access-key", re.compile(r"\b(AKIA|ASIA)[A-Z0-9]{16}\b")),
        ("openai-key", re.compile(r"\bsk-(proj-)?[A-Za-z0-9_-]{20,}\b")),
        ("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}\b")),
        ("bearer-token", re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]{16,}={0,2}\b", re.I)),
        ("credential-assignment", re.compile(r"\b(password|secret|api_key)\s*=\s*[^\s#]+", re.I)),
        ("dotenv-credential", re.compile(r"^\s*[A-Z][A-Z0-9_]*(TOKEN|KEY|SECRET|PASSWORD)[A-Z0-9_]*\s*=\s*\S+")),
        ("credential-url", re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@", re.I)),
        ("machine-path", re.compile(r"/Users/[^/\s]+/|/home/[^/\s]+/|/Volumes/[^/\s]+/|C:\\Users\\[^\\\s]+\\")),
        # the spec writes the exception as `example.com\b` (an unescaped dot): kept as written
        ("personal-email", re.compile(r"\b[A-Z0-9._%+-]+@(?!example.com\b)[A-Z0-9.-]+\.[A-Z]{2,}\b", re.I)),
        ("phone-number", re.compile(r"(?<!\w)(?:\+?\d[\s().-]*){10,15}(?!\w)")),
    )

    _REGEX = dict(PATTERNS)

    _DOTENV_NAME = re.compile(r"\s*([A-Z][A-Z0-9_]*)")
    _DOTENV_TAIL = re.compile(r"\s*=\s*\S+")

    #: kind -> a function yielding the spans ``finditer`` would yield, in linear time, for the
    #: patterns ``re`` matches in quadratic time on hostile lines (module docstring)
    FINDERS = {
        "credential-url": _anchored(_REGEX["credential-url"], re.compile(r"[a-z0-9+.-]+", re.I), "://",
                                    re.compile(r"\b[a-z]", re.I)),
        "personal-email": _anchored(_REGEX["personal-email"], re.compile(r"[A-Z0-9._%+-]+", re.I), "@",
                                    re.compile(r"\b[A-Z0-9._%+-]", re.I)),
        "dotenv-credential": _dotenv,
    }

    #: Per kind, its literals (:data:`LITERALS`) each compiled alone, in the pattern's case
    #: rule: searched over a whole file at C speed (no literal holds a line break, so no hit
    #: spans two lines). Each literal is a regular expression of its own: ``re`` searches a
    #: plain literal with a fast string search, an alternation of literals character by
    #: character (``password|secret|api_key`` over a 1,000-entry repository's texts: 10 ms as
    #: one, under 1 ms as three); literals of one kind that share their first two characters
    #: are one expression, whose common prefix ``re`` searches fast (:func:`_searches`:
    #: ``gh(?:p_|o_|u_|s_|r_)`` 0.2 ms, the five literals 1.1 ms). Only the lines
    #: hit matter, and overlapping hits lie on one line.
    folds = {kind for kind, pattern in PATTERNS if pattern.flags & re.I}  # the case-insensitive kinds

    def folded(kind: str, word: str) -> bool:  # a literal matched case-insensitively (one with letters)
        return kind in folds and word.lower() != word.upper()

    _KIND_TRIGGERS = {kind: tuple(re.compile("(?i)" + re.escape(word)) for word in words if folded(kind, word))
                      + _searches([word for word in words if not folded(kind, word)])
                      for kind, words in LITERALS.items()}
    #: the case-insensitive literals searched in the lower-cased text (the same offsets), unless
    #: the text holds a character whose case folding re.IGNORECASE treats specially
    _FOLDED = {kind: tuple(re.compile(re.escape(word.lower())) for word in words)
               for kind, words in LITERALS.items() if all(folded(kind, word) for word in words)}
    #: the words of the kinds of _FOLDED in lower case, as UTF-8: looked for in the text's bytes
    #: with their ASCII letters lowered before the text is lowered (with no special fold in the
    #: text, only ASCII characters lower to ASCII ones: the same words are found), as most
    #: texts hold none of them and lowering a text beyond ASCII took ~1.7 ms per 1,000 entries
    _FOLDED_WORDS = {kind: tuple(word.lower().encode() for word in LITERALS[kind]) for kind in _FOLDED}

    # A quick necessary condition: a line on which neither of these finds anything cannot match
    # any pattern (every literal of LITERALS in its pattern's case rule; a phone number needs
    # ten digits), so most lines are dismissed by two C-level scans.
    _TRIGGER = re.compile("|".join([re.escape(word) for kind, words in LITERALS.items() for word in words
                                    if not folded(kind, word)] + [_PHONE_GATE]))
    _TRIGGER_I = re.compile("|".join(re.escape(word) for kind, words in LITERALS.items() for word in words
                                     if folded(kind, word)), re.I)
    del folds, folded  # helpers, not globals of the module

    #: ``phone-number`` searched over a whole text: its pattern with the line breaks of
    #: ``splitlines`` taken out of its separators (``\\s`` less the breaks: the whitespace a line
    #: can hold), so a match lies within one line, and the lookarounds see a break (not a word
    #: character) where a line starts or ends. A line holds a match of it iff the pattern matches
    #: the line: one scan of the text instead of a search of every line with ten digits (most
    #: lines of a memory file with dated IDs). Written to start with its first character's
    #: class, ``[+\\d]``, so that ``re`` skips every other character in a C loop (with the
    #: lookbehind first it started a match attempt at every position: 15 of a 1,000-entry
    #: repository's 27 ms of secret scanning); the same matches, in the same backtracking
    #: order: the first repetition's ``\\+?\\d`` is that character (a ``+`` then needs a
    #: digit after it), the lookbehind (width 2) still looks at the character before it, and
    #: the other 9 to 14 repetitions are the pattern's own (tests/extract/test_scan_gates.py
    #: compares its spans with the verbatim pattern's).
    _PHONE_IN_TEXT = re.compile(f"[+\\d](?<!\\w[+\\d])(?:(?<=\\+)\\d|(?<!\\+))[{_PHONE_SEPARATORS}]*"
                                f"(?:\\+?\\d[{_PHONE_SEPARATORS}]*){{9,14}}(?!\\w)")

    # :func:`_may_hold_phone`'s expressions, over a text's classes (:data:`_PHONE_CLASSES`)
    _PHONE_EXOTIC = re.compile(f"\\d|[{_PHONE_SEPARATORS}]")  # searched in the non-ASCII characters only
    # an ID's date (exactly 8 digits, first in its run) joined to 8 or more digits, to fewer
    # followed by a letter, or to nothing: in no match (see _may_hold_phone)
    _ID_DATE = re.compile(rb"s00000000(?=s(?:0{8}|0{1,7}w|[wo]))(?<=[wo]s00000000)")
    # exactly 8 digits first and last in their run (the date before them blanked, or a letter)
    _ID_TAIL = re.compile(rb"s00000000(?!s*0)(?<=[wo]s00000000)")
    return dict(locals())


#: bytes -> class for :func:`_may_hold_phone`: an ASCII digit ``0``; a separator ``phone-number``
#: allows within a line, or ``+``, ``s``; an ASCII word character ``w``; any other byte ``o``
#: (line breaks, punctuation, every byte of a non-ASCII character)
_PHONE_CLASSES = b"".join(b"o" if b > 127 else b"0" if chr(b).isdigit() else b"s" if chr(b) in "\t\x1f ().-+"
                         else b"w" if chr(b).isalnum() or chr(b) == "_" else b"o" for b in range(256))
_ASCII = bytes(range(128))


def _may_hold_phone(text: str, data: Optional[bytes] = None) -> bool:
    """Whether ``text`` may hold a ``phone-number`` match (False: it holds none), decided in C
    over its bytes: the whole-text search costs a match attempt per digit, and most digits
    of a memory file are its IDs' (``MC-DEC-20261130-0000002c``), about half of a 1,000-entry
    repository's secret scan (tests/extract/test_scan_gates.py: never False for a text the
    pattern matches).

    A match is ten to fifteen digits joined by separators or ``+`` only, made of whole
    groups of adjacent digits (it cannot start or end between two digits, which are word
    characters), so the text's classes (:data:`_PHONE_CLASSES`) must hold ten ``0`` with
    only ``s`` between them (ten adjacent ``0`` once the ``s`` are deleted). Before that
    test, the digits of the protocol's IDs are turned into ``w``: a date of exactly 8 digits that begins its run (a letter or other
    character, then one separator, before it) is in no match when the run goes on with 8
    or more digits (16 or more), with 1 to 7 followed by a letter (a match cannot end
    before a word character) or with no digit (8 alone); and exactly 8 digits that both
    begin and end their run (the date before them turned so) are in no match either. A
    digit or separator beyond ASCII, which the bytes do not show, answers True. ``data``:
    the text as UTF-8 (with surrogates), when the caller has it."""
    data = text.encode("utf-8", "surrogatepass") if data is None else data
    if not text.isascii() and _PHONE_EXOTIC.search(data.translate(None, _ASCII).decode("utf-8", "surrogatepass")):
        return True
    classes = data.translate(_PHONE_CLASSES)
    blank = b"s" + b"w" * 8
    # ten digits with separators only between them: ten adjacent once the separators are deleted
    return b"0" * 10 in _ID_TAIL.sub(blank, _ID_DATE.sub(blank, classes)).translate(None, b"s")


def _searches(words) -> Tuple["re.Pattern[str]", ...]:
    """An expression per literal of ``words`` (matched as written), except that literals
    sharing their first two characters are one: those characters, then the alternation of
    the rests."""
    groups: dict = {}
    for word in words:
        groups.setdefault(word[:2], []).append(word)
    found = []
    for head, group in groups.items():
        if len(group) > 1 and len(head) == 2:
            found.append(re.compile(re.escape(head) + "(?:" + "|".join(re.escape(w[2:]) for w in group) + ")"))
        else:
            found.extend(re.compile(re.escape(w)) for w in group)
    return tuple(found)


def _runs_before(line: str, run: "re.Pattern[str]", follow: str, pos: int, start: "re.Pattern[str]"):
    """For each maximal run of ``run``'s class directly followed by ``follow``, the leftmost
    position in the run at or after ``pos`` where ``start`` matches (None when there is none),
    and where ``follow`` begins."""
    for found in run.finditer(line, pos):
        r, a = found.span()
        if not line.startswith(follow, a):
            continue
        first = start.search(line, max(r, pos), a)
        yield (first.start() if first is not None and first.start() < a else None), a


def _anchored(regex: "re.Pattern[str]", run: "re.Pattern[str]", follow: str, start: "re.Pattern[str]"):
    """A linear finder for a pattern ``<start><run class>*<follow><rest>`` whose run class
    excludes ``follow``'s first character: from any start in a run, the run is consumed up to
    ``follow`` and the rest is the same, so the leftmost start of each run decides for the
    whole run (``re`` would try them all, rescanning the run from each)."""

    def spans(line: str) -> Iterator[Span]:
        if follow not in line:
            return
        pos = 0
        while True:
            for begin, _ in _runs_before(line, run, follow, pos, start):
                if begin is None:
                    continue
                found = regex.match(line, begin)
                if found is not None:
                    yield found.span()
                    pos = max(found.end(), found.start() + 1)
                    break
            else:
                return

    return spans


_DOTENV_KEYWORDS = ("TOKEN", "KEY", "SECRET", "PASSWORD")


def _dotenv(line: str) -> Iterator[Span]:
    """``dotenv-credential`` in linear time. The pattern's name part
    ``[A-Z][A-Z0-9_]*(TOKEN|…)[A-Z0-9_]*`` can only end where the name's run of
    ``[A-Z0-9_]`` ends (what follows it, ``\\s*=``, is outside that class), so the line
    matches iff a keyword occurs in the run after its first letter and ``\\s*=\\s*\\S+``
    follows the run; the match spans from the line start to the end of that tail."""
    name = _DOTENV_NAME.match(line)
    if name is None or not any(word in name.group(1)[1:] for word in _DOTENV_KEYWORDS):
        return
    tail = _DOTENV_TAIL.match(line, name.end())
    if tail is not None:
        yield 0, tail.end()


def spans(kind: str, line: str) -> Iterator[Span]:
    """The spans of the non-overlapping matches of one pattern on a line, left to right."""
    _compile()
    finder = FINDERS.get(kind)
    if finder is not None:
        return finder(line)
    return (m.span() for m in _REGEX[kind].finditer(line))


def redact(line: str) -> str:
    """The §9.8.6 preview of a line: every match of every pattern hidden, stripped, 120 chars."""
    _compile()
    found = sorted(span for kind, _ in PATTERNS for span in spans(kind, line))
    return _replace(line, found).strip()[:PREVIEW]


def scan_line(line: str) -> List[str]:
    """The kinds that match a line, in table order (one each, however many matches), or
    ``[UNSCANNED]`` for a line over :data:`MAX_LINE` characters."""
    if len(line) > MAX_LINE:
        return [UNSCANNED]
    _compile()
    if not _TRIGGER.search(line) and not _TRIGGER_I.search(line):
        return []
    found = []
    for kind, pattern in PATTERNS:
        finder = FINDERS.get(kind)
        if finder is None:
            if pattern.search(line):
                found.append(kind)
        elif next(iter(finder(line)), None) is not None:
            found.append(kind)
    return found


def scan_text(text: str, data: Optional[bytes] = None) -> Iterator[Tuple[int, str, str]]:
    """``(line, kind, preview)`` of every match of a file's text, in scan order (line, then
    table order); lines are Python ``splitlines`` lines (§3), numbered from 1, raw (fenced,
    commented and indented lines count). An unscanned line's preview names its length only.
    ``data``: the text as UTF-8 (with surrogates), when the caller has it."""
    from bisect import bisect_right
    from itertools import accumulate

    _compile()
    if not text:
        return
    candidates: dict = {}  # 0-based line -> kinds whose literal it holds
    data = text.encode("utf-8", "surrogatepass") if data is None else data
    special = any(c in text for c in _SPECIAL_FOLDS)  # then the folded kinds' words are matched with re.I
    lowered = data_lowered = None  # made when needed
    hits = []  # (offset, kind)
    for kind, triggers in _KIND_TRIGGERS.items():
        searched = text
        if not special and kind in _FOLDED:
            data_lowered = data.lower() if data_lowered is None else data_lowered
            if not any(word in data_lowered for word in _FOLDED_WORDS[kind]):
                continue
            lowered = text.lower() if lowered is None else lowered
            triggers, searched = _FOLDED[kind], lowered
        for trigger in triggers:
            hits.extend((hit.start(), kind) for hit in trigger.finditer(searched))
    if _may_hold_phone(text, data):
        hits.extend((hit.start(), _PHONE) for hit in _PHONE_IN_TEXT.finditer(text))  # matches, not candidates
    if not hits and len(text) <= MAX_LINE:
        return  # no literal, no phone number, no line too long to scan: nothing to look at
    # the lines with their line breaks (whichever breaks they are), and where each starts (and
    # the text's end); a line is split off its break only when it is looked at
    kept = text.splitlines(True)
    if hits:
        starts = list(accumulate(map(len, kept), initial=0))
        for offset, kind in hits:
            candidates.setdefault(bisect_right(starts, offset) - 1, set()).add(kind)
    if len(text) > MAX_LINE:  # else no line can be longer
        for index, line in enumerate(kept):
            if len(line) > MAX_LINE and len(_unbroken(line)) > MAX_LINE:
                candidates[index] = {UNSCANNED}
    for index in sorted(candidates):
        line = _unbroken(kept[index])
        if UNSCANNED in candidates[index]:
            yield index + 1, UNSCANNED, f"[line of {len(line)} characters not scanned]"
            continue
        kinds = [kind for kind, pattern in PATTERNS if kind in candidates[index]
                 and (kind == _PHONE or (pattern.search(line) if kind not in FINDERS
                                         else next(iter(FINDERS[kind](line)), None)))]
        if kinds:
            preview = redact(line)
            for kind in kinds:
                yield index + 1, kind, preview


def _unbroken(line: str) -> str:
    """A line of ``splitlines(True)`` without its line break (what ``splitlines()`` gives)."""
    return line.splitlines()[0]


@lru_cache(maxsize=None)
def _secret_trigger() -> "re.Pattern[str]":
    """A necessary condition for a match of any of SECRET_KINDS: one of their literals
    (:data:`_TRIGGER_WORDS`), in any case; compiled alone, since a text that does not match it
    needs none of the other expressions (a cold read hides secrets in its output's non-ASCII
    texts; compiling them all for it was ~7 ms of that run)."""
    return re.compile("|".join(map(re.escape, _TRIGGER_WORDS)), re.I)


def _may_hold_secret(text: str) -> bool:
    # _secret_trigger().search(text), without the regex for ASCII text: its case-insensitive
    # alternation cost ~14 us a line, most of the redaction of 30,000 findings that hold no secret
    if text.isascii():
        lowered = text.lower()
        return any(word in lowered for word in _TRIGGER_WORDS)
    return _secret_trigger().search(text) is not None


def hide_secrets(text: str) -> str:
    """``text`` with every match of a secret pattern replaced by ``[redacted]`` (line by line,
    spans merged as in a preview; nothing stripped or cut): what a finding's message, a
    proof's fact or any other output line becomes before it is printed."""
    if not _may_hold_secret(text):
        return text
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
        end = line[len(body):]
        if len(body) > MAX_LINE:
            out.append(REDACTED + end)  # too long to match: hidden whole (fail closed)
            continue
        found = sorted(span for kind in SECRET_KINDS for span in spans(kind, body))
        out.append(_replace(body, found) + end)
    return "".join(out)


def _replace(line: str, found: List[Span]) -> str:
    """``line`` with the merged spans replaced by ``[redacted]`` (spans sorted)."""
    if not found:
        return line
    merged: List[List[int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1]:  # overlapping or touching
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, at = [], 0
    for start, end in merged:
        out.append(line[at:start])
        out.append(REDACTED)
        at = end
    out.append(line[at:])
    return "".join(out)


def __getattr__(name: str):
    """``secrets.PATTERNS`` (and the other compiled names, :func:`_expressions`) from outside:
    compiled first. Python's own probes (dunder names) compile nothing."""
    if not name.startswith("__") and not _compiled:
        _compile()
        if name in globals():
            return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
