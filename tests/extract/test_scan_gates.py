"""The scans' fast gates agree with what they stand for: the whole-text search of
``phone-number`` (analyzer/project/extract/secrets.py ``_PHONE_IN_TEXT``, rewritten to start
with its first character's class so that ``re`` skips the other characters in C) finds
exactly the spans the verbatim pattern (its separators less the line breaks) finds, in the
same order; the hidden-text scan's gate (analyzer/project/extract/hidden.py ``_may_hide``)
answers what a set lookup of every character answers.

Each property is checked twice over texts joined from the same pieces: under Hypothesis (600
examples, as tests/extract/test_secret_trigger.py checks its gate, new texts every run and a
shrunk counterexample), and over a fixed sweep of tens of thousands of texts drawn with
``random`` (:func:`_sweep`, about 10 microseconds a text against Hypothesis's 1.5 ms). The
sweep is what makes the counts enough: on eleven mutations of the three gates (a lookbehind,
the repetition bound, a separator, a class of the gate's bytes, the ID blanking, the
non-ASCII part), each sweep failed with its seed here and with each of five others, where
Hypothesis alone at the earlier 1,500 and 3,000 examples missed some of them in up to four of
five runs (docs/performance.md, "The test suite", branch suite6).
"""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.project.extract import hidden, secrets

# the reference pattern as written, with ``\s`` less the line breaks of ``splitlines``
_VERBATIM = re.compile("(?<!\\w)(?:\\+?\\d[" + secrets._PHONE_SEPARATORS + "]*){10,15}(?!\\w)")

_PIECES = st.sampled_from(["123", "4567", "89", "0", "9", "+", "+1", "++", "+ 1", "x+", "١٢٣", "١", " ", "  ",
                           "-", "--", "(", ")", ".", "\t", "\u00a0", "\u3000", "\u2007", "\x1f", "a", "é", "_",
                           "\n", "\r\n", "\u2028", "@"])


def _spans(pattern, text):
    return [m.span() for m in pattern.finditer(text)]


def _sweep(strategy, size: int, count: int, seed: int, other=None):
    """``count`` texts of up to ``size`` pieces of ``strategy`` (a ``sampled_from``), each
    piece, when ``other`` is given, half the time ``other(rnd)`` instead: the same texts every run."""
    rnd, pieces = random.Random(seed), list(strategy.elements)
    for _ in range(count):
        yield "".join(rnd.choice(pieces) if other is None or rnd.random() < 0.5 else other(rnd)
                      for _ in range(rnd.randint(0, size)))


@settings(max_examples=600, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_the_search_finds_what_the_verbatim_pattern_finds(text):
    secrets._compile()
    assert _spans(secrets._PHONE_IN_TEXT, text) == _spans(_VERBATIM, text)


def test_the_search_finds_what_the_verbatim_pattern_finds_in_a_sweep():
    secrets._compile()
    differ = [text for text in _sweep(_PIECES, 40, 20_000, 25)
              if _spans(secrets._PHONE_IN_TEXT, text) != _spans(_VERBATIM, text)]
    assert differ == []


def test_edges():
    """A plus sign needs a digit after it, the character before the first one is looked at,
    and ten digits are needed after a plus sign as after anything else."""
    secrets._compile()
    for text in ["+ 123456789", "+ 1234567890", "x1234567890", "x+1234567890", "+1234567890", "1234567890",
                 "++1234567890", "1234567890a", "12345678901234567", "1234567890-12345678", "(555) 123-4567 8",
                 "a +1 (555) 123-4567", "١٢٣١٢٣١٢٣١"]:
        assert _spans(secrets._PHONE_IN_TEXT, text) == _spans(_VERBATIM, text), text


# digits in the shapes of memory files (IDs' dates and hex parts, dates, numbers) and around them
_ID_PIECES = st.sampled_from(["MC-DEC-", "20261130", "00000015", "0000002c", "2c000000", "1234567", "12345678",
                              "123456789", "-", " ", "+", "(", ")", ".", "\t", "\n", " \u2014 ", "/", ",", "a", "é",
                              "_", "١", "\u00a0", "\u2007", "\udc80", "2026-11-30", "\x1f", "\x0b", "\u2028"])


@settings(max_examples=600, deadline=None)
@given(st.lists(_ID_PIECES | _PIECES, max_size=30).map("".join))
def test_the_phone_gate_passes_every_text_the_pattern_matches(text):
    """``_may_hold_phone`` (the classes of a text's bytes, its IDs' digits turned into letters)
    is False only for a text the pattern does not match."""
    secrets._compile()
    if _VERBATIM.search(text):
        assert secrets._may_hold_phone(text)


def test_the_phone_gate_passes_every_text_the_pattern_matches_in_a_sweep():
    secrets._compile()
    pieces = st.sampled_from(list(_ID_PIECES.elements) + list(_PIECES.elements))
    texts = list(_sweep(pieces, 30, 50_000, 25))
    matched = [text for text in texts if _VERBATIM.search(text)]
    assert len(matched) > len(texts) // 10  # the sweep reaches the property's premise often
    assert [text for text in matched if not secrets._may_hold_phone(text)] == []


def test_phone_gate_edges():
    """Dates joined to fewer than 8 digits and a non-word character after them are numbers the
    pattern matches; so are the digits before an ID's date; IDs themselves are not candidates."""
    secrets._compile()
    for text in ["MC-DEC-20261130-12/", "MC-DEC-20261130-12 ", "MC-DEC-20261130-1234567.", "12-20261130-00000015",
                 "MC-DEC-20261130-00000015 12", "MC-DEC-20261130-00000015-12", "MC-DEC-20261130+00",
                 "x 20261130\u00a012", "x 20261130-١٢"]:
        assert _VERBATIM.search(text) and secrets._may_hold_phone(text), text
    ids = "".join(f"## MC-DEC-20261130-{n:08x} \u2014 Entry {n}\nSubject: MC-SUBJ-20261130-{n:08x}\n"
                  f"Date: 2026-11-30\n" for n in range(300))
    assert not _VERBATIM.search(ids) and not secrets._may_hold_phone(ids)


_HIDDEN_PIECES = st.sampled_from(["a", " ", "\n", "\u2014", "é", "\u00ad", "\u200b", "\u200d", "\u202e", "\u2066",
                                  "\ufeff", "\U000e0041", "\U0001f600", "\udc80", "\ud800", "\u0600", "\x7f", "\x00"])


@settings(max_examples=600, deadline=None)
@given(st.lists(_HIDDEN_PIECES | st.characters(), max_size=20).map("".join))
def test_the_hidden_text_gate_is_a_set_lookup_per_character(text):
    """The gate looks at the non-ASCII characters only (through UTF-8, lone surrogates
    included): it answers what a lookup of every character answers."""
    assert hidden._may_hide(text) == (not hidden._CANDIDATES.isdisjoint(text))


def test_the_hidden_text_gate_is_a_set_lookup_per_character_in_a_sweep():
    texts = list(_sweep(_HIDDEN_PIECES, 20, 20_000, 25, lambda rnd: chr(rnd.randrange(0x110000))))
    assert sum(not hidden._CANDIDATES.isdisjoint(text) for text in texts) > len(texts) // 10
    assert [text for text in texts if hidden._may_hide(text) != (not hidden._CANDIDATES.isdisjoint(text))] == []


def test_each_literal_is_searched_for_its_kind():
    """The whole-text triggers of a kind (literals sharing two first characters searched as
    one expression) find every literal of the kind, each where it starts, and nothing else."""
    secrets._compile()
    for kind, words in secrets.LITERALS.items():
        text = " ".join(words) + " " + " ".join(w[:-1] + "\u00b7" for w in words if len(w) > 1)
        starts, at = [], 0
        for word in words:
            starts.append(at)
            at += len(word) + 1
        found = sorted(m.start() for trigger in secrets._KIND_TRIGGERS[kind] for m in trigger.finditer(text))
        assert found == starts, kind
