"""The prebuilt pieces the grammar fuzzers assemble files from (tests/fuzz/strategies.py).

Every value a field can take is listed once here, plain and bent (an odd piece appended,
prepended or in its place), so that a strategy draws a whole line with one choice instead
of building it character by character. That keeps Hypothesis' own bookkeeping (one span per
draw) from being most of a run's time, while the files stay as varied: the odd pieces are
the ones that found or could find bugs (NUL, other scripts' digits, line breaks that
``str.splitlines`` honours, case-changing letters, combining marks, huge runs).

Plain values come first and fill about 5 in 6 of each pool, as the old per-draw bending did;
Hypothesis shrinks a choice towards index 0, so a minimal failing file keeps plain values
wherever the bent one is not needed.
"""

from __future__ import annotations

from itertools import product

ODD = ["", " ", "\t", "\x00", "\r", "\u00b2", "\u0667", "\ufeff", "\u2028", "—", "`", "#", "\\", "..", "/",
       "9" * 30, "x" * 300]
"""Pieces that bend a value: whitespace, NUL, a line break, digits from other scripts, separators, runs."""

NASTY = ODD + ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2029", "\x01", "\x7f", "\u0130", "\u00df",
               "\ufb01", "\u212a", "\u03a3", "\u0301", "\u200b", "\u202e", "\U0001f600", "\U0010fffd", "\uff11",
               "\u07c0", "\u0966", "## ", "- ", ": ", "```", "<!--", "-->", "**", "[x](y)", "\u00a0"]
"""Characters and snippets for free text: every line break Python's splitlines knows, letters
whose case mapping changes their length, astral and private-use code points, Markdown syntax."""

WORDS = ["", "x", "Use PostgreSQL for orders", "orders API", "library-x", "Checkout flow", "a — b", "a - b",
         "Ünïcödé", "日本語のタイトル", "עברית", "MC-DEC-20260101-0a1b2c3d", "Status: active", "Evidence:",
         "- repo:src/a.py", "`code`", "## Heading", "### sub", "# Title", "1. ordered", "> quote", "| a | b |",
         "   indented", "trailing   ", "x" * 300, "word " * 40]
"""Titles, prose and list items: ordinary, other scripts, and lines that look like syntax."""

KINDS = ["DEC", "CON", "DNU", "PREF", "AREA", "INBOX", "TOMB"]
DATES = ["20260101", "20261231", "20240229", "20200101", "20291231", "20260615",
         "20210229", "20261301", "20260100", "2026010", "202601011", "\u0662\u0660\u0662\u0666\u0660\u0661\u0660\u0661"]
TAILS = ["0a1b2c3d", "deadbeef", "00000000", "ffffffff", "12345678", "a0b1c2d3",
         "0A1B2C3D", "0a1b2c3", "0a1b2c3d9", "0a1b2c3g"]


def bent(values, bend=None) -> list:
    """``values`` plain (about 5 in 6 of the list, first) and each of ``bend`` (default: all of
    them) bent by one odd piece: appended, prepended, or in its place."""
    values = list(values)
    bend = values if bend is None else bend
    odd = [v + o for v in bend for o in ODD] + [o + v for v in bend for o in ODD] + ODD
    return values * max(1, 5 * len(odd) // len(values)) + odd


def ids(*prefixes: str) -> list:
    """IDs such as ``MC-DEC-20260101-0a1b2c3d``: real and impossible dates, valid and broken
    tails; a few of them bent (bending one ID tests what bending any would)."""
    plain = [f"{p}-{d}-{t}" for p, d, t in product(prefixes, DATES, TAILS)]
    return bent(plain, plain[::len(plain) // 6])


def field(name: str, values: list) -> list:
    """Lines ``Name: value`` for every value, the name sometimes lower-cased or with a trailing space."""
    return [f"{n}: {v}" for n in (name, name, name.lower(), name + " ") for v in values]


BREAKS = ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
"""Characters other than ``\n`` that ``str.splitlines`` ends a line at."""

LINE_STARTS = ["```", "```memory-custodian-body-v1", "~~~", "<!-- c", "<!-- c -->", "-->", "    code", "\tcode",
               "## MC-DEC-20260101-0a1b2c3d — x", "# t", "- b", "Status: active", "Evidence:", ""]
"""What a line that a stray break starts could begin with: fences, comments, code, headings, fields."""


def text_pool() -> list:
    """Free-text values: the words, the nasty snippets, each word with a nasty snippet in it, and
    words cut by a line break other than ``\n`` with syntax after it (a fence, a comment, a heading)."""
    mixed = [w + n for w in WORDS[:12] for n in NASTY] + [n + w for w in WORDS[:6] for n in NASTY]
    broken = [w + b + s for w in WORDS[:3] for b in BREAKS for s in LINE_STARTS]
    return WORDS * 8 + LINE_STARTS + NASTY + mixed + broken


ENTRY_IDS = ids(*(f"MC-{k}" for k in KINDS))
SUBJECT_IDS = ids("MC-SUBJ")
RECORD_IDS = ids("MC-REC")
PATHS = bent(["api/orders.py", "src/a.py", "docs/x.md", "web", "a/../b", "../x", "/abs", "C:/x", "a//b", "a\\b",
              "a b"])
_SOURCES = [f"{kind}:{path}{rev}" for kind, path, rev in product(["repo", "doc", "test"], PATHS,
                                                                  ["", "", "", "@abc123", "@", "@x y"])]
_OTHER_EVIDENCE = ["user-confirmed", "issue:#42", "pr:#7", "issue:#", "issue:#\u0661", "url:https://x", "bogus",
                   "repo:", "repo: ", "User-Confirmed", "user-confirmed x", "repo:@abc123", "doc:@", "test:\x1c"]
EVIDENCE = _SOURCES + _OTHER_EVIDENCE * (len(_SOURCES) // len(_OTHER_EVIDENCE))
"""Evidence items, half of them source paths (safe, escaping, absolute, odd) with revisions,
half the other kinds (confirmations, trackers, malformed)."""
