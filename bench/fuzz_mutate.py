"""Mutations of a memory project for bench/fuzz.py: bytes, Markdown, fields, numbers, file kinds.

Every mutation takes a ``random.Random`` and the project's memory directory and changes one
thing in place; it returns a short label (``flip decisions.md``) so a failure can say what
made it. The mutations are those that found real failures (issue 14: byte flips, truncation,
NUL bytes, BOMs, deep nesting, duplicated entries, huge lines, number edits) plus random
Markdown and field lines, and odd file kinds (a directory, FIFO or symlink in place of a file).
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Callable, Dict, List

FIELDS = ["Status", "Scope", "Subject", "Facet", "Evidence", "Supersedes", "Superseded-By", "Merged-Into",
          "Merged-From", "Exception-To", "Decision", "Constraint", "Reason", "Kind", "Canonical-Ref", "Aliases",
          "Resolution", "Entries", "Review-After", "Promotion-Requirement", "Rejected", "Rule"]
VALUES = ["active", "superseded", "merged", "retired", "project", "area:api", "local-user", "",
          "MC-DEC-20260101-00000000", "MC-SUBJ-20260901-0a0a0a01", "- repo:api/orders.py", "- issue:#42",
          "- repo:../x", "- repo:a\x00b", "- user-confirmed", "data-model", "2026-01-01", "0.7", "\u00b2", "\u0667"]
MARKDOWN = ["```", "~~~", "````memory-custodian-body-v1", "<!--", "-->", "# Title", "## ", "### Sub",
            "## MC-DEC-20260910-1b2c3d4e — Copy", "## MC-CON-20260101-deadbeef — New", "## MemoryCustodian Protocol",
            "    indented code", "\t- tabbed", "> quote", "* star", "1. ordered", "---", "===", "", "\r", "\u2028",
            "\ufeff", "Load:", "Also load:", "Load if present:", "- `areas/x.md`", "  - paths: `src/**`",
            "- None enabled.", "- protocol_version: 0.7", "- project_id: 00000000-0000-4000-8000-000000000000"]
DIGITS = ["0", "7", "00", "99999999999999999999", "1" * 5000, "\u00b2", "\u0660", "\uff17", "-1", "1e9", "0x1"]


def memory_files(memory: Path) -> List[Path]:
    """The regular files under the memory directory, sorted (symlinks not followed)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(memory):
        dirnames.sort()
        out += [Path(dirpath) / n for n in sorted(filenames) if (Path(dirpath) / n).is_file()
                and not (Path(dirpath) / n).is_symlink()]
    return out


def _lines(path: Path) -> List[str]:
    return path.read_bytes().decode("utf-8", "surrogateescape").split("\n")


def _write_lines(path: Path, lines: List[str]) -> None:
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogateescape"))


def flip(rng, path):
    data = bytearray(path.read_bytes())
    if data:
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    path.write_bytes(bytes(data))


def truncate(rng, path):
    data = path.read_bytes()
    path.write_bytes(data[:rng.randint(0, len(data))])


def nul(rng, path):
    data = path.read_bytes()
    at = rng.randint(0, len(data))
    path.write_bytes(data[:at] + b"\x00" + data[at:])


def bom(rng, path):
    data = path.read_bytes()
    piece = rng.choice([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", "\ufeff".encode()])
    at = 0 if rng.random() < 0.5 else rng.randint(0, len(data))
    path.write_bytes(data[:at] + piece + data[at:])


def nest(rng, path):
    lines = _lines(path)
    depth = rng.choice([50, 500, 5000])
    kind = rng.choice(["> ", "  - ", "```\n", "<!--\n"])
    at = rng.randint(0, len(lines))
    lines[at:at] = ["".join(kind * min(depth, 200)) + "x"] if "\n" not in kind else [kind.strip()] * depth
    _write_lines(path, lines)


def duplicate(rng, path):
    lines = _lines(path)
    heads = [i for i, line in enumerate(lines) if line.startswith("## ")]
    if not heads:
        return
    start = rng.choice(heads)
    end = next((i for i in heads if i > start), len(lines))
    unit = lines[start:end]
    lines[end:end] = unit * rng.choice([2, 50, 1000])
    _write_lines(path, lines)


def huge_line(rng, path):
    lines = _lines(path)
    at = rng.randint(0, len(lines))
    lines.insert(at, rng.choice(["x", "- repo:", "Status: ", "#", "`", "a b "]) * rng.choice([10_000, 200_000]))
    _write_lines(path, lines)


def numbers(rng, path):
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    spots = [i for i, ch in enumerate(text) if ch.isdigit()]
    if not spots:
        return
    for at in sorted(rng.sample(spots, min(len(spots), rng.randint(1, 5))), reverse=True):
        text = text[:at] + rng.choice(DIGITS) + text[at + 1:]
    path.write_bytes(text.encode("utf-8", "surrogateescape"))


def markdown(rng, path):
    lines = _lines(path)
    for _ in range(rng.randint(1, 6)):
        lines.insert(rng.randint(0, len(lines)), rng.choice(MARKDOWN))
    _write_lines(path, lines)


def field_line(rng, path):
    lines = _lines(path)
    for _ in range(rng.randint(1, 4)):
        line = f"{rng.choice(FIELDS)}:{rng.choice(['', ' '])}{rng.choice(VALUES)}"
        lines.insert(rng.randint(0, len(lines)), line)
    _write_lines(path, lines)


def delete_lines(rng, path):
    lines = _lines(path)
    if lines:
        at = rng.randrange(len(lines))
        del lines[at:at + rng.randint(1, 5)]
    _write_lines(path, lines)


def swap_lines(rng, path):
    lines = _lines(path)
    if len(lines) > 1:
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]
    _write_lines(path, lines)


def odd_kind(rng, path):
    kind = rng.choice(["dir", "fifo", "symlink", "missing", "empty"])
    path.unlink()
    if kind == "dir":
        path.mkdir()
    elif kind == "fifo" and hasattr(os, "mkfifo"):
        os.mkfifo(path)
    elif kind == "symlink":
        os.symlink(rng.choice(["/etc/hostname", "../../../README.md", path.name, "nowhere"]), path)
    elif kind == "empty":
        path.write_bytes(b"")


BYTE_LEVEL: Dict[str, Callable] = {"flip": flip, "truncate": truncate, "nul": nul, "bom": bom}
TEXT_LEVEL: Dict[str, Callable] = {"nest": nest, "duplicate": duplicate, "huge-line": huge_line, "numbers": numbers,
                                   "markdown": markdown, "field": field_line, "delete": delete_lines,
                                   "swap": swap_lines}
MUTATIONS: Dict[str, Callable] = {**BYTE_LEVEL, **TEXT_LEVEL, "odd-kind": odd_kind}
WEIGHTS = {"odd-kind": 0.3, "huge-line": 0.5, "nest": 0.5, "duplicate": 0.7}


def mutate(rng: random.Random, memory: Path) -> List[str]:
    """Apply 1-3 random mutations to files of ``memory``; the labels of what was done."""
    done = []
    names = sorted(MUTATIONS)
    weights = [WEIGHTS.get(n, 1.0) for n in names]
    for _ in range(rng.choice([1, 1, 2, 3])):
        files = memory_files(memory)
        if not files:
            break
        path = rng.choice(files)
        name = rng.choices(names, weights)[0]
        MUTATIONS[name](rng, path)
        done.append(f"{name} {path.relative_to(memory)}")
    return done
