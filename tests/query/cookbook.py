"""The docs/queries.md cookbook: every ```sh block is run and compared with the ```text block
after it. ``python -m tests.query.cookbook --update`` rewrites the outputs (read the diff)."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import List, Tuple

sys.path.append(str(Path(__file__).resolve().parents[1]))  # tests/inprocess.py, run as a script too
import inprocess  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
COOKBOOK = ROOT / "docs" / "queries.md"
_BLOCKS = re.compile(r"```sh\n(?P<cmd>.*?)\n```\n\n```text\n(?P<out>.*?)```", re.S)


def examples(text: str) -> List[Tuple[str, str]]:
    """``(command, documented output)`` of every example, in order."""
    return [(m.group("cmd"), m.group("out")) for m in _BLOCKS.finditer(text)]


def run(command: str) -> Tuple[int, str]:
    """Run a documented ``analyze ...`` command from the repository root, in this process
    (tests/inprocess.py): (exit, stdout)."""
    argv = shlex.split(command.replace("\\\n", " "))
    assert argv[0] == "analyze", command
    res = inprocess.run(argv[1:], cwd=ROOT)
    return res.returncode, res.stdout + (res.stderr if res.returncode else "")


def update() -> None:
    """Rewrite every documented output from a fresh run."""
    text = COOKBOOK.read_text(encoding="utf-8")

    def replace(match):
        _, out = run(match.group("cmd"))
        return f"```sh\n{match.group('cmd')}\n```\n\n```text\n{out}```"

    COOKBOOK.write_text(_BLOCKS.sub(replace, text), encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--update"]:
        update()
