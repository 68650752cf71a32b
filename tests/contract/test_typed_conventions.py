"""The conventions people type (issue 25): no abbreviated options, a did-you-mean on every
mistyped command, option and choice, and the command's own usage on its errors."""

from pathlib import Path

import pytest

from analyzer import cli

ACME = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"


def refused(capsys, *argv):
    """Run ``analyze ARGV`` in process; it must refuse with exit 2; returns stderr."""
    with pytest.raises(SystemExit) as stop:
        cli.main(list(argv))
    assert stop.value.code == 2
    return capsys.readouterr().err


def test_mistyped_command_is_suggested(capsys):
    err = refused(capsys, "chek")
    assert "invalid choice: 'chek'" in err and "did you mean 'check'?" in err


@pytest.mark.parametrize("word, meant", [("--al", "--all"), ("--formt", "--format"), ("--routng", "--routing")])
def test_no_abbreviations_and_a_suggestion(capsys, word, meant):
    # argparse would take --al as --all; a prefix is a typo here, as in git
    err = refused(capsys, "check", word, "--project-root", str(ACME))
    assert f"did you mean {meant!r}?" in err
    # the command's usage, not the top level's
    assert "usage: analyze check" in err and "analyze check: error: unrecognized arguments" in err


def test_mistyped_choice_is_suggested(capsys):
    err = refused(capsys, "check", "--format", "jsn", "--project-root", str(ACME))
    assert "invalid choice: 'jsn'" in err and "did you mean 'json'?" in err


def test_far_off_words_get_no_guess(capsys):
    err = refused(capsys, "check", "--zzzzzz", "--project-root", str(ACME))
    assert "unrecognized arguments: --zzzzzz" in err and "did you mean" not in err
