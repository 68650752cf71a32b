"""The §9.8.6 scan patterns (analyzer/project/extract/secrets.py): each fires and keeps quiet, its
redaction, the reference's known false positives, the linear finders' agreement with the
verbatim patterns, and that no preview ever shows a planted secret."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from analyzer.project.extract import secrets
from analyzer.project.extract.secrets import FINDERS, PATTERNS, hide_secrets, redact, scan_line, scan_text, spans

GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1"
# kind -> (a line it fires on, the preview of that line, the nearest line it keeps quiet on)
CASES = {
    "private-key": ("-----BEGIN OPENSSH PRIVATE KEY-----", "[redacted]", "-----BEGIN PUBLIC KEY-----"),
    "github-token": (f"- token {GH} here", "- token [redacted] here", "- token ghp_short here"),
    "aws-access-key": ("- aws AKIAIOSFODNN7EXAMPLE key", "- aws [redacted] key", "- aws AKIAIOSFODNN7EXAMPL key"),
    "openai-key": ("- key sk-proj-abcdefghijklmnopqrstuv", "- key [redacted]", "- key sk-abc"),
    "anthropic-key": ("- key sk-ant-abcdefghijklmnopqrstuv", "- key [redacted]", "- key sk-ant-abc"),
    "bearer-token": ("Authorization: bearer abcdefghijklmnop1234", "Authorization: [redacted]",
                     "Authorization: Bearer short"),
    "credential-assignment": ("db password = hunter2", "db [redacted]", "db password is set elsewhere"),
    "dotenv-credential": ("  STRIPE_API_KEY=sk_live_xyz", "[redacted]", "  KEY=value"),
    "credential-url": ("- see ftp://bob:pw1@host/x", "- see [redacted]host/x", "- see https://host/x@y"),
    "machine-path": ("- logs in /Users/alice/logs", "- logs in [redacted]logs", "- logs in /Users/"),
    "personal-email": ("- ask ops@corp.io today", "- ask [redacted] today", "- ask ops@example.com today"),
    "phone-number": ("- call +1 (555) 123-4567 now", "- call [redacted] now", "- call 555-1234 now"),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_each_pattern_fires_redacts_and_keeps_quiet(kind):
    fires, preview, quiet = CASES[kind]
    assert kind in scan_line(fires)
    assert kind in [found for _line, found, _preview in scan_text(fires)]  # its literals are searched too
    assert redact(fires) == preview
    if kind in secrets.SECRET_KINDS:  # every output hides it (its literals open hide_secrets' gate)
        assert hide_secrets(fires).strip() == preview
    assert kind not in scan_line(quiet)


def test_the_table_is_the_spec_table_in_order():
    assert [k for k, _ in PATTERNS] == list(CASES)


def test_spec_example_line():
    """§9.8.6's example: both findings, one preview hiding the e-mail's text too."""
    line = "- mirror https://deploy:hunter2pass@git.example.org/repo.git"
    assert scan_line(line) == ["credential-url", "personal-email"]
    assert redact(line) == "- mirror [redacted]/repo.git"


def test_one_finding_per_line_and_kind_in_table_order():
    text = f"x\n{GH} {GH}\nsk-ant-abcdefghijklmnopqrstuv\n"
    assert [(n, k) for n, k, _ in scan_text(text)] == [(2, "github-token"), (3, "openai-key"), (3, "anthropic-key")]


@pytest.mark.parametrize("line,kinds,preview", [
    # the fixture project_id: a UUID whose last group is 12 digits (§9.8.6's exact detail line)
    ("- project_id: 11111111-2222-4333-8444-555555555555", ["phone-number"],
     "- project_id: [redacted]-4333-8444-[redacted]"),
    # 16 digits: the longest run of at most 15 not followed by a word character is 14 digits
    ("- 2026-08-27 2026-08-28", ["phone-number"], "- [redacted]-28"),
    ("- pinned @1234567890", ["phone-number"], "- pinned @[redacted]"),
    ("- clone git@github.com:acme/x.git", ["personal-email"], "- clone [redacted]:acme/x.git"),
    ("- ops@example.org", ["personal-email"], "- [redacted]"),
    ("password = <yours>", ["credential-assignment"], "[redacted]"),
    ("API_KEY=changeme", ["credential-assignment", "dotenv-credential"], "[redacted]"),
])
def test_known_false_positives_are_reproduced(line, kinds, preview):
    assert scan_line(line) == kinds
    assert redact(line) == preview


def test_entry_ids_never_match():
    assert scan_line("## MC-DEC-20260801-11111111 — Title") == []


def test_preview_is_stripped_and_cut_to_120_characters():
    long = "   " + "a" * 200 + " " + GH
    assert redact(long) == "a" * 120  # on a long line the preview may show no [redacted]
    assert "[redacted]" in redact("  " + GH + "  ")


def test_a_line_too_long_is_unscanned_never_clean():
    line = "x" * (secrets.MAX_LINE + 1)
    assert scan_line(line) == [secrets.UNSCANNED]
    [(number, kind, preview)] = list(scan_text("ok\n" + line))
    assert (number, kind) == (2, secrets.UNSCANNED) and "x" not in preview


def test_hide_secrets_keeps_other_text_and_line_ends():
    text = f"a {GH} b\r\nAKIAIOSFODNN7EXAMPLE\nplain@mail.org\n"
    assert hide_secrets(text) == "a [redacted] b\r\n[redacted]\nplain@mail.org\n"
    assert hide_secrets("nothing here") == "nothing here"


def test_secret_kinds_are_the_security_category_of_the_rules():
    """secrets.SECRET_KINDS (what every output hides) is rules/check/scan.dl's security category,
    and the rules' table lists the Python table's kinds in the same order."""
    from analyzer.core.resources import data_file

    text = data_file("rules", "check/scan.dl").read_text(encoding="utf-8")
    rows = re.findall(r'^scan_kind\("([a-z-]+)", (\d+), "(\w+)", "(\w+)", "([A-Z-]+)"\)\.', text, re.M)
    table = [k for k, o, *_ in sorted(rows, key=lambda r: int(r[1])) if int(o) <= len(PATTERNS)]
    assert table == [k for k, _ in PATTERNS]
    assert tuple(k for k, _, c, _, _ in rows if c == "security" and k in dict(PATTERNS)) == secrets.SECRET_KINDS


# ---- the linear finders are the verbatim patterns ----------------------------------------

_ALPHABET = "aZk.:/@-_+%ſK é19=TOKENKEYSECRT\t#()xs"
_LINES = st.text(alphabet=_ALPHABET, max_size=40) | st.builds(
    lambda a, b, c: a + b + c, st.text(alphabet=_ALPHABET, max_size=12),
    st.sampled_from(["https://", "u:p@", "@", "://", " AKEY=", "API_KEY = v", "@example.com", "x@y.co"]),
    st.text(alphabet=_ALPHABET, max_size=12))


@settings(max_examples=400, deadline=None)
@given(_LINES)
def test_finders_find_exactly_the_spans_finditer_finds(line):
    for kind in FINDERS:
        regex = dict(PATTERNS)[kind]
        assert list(spans(kind, line)) == [m.span() for m in regex.finditer(line)], kind


def test_finders_on_the_hostile_shapes():
    """The shapes on which `re` is quadratic (a long name run with keywords and no `=`, a long
    local part or scheme run) give what the verbatim patterns give: nothing here."""
    assert list(spans("dotenv-credential", "KEY" * 50)) == []
    assert list(spans("personal-email", "a." * 50 + "@b")) == []
    assert list(spans("credential-url", "a." * 50 + "://")) == []


# ---- no preview ever shows a planted secret ------------------------------------------------

_TOKEN = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", min_size=24, max_size=40)
_UPPER = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=16, max_size=16)
# (line fragment holding the secret, the secret's text that must never be shown)
_SECRETS = st.one_of(
    _TOKEN.map(lambda t: (f"ghp_{t}", f"ghp_{t}")),
    _TOKEN.map(lambda t: (f"github_pat_{t}", t)),
    _UPPER.map(lambda t: (f"AKIA{t}", f"AKIA{t}")),
    _TOKEN.map(lambda t: (f"sk-proj-{t}", t)),
    _TOKEN.map(lambda t: (f"sk-ant-{t}", t)),
    _TOKEN.map(lambda t: (f"Bearer {t}", t)),
    _TOKEN.map(lambda t: (f"password={t}", t)),
    _TOKEN.map(lambda t: (f"https://deploy:{t}@git.example.org/r.git", t)),
    st.just(("-----BEGIN RSA PRIVATE KEY-----", "BEGIN RSA PRIVATE KEY")),
)
_AROUND = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e"
                                         "\x85\u2028\u2029"), max_size=30)


@settings(max_examples=300, deadline=None)
@given(_AROUND, _SECRETS, _AROUND)
def test_a_planted_secret_never_shows_in_a_preview(before, secret, after):
    fragment, text = secret
    assume(text not in before and text not in after)  # the planted copy is the only one
    line = f"{before} {fragment} {after}"
    assert text not in redact(line)
    assert text not in hide_secrets(line)
    for _, _, preview in scan_text(line):
        assert text not in preview


_TEXT_ALPHABET = "aAsS1 9+().-\t\u00a0@:/=_KEYTOKENPASSWORDpasswordſKİı\n\r\x0b\x0c\x1c\x85\u2028#ghp"
_TEXTS = st.lists(st.text(alphabet=_TEXT_ALPHABET, max_size=30) | st.sampled_from(
    ["password = x", "Bearer abcdefghijklmnopq", "+1 (555) 123-4567", "paſſword=x", "a@b.co", "X_KEY=1",
     "https://u:p@h", "/home/x/", f"{GH}", "İ bearer abcdefghijklmnopq"]), max_size=6).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_scan_text_is_the_line_by_line_scan(text):
    """The whole-file literal triggers never drop a line a pattern matches: scan_text gives
    exactly what scanning every line with every pattern gives."""
    naive = [(n, kind, redact(line)) for n, line in enumerate(text.splitlines(), 1) for kind in scan_line(line)]
    assert list(scan_text(text)) == naive


_PHONE_TEXT = st.lists(st.sampled_from(["123", "4567", "89", "0", "+1", "١٢٣", " ", "-", "(", ")", ".", "\t", "\u00a0",
                                        "\u3000", "\x1f", "a", "_", "\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c",
                                        "\x1e", "\x85", "\u2028"]), max_size=24).map("".join)


@settings(max_examples=400, deadline=None)
@given(_PHONE_TEXT)
def test_phone_numbers_searched_over_a_text_are_the_lines_phone_numbers(text):
    """phone-number is searched over the whole text at once (its separators less the line
    breaks): digits, separators and every kind of line break give what scanning each line
    with the verbatim pattern gives (no number across a break, none lost at a line's ends)."""
    naive = [(n, kind, redact(line)) for n, line in enumerate(text.splitlines(), 1) for kind in scan_line(line)]
    assert list(scan_text(text)) == naive
