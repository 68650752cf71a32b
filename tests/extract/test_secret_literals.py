"""The cheap triggers of the secret scan never say "do not scan" where a pattern matches.

Every trigger of analyzer/project/extract/secrets.py is derived from one table, ``LITERALS``:
the line gate of :func:`scan_line` (``_TRIGGER``, ``_TRIGGER_I``, the phone gate), the
per-kind whole-text searches of :func:`scan_text` (``_KIND_TRIGGERS``, ``_FOLDED`` over the
lower-cased text) and the pre-check of :func:`hide_secrets` (``_may_hold_secret``, whose
ASCII path skips the regex). A literal missing from the table, a wrong case rule or a fold
the lower-casing misses would let a secret through unseen. Random texts built of matches
generated from each pattern itself (so a literal the table lacks is planted too), of every
literal (in its own case, other cases and with the characters ``re.IGNORECASE`` folds
specially), of pieces that complete the patterns and of arbitrary text are checked against
the verbatim patterns: wherever one matches a line, each trigger let that line be scanned.
The spellings are also tried one by one (random texts rarely spell ``paſſword``).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.project.extract import secrets
from analyzer.project.extract.secrets import LITERALS, MAX_LINE, SECRET_KINDS, hide_secrets, scan_line, scan_text

# the characters re.IGNORECASE folds onto ASCII letters besides their own cases (ſ~s, K~k,
# İ~i, ı~i): a literal spelt with them matches a case-insensitive pattern
_FOLDS = {"s": "\u017f", "k": "\u212a", "i": "\u0130"}


def _spellings(word: str):
    """``word`` as written, lower, upper, with its case swapped, and with each letter that has
    a special fold replaced by it (and by the dotless i)."""
    out = [word, word.lower(), word.upper(), word.swapcase()]
    for plain, odd in _FOLDS.items():
        out.append(word.lower().replace(plain, odd))
    out.append(word.lower().replace("i", "\u0131"))
    return sorted(set(out))


LITERAL_PIECES = sorted({spelling for words in LITERALS.values() for word in words for spelling in _spellings(word)})
# what completes a pattern after (or before) its literal: token bodies, an AWS key's 16
# characters, an assignment's value, a URL's credentials, a path's user, an address's domain,
# a phone number, the private key's armour, a dotenv name's parts and separators
COMPLETIONS = ["A1b2C3d4E5f6G7h8I9j0K1", "IOSFODNN7EXAMPLE", " = hunter2", "=x", "bob:pw1@host", "alice/",
               "ops@corp.io", "+1 (555) 123-4567", "-----BEGIN RSA ", "-----BEGIN ", "proj-", "ant-", "STRIPE_",
               "_API", "x", " ", "  ", "\t", "\n", "\r\n", "\u2028", "_", "-", "a", "Z", "9", "."]
# a match of each pattern, generated from the pattern itself (not from LITERALS: a literal the
# table lacks is still planted), in the cases and spellings its flags allow
MATCHES = st.one_of([st.from_regex(pattern, fullmatch=True) for _, pattern in secrets.PATTERNS])
PIECES = st.one_of(MATCHES, st.sampled_from(LITERAL_PIECES), st.sampled_from(COMPLETIONS), st.text(max_size=5))
TEXTS = st.lists(PIECES, max_size=10).map("".join)


def _matching(line: str):
    """The kinds whose verbatim pattern (the spec's regular expression) matches ``line``."""
    return [kind for kind, pattern in secrets.PATTERNS if pattern.search(line)]


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_no_trigger_says_no_where_a_pattern_matches(text):
    scanned = {(n, kind) for n, kind, _ in scan_text(text)}
    for n, line in enumerate(text.splitlines(), 1):
        if len(line) > MAX_LINE:
            continue  # reported unscanned, never clean (tests/extract/test_secrets.py)
        kinds = _matching(line)
        # the line gate of scan_line, then the whole-text literal searches of scan_text
        assert scan_line(line) == kinds, line
        assert {kind for m, kind in scanned if m == n} == set(kinds), line
        secret = [kind for kind in kinds if kind in SECRET_KINDS]
        if secret:
            # hide_secrets's pre-check, on the line alone and on the whole text, and its result
            assert secrets._may_hold_secret(line) and secrets._may_hold_secret(text), (line, secret)
            assert hide_secrets(line) != line, (line, secret)


def test_each_literal_in_each_spelling_reaches_its_pattern():
    """Not left to chance: for every kind, a line its pattern matches with each spelling of
    each of its literals that the pattern's case rule accepts is scanned as that kind."""
    lines = {
        "private-key": ["-----BEGIN RSA {}"],
        "github-token": ["{}A1b2C3d4E5f6G7h8I9j0K1"],
        "aws-access-key": ["{}IOSFODNN7EXAMPLE"],
        "openai-key": ["{}A1b2C3d4E5f6G7h8I9j0K1"],
        "anthropic-key": ["{}A1b2C3d4E5f6G7h8I9j0K1"],
        "bearer-token": ["{} A1b2C3d4E5f6G7h8I9j0K1"],
        "credential-assignment": ["{} = hunter2"],
        "dotenv-credential": ["STRIPE_{}=x", "  A{}_X = y"],
        "credential-url": ["ftp{}bob:pw1@host"],
        "machine-path": ["{}alice/", "{}alice\\"],
        "personal-email": ["ops{}corp.io"],
    }
    assert set(lines) == set(LITERALS)  # a new kind needs its line here
    reached = set()
    for kind, shapes in lines.items():
        for word in LITERALS[kind]:
            for spelling in _spellings(word):
                for shape in shapes:
                    line = shape.format(spelling)
                    if kind not in _matching(line):
                        continue  # this spelling is not one the pattern accepts
                    reached.add((kind, word))
                    assert kind in scan_line(line), line
                    assert kind in {k for _, k, _ in scan_text(line)}, line
                    if kind in SECRET_KINDS:
                        assert secrets._may_hold_secret(line), line
    assert reached == {(kind, word) for kind, words in LITERALS.items() for word in words}  # each one tried
