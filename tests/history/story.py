"""Histories for the readiness tests: commits at exact times before a fixed reading time,
each doing one kind of memory change, by an agent (a `Memory-Agent:` trailer) or a human."""

from __future__ import annotations

from typing import List

from histrepo import DAY, Repo, entry

AS_OF = 1795000000  # the reading time of every readiness test (2026-11-18)
AGENT = ("Memory-Agent: lingshu",)


class Story:
    """A fixture repository whose commits are placed at ``AS_OF - seconds``."""

    def __init__(self, root) -> None:
        self.repo = Repo(root)
        self.serial = 0

    def _id(self, code: str) -> str:
        self.serial += 1
        return f"MC-{code}-20261101-{self.serial:08x}"

    def _at(self, ago: float) -> int:
        return AS_OF - int(ago)

    def commit(self, message: str, ago: float, agent: bool = True) -> str:
        """Commit the work tree ``ago`` seconds before AS_OF."""
        return self.repo.commit(message, at=self._at(ago), trailers=AGENT if agent else ())

    def add_decisions(self, n: int, ago: float, agent: bool = True) -> List[str]:
        """Add ``n`` active decisions in one commit (n A changes)."""
        ids = [self._id("DEC") for _ in range(n)]
        text = "".join(entry(i, f"Decision {i}", f"Body of {i}.", facet=f"f{i[-4:]}") + "\n" for i in ids)
        self.repo.edit("decisions.md", "Entries are newest first.\n", "Entries are newest first.\n\n" + text)
        self.commit(f"add {n} decisions", ago, agent)
        return ids

    def add_candidate(self, ago: float, agent: bool = True) -> str:
        """Add one inbox candidate (A/candidate)."""
        ident = self._id("INBOX")
        text = entry(ident, "Maybe", "Perhaps so.", status="candidate", field="Statement", subject="",
                     evidence=("agent-observed",), extra=("Candidate-Type: decision",))
        text += "\nPromotion-Requirement:\nConfirm it.\n\n"
        self.repo.edit("inbox.md", "Entries are newest first.\n", "Entries are newest first.\n\n" + text)
        self.commit("add a candidate", ago, agent)
        return ident

    def remove(self, module: str, ident: str, ago: float, agent: bool = True) -> str:
        """Remove a unit (D/hard; a rejection when it is a candidate)."""
        text = self.repo.read(module)
        start = text.index(f"## {ident}")
        nxt = text.find("\n## ", start + 3)
        self.repo.write(module, text[:start] + (text[nxt + 1:] if nxt >= 0 else ""))
        return self.commit(f"remove {ident}", ago, agent)

    def rewrite(self, ident: str, ago: float, agent: bool = True) -> str:
        """Change a decision's body in place (C/inplace)."""
        import re

        text = self.repo.read("decisions.md")
        self.repo.write("decisions.md", re.sub(rf"Body of {ident}[^\n]*", f"Body of {ident}, reworded {ago}.", text))
        return self.commit(f"reword {ident}", ago, agent)

    def touch(self, ago: float, agent: bool = True) -> str:
        """Add an Evidence item to the cents decision (E/evidence)."""
        self.repo.edit("decisions.md", "- issue:#42\n", f"- issue:#42\n- issue:#{1000 + self.serial}\n")
        self.serial += 1
        return self.commit("more evidence", ago, agent)

    def merge(self, a: str, b: str, ago: float, agent: bool = True) -> str:
        """Supersede two decisions into a new one (3 B changes)."""
        new = self._id("DEC")
        for ident in (a, b):
            self.repo.edit("decisions.md", f"## {ident} \u2014 Decision {ident}\n\nStatus: active\n",
                           f"## {ident} \u2014 Decision {ident}\n\nStatus: superseded\nSuperseded-By: {new}\n")
        merged = entry(new, "Merged", "Both.", facet=f"f{a[-4:]}", extra=(f"Supersedes: {a}",))
        self.repo.edit("decisions.md", "Entries are newest first.\n", "Entries are newest first.\n\n" + merged + "\n")
        return self.commit("merge two decisions", ago, agent)

    def revert(self, sha: str, ago: float, agent: bool = False) -> str:
        """``git revert`` a commit (its message names the reverted commit)."""
        self.repo.time = self._at(ago)
        self.repo.git("revert", "--no-edit", sha)
        return self.repo.git("rev-parse", "HEAD").strip()
