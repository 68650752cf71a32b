"""The conventions people type (issue 25): no abbreviated options, a did-you-mean on every
mistyped command, option and choice, and the command's own usage on its errors."""

from pathlib import Path

import pytest

from analyzer.commands import cli

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


def run(capsys, *argv):
    """Run ``analyze ARGV`` in process: (exit status, stdout, stderr)."""
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_list_filter_that_matches_nothing_suggests(capsys):
    code, out, err = run(capsys, "list", "--status", "actve", "--project-root", str(ACME))
    assert code == 0 and "- none" in out  # an empty list is an answer
    assert "hint: no entry has status 'actve'; did you mean 'active'?" in err
    code, out, err = run(capsys, "list", "--status", "superseded", "--project-root", str(ACME))
    assert "hint" not in err  # a protocol status nothing has is no typo


def test_truncated_or_slipped_id_in_show(capsys):
    code, _, err = run(capsys, "show", "MC-DEC-2026", "--project-root", str(ACME))
    assert code == 2 and "Error: Unknown Entry ID MC-DEC-2026." in err
    assert "hint: IDs that start with MC-DEC-2026: MC-DEC-20260905-2c3d4e5f, MC-DEC-20260910-1b2c3d4e" in err
    _, _, err = run(capsys, "show", "MC-DEC-20260905-2c3d4e5e", "--project-root", str(ACME))
    assert "did you mean 'MC-DEC-20260905-2c3d4e5f'?" in err


def test_mistyped_module_in_why_and_read(capsys):
    code, _, err = run(capsys, "why", "areas/paymnts.md", "--task", "implementation", "--project-root", str(ACME))
    assert code == 2 and "did you mean 'areas/payments.md'?" in err
    _, _, err = run(capsys, "read", "--task", "implementation", "--area", "paymnts", "--rule", "relase",
                    "--area", "web", "--names-only", "--no-local", "--project-root", str(ACME))
    assert "hint: --area paymnts: did you mean 'payments'?" in err
    assert "hint: --rule relase: did you mean 'release'?" in err and "--area web" not in err


def test_explain_says_what_to_do_for_every_protocol_code(capsys):
    from analyzer.contract import catalog

    codes = [e for e in catalog.load().entries if e.code.startswith("MC-") and e.kind not in catalog.VALUE_KINDS]
    assert len(codes) > 40
    assert [e.code for e in codes if not e.fix] == []
    code, out, _ = run(capsys, "explain", "MC-ROUTING-005")
    assert code == 0 and "\nWhat to do: create the module file" in out


def test_a_mistyped_output_format_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "check", "--project-root", str(ACME), "--output", "sarf:x")
    assert code == 2 and "'sarf' is not an output format; did you mean 'sarif'?" in err
    assert not (tmp_path / "sarf:x").exists()
    # a file name with a colon that is no near miss stays a file name
    code, _, err = run(capsys, "check", "--project-root", str(ACME), "--output", "notes:today.txt")
    assert "not an output format" not in err and (tmp_path / "notes:today.txt").exists()
