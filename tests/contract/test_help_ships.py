"""`--help` of every command points at nothing an installed wheel lacks: no docs/*.md,
tests/ or examples/ of the source tree (issue 13: help must not send people to missing files)."""

from __future__ import annotations

import re

import pytest

import inprocess
from analyzer.commands.cli import _LIVE

SOURCE_ONLY = re.compile(r"docs/[\w./-]+\.md|\btests/|\bexamples/")


@pytest.mark.parametrize("command", sorted(_LIVE))
def test_help_names_no_source_tree_file(command):
    proc = inprocess.run([command, "--help"],
                         capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not SOURCE_ONLY.findall(proc.stdout), SOURCE_ONLY.findall(proc.stdout)
