"""analyzer/history/git.py's unit_heading_ids (a literal-first search, then a look at the
line start) finds exactly the IDs the line-start pattern UNIT_ID_HEADING finds."""

from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.history.git import UNIT_ID_HEADING, unit_heading_ids

PIECES = ["\n", "\r\n", " ", "   ", "    ", "\t", "##", "#", "## ", "##\t", "x", "MC-DEC-20260101-0000000a",
          "mc-con-20260101-ABCDEF01", "MC-ſ-20260101-0000000b", "MC-K-20260101-0000000c", "0", "-", "—"]


def reference(text):
    return [found.casefold() for found in UNIT_ID_HEADING.findall(text)]


def test_the_heading_forms():
    text = ("## MC-DEC-20260101-0000000a — A\n   ## mc-con-20260101-0000000B\n    ## MC-DEC-20260101-0000000c\n"
            "\t## MC-DEC-20260101-0000000d\nx ## MC-DEC-20260101-0000000e\n##\tMC-DEC-20260101-0000000f1\n"
            "## ## MC-DEC-20260101-00000010\n##  MC-DEC-20260101-00000011")
    assert unit_heading_ids(text) == reference(text) == [
        "mc-dec-20260101-0000000a", "mc-con-20260101-0000000b", "mc-dec-20260101-00000011"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_random_texts(text):
    assert unit_heading_ids(text) == reference(text)
