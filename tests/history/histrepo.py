"""Fixture histories for the history commands: a temporary Git repository holding a copy of
examples/acme-shop, commits with fixed dates, authors and trailers. Git never reads the
global or system configuration here (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, Optional, Sequence

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "acme-shop"
MEM = "docs/memory"
T0 = 1790000000  # 2026-09-21, a fixed origin for commit dates
DAY = 86400


def env(author: str = "Human <human@example.org>", when: int = T0) -> Dict[str, str]:
    """A Git environment without the user's configuration, with a fixed author and date."""
    name, email = author.split(" <")
    out = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    out.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME=name,
               GIT_AUTHOR_EMAIL=email.rstrip(">"), GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email.rstrip(">"),
               GIT_AUTHOR_DATE=f"@{when} +0000", GIT_COMMITTER_DATE=f"@{when} +0000")
    return out


def entry(ident: str, title: str, body: str, status: str = "active", field: str = "Decision",
          subject: str = "MC-SUBJ-20260901-0a0a0a01", facet: str = "behavior", scope: str = "project",
          evidence: Sequence[str] = ("user-confirmed",), extra: Sequence[str] = ()) -> str:
    """The text of one formal entry."""
    lines = [f"## {ident} \u2014 {title}", "", f"Status: {status}", *extra, f"Scope: {scope}"]
    if subject:
        lines += [f"Subject: {subject}", f"Facet: {facet}"]
    lines += ["Evidence:", *[f"- {e}" for e in evidence], "", f"{field}:", body, ""]
    return "\n".join(lines)


class Repo:
    """A fixture repository: ``commit`` writes files and commits them at a fixed time."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.time = T0
        shutil.copytree(EXAMPLE, root)
        self.git("init", "-q", "-b", "main")
        self.commit("init")

    def git(self, *args: str, author: str = "Human <human@example.org>") -> str:
        """Run git in the repository; its stdout."""
        return subprocess.run(["git", *args], cwd=self.root, env=env(author, self.time), check=True,
                              capture_output=True, text=True).stdout

    def path(self, module: str) -> Path:
        """The path of a memory module."""
        return self.root / MEM / module

    def read(self, module: str) -> str:
        """A memory module's text."""
        return self.path(module).read_text(encoding="utf-8")

    def write(self, module: str, text: Optional[str]) -> None:
        """Write (or, for None, delete) a memory module."""
        path = self.path(module)
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    def edit(self, module: str, old: str, new: str) -> None:
        """Replace exactly one occurrence of ``old`` in a module."""
        text = self.read(module)
        assert text.count(old) == 1, (module, old)
        self.write(module, text.replace(old, new))

    def commit(self, message: str, at: Optional[int] = None, author: str = "Human <human@example.org>",
               trailers: Sequence[str] = ()) -> str:
        """Commit everything at time ``at`` (default: one hour after the last commit); its id."""
        self.time = at if at is not None else self.time + 3600
        self.git("add", "-A")
        body = message + ("\n\n" + "\n".join(trailers) if trailers else "")
        self.git("commit", "-q", "--allow-empty", "-m", body, author=author)
        return self.git("rev-parse", "HEAD").strip()


def tree_state(root: Path) -> str:
    """A digest of every file of the tree, .git included: path, mode, size, mtime, content."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        h.update(f"{path.relative_to(root)}|{info.st_mode}|{info.st_size}|{info.st_mtime_ns}\n".encode())
        if path.is_file() and not path.is_symlink():
            h.update(path.read_bytes())
    return h.hexdigest()
