"""The one result model every command shares: a :class:`Finding` and a :class:`Failure`.

A command's result class may carry more (a read pack, a diff's change list, check's
families), but what it finds is a list of :class:`Finding` and why it could not run is a
:class:`Failure`. Plain dataclasses: the query layer fills them from derived relations, the
renderers print them; nothing here decides anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from analyzer.core.span import Span

#: A line a finding is about: path relative to the project root, 1-based line and column.
Location = Span


@dataclass
class Finding:
    """One finding of any command.

    ``level`` is the word the rules gave it: quality checks carry a ``severity``
    (ERROR/WARNING/INFO), conflict-style findings a ``status`` (REVIEW/CONFLICT/INVALID, or
    ERROR for a contract failure shown in the conflict block). The first of ``locations`` is
    the primary location, the rest are related ones. ``subject``, ``facet``, ``scopes`` and
    ``at`` are the fingerprint inputs besides the code and the primary location.
    """

    code: str
    family: str = ""
    message: str = ""
    severity: Optional[str] = None
    status: Optional[str] = None
    entries: List[str] = field(default_factory=list)
    subject: str = ""
    facet: str = ""
    scopes: List[str] = field(default_factory=list)
    locations: List[Location] = field(default_factory=list)
    #: per location, the Git revision its line is in: (label, commit), the label "merge base",
    #: "HEAD" or the ref as given; only a history finding has them (empty: the work tree)
    revisions: List[Tuple[str, str]] = field(default_factory=list)
    proofs: Optional[list] = None  # proof trees, with `check --with-proofs` (analyzer/query/proofs.py)
    introduced: Optional[object] = None  # where it started, with `check --introduced` (analyzer/query/introduced.py)
    #: the one entry or record the finding is at ("entry MC-CON-…", "record MC-REC-…"; rules'
    #: ``*_finding_at``): its heading is the first location, and the fingerprint names it
    at: str = ""
    #: how many leading locations the CI formats show (0: all): an entry issue lists every ID
    #: of its file (the reference's Entries, kept in JSON); SARIF, JUnit and annotations show the
    #: entry it is at, so their size stays linear in the findings
    shown: int = 0

    @property
    def level(self) -> str:
        """The finding's word: its status, else its severity ("" when it has neither)."""
        return self.status or self.severity or ""

    @property
    def primary(self) -> Optional[Location]:
        """The location the finding is at (None: the project as a whole)."""
        return self.locations[0] if self.locations else None

    @property
    def related(self) -> List[Location]:
        """The other locations the finding names."""
        return self.locations[1:]

    def conflict_text(self) -> str:
        """``<code> <STATUS>: <message>[ [Subject..; Facet..; Scope..]][ Entries: a, b.]`` (§9.4)."""
        return conflict_line(self.code, self.level, self.message, self.subject, self.facet, self.scopes,
                             self.entries)


def conflict_line(code: str, status: str, message: str, subject: str, facet: str, scopes: List[str],
                  entries: List[str]) -> str:
    """A conflict finding as §9.4 prints it (read and check share it):
    ``<code> <STATUS>: <message>[ [Subject..; Facet..; Scope..]][ Entries: a, b.]``."""
    text = f"{code} {status}: {message}"
    if subject or facet or scopes:
        text += f" [Subject: {subject or '-'}; Facet: {facet or '-'}; Scope: {', '.join(scopes) or '-'}]"
    if entries:
        text += f" Entries: {', '.join(entries)}."
    return text


@dataclass
class Failure:
    """Why a command could not run: its code, the message, where the input at fault is and
    the exit status. ``span`` is None when no file is at fault (the command line, Git);
    ``related`` names further locations, ``diagnostics`` every managed file the run needed but
    could not use when that is the failure (analyzer/query/needed.py)."""

    code: str
    message: str
    span: Optional[Span] = None
    exit_code: int = 2
    related: List[Span] = field(default_factory=list)
    diagnostics: List[object] = field(default_factory=list)

    @property
    def where(self) -> Span:
        """The span as the formats print it: path "" when no file is at fault."""
        return self.span or Span("")

    @property
    def locations(self) -> List[Span]:
        """Every location the failure names, the span first."""
        return ([self.span] if self.span is not None else []) + self.related
