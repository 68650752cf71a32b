"""Text a reviewer cannot see (analyzer/project/extract/hidden.py): each kind, its column, runs, the
emoji joiner left alone, and the escaped form read's pack shows."""

from __future__ import annotations

import pytest

from analyzer.project.extract.hidden import escape, scan_text


@pytest.mark.parametrize("text,found", [
    ("a\u202eb", [(1, 2, "bidi-control", 1, "U+202E")]),
    ("x\u2066\u2069y", [(1, 2, "bidi-control", 2, "U+2066, U+2069")]),
    ("ok\nsay \U000e0068\U000e0069 now", [(2, 5, "tag-character", 2, "U+E0068, U+E0069")]),
    ("zero\u200bwidth", [(1, 5, "invisible-format", 1, "U+200B")]),
    ("join\u2060er and soft\u00adhyphen", [(1, 5, "invisible-format", 1, "U+2060"),
                                           (1, 17, "invisible-format", 1, "U+00AD")]),
    ("mid\ufeffbom", [(1, 4, "invisible-format", 1, "U+FEFF")]),
    # one run per kind: a bidi override followed by a zero-width space is two findings
    ("a\u202e\u200bb", [(1, 2, "bidi-control", 1, "U+202E"), (1, 3, "invisible-format", 1, "U+200B")]),
])
def test_each_kind_fires_with_its_column(text, found):
    assert list(scan_text(text)) == found


@pytest.mark.parametrize("text", [
    "plain text, accents é ü and CJK 漢字",
    "family \U0001F468\u200d\U0001F469\u200d\U0001F467 emoji",  # a zero-width joiner inside an emoji sequence
    "heart \u2764\ufe0f\u200d\U0001F525 on fire",
    "\ufefffile starting with a byte order mark",
])
def test_visible_text_is_quiet(text):
    assert list(scan_text(text)) == []


def test_a_lone_joiner_is_hidden_text():
    assert list(scan_text("a\u200db")) == [(1, 2, "invisible-format", 1, "U+200D")]


def test_escape_shows_what_a_model_reads():
    assert escape("a\u202eb \U000e0041 c\u200bd") == "a\\u202eb \\U000e0041 c\\u200bd"
    assert escape("plain \U0001F468\u200d\U0001F469") == "plain \U0001F468\u200d\U0001F469"


def test_the_candidate_class_holds_every_format_character():
    """hidden._FORMAT_RANGES (the quick dismissal) covers every Cf character unicodedata
    knows, so no format character escapes the scan by being left out of the class."""
    import sys
    import unicodedata

    from analyzer.project.extract.hidden import _CANDIDATE

    missing = [f"U+{c:04X}" for c in range(sys.maxunicode + 1)
               if unicodedata.category(chr(c)) == "Cf" and not _CANDIDATE.match(chr(c))]
    assert missing == []
