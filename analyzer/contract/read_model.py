"""The result model of ``analyze read``: plain dataclasses selected from derived relations.

Nothing here decides anything; :mod:`analyzer.query.read` fills these from the relations
that rules/read/*.dl derive, and the renderers in :mod:`analyzer.render` print them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

from analyzer.contract.results import Failure, Finding


# The disposition groups in the order the text shows them (§8.8); ReadResult.modules follows it.
DISPOSITION_ORDER = ("loaded", "skipped", "missing-required", "missing-optional", "invalid")


@dataclass
class ModuleView:
    """One module of the result with its single disposition and reasons."""

    path: str
    disposition: str
    reasons: List[str]
    details: List[str]
    required: bool
    primary_reason: str
    matching_input: Optional[str] = None


@dataclass
class Omission:
    """A whole unit left out of the pack by its module's budget."""

    module: str
    unit: str


@dataclass
class PackSection:
    """One module's text in the context pack."""

    title: str
    text: str


@dataclass
class ReadResult:
    """Everything ``analyze read`` reports for one request."""

    task: str
    canonical_task: Optional[str]
    paths: List[Tuple[str, bool]]  # (path, missing_on_disk)
    explicit: List[str]  # "rule:x", "profile:y", "area:z"
    completeness: str
    shared_completeness: str
    incomplete_dimensions: List[str]
    modules: List[ModuleView]  # in display order: by DISPOSITION_ORDER, then module order
    omissions: List[Omission]
    oversized: List[Tuple[str, int]]
    conflict_status: str
    conflict_findings: List[Finding]
    local_status: str
    local_warnings: List[str]
    local_loaded: List[str]
    local_scope_warnings: List[str]
    warnings: List[str]
    strict: bool
    approved: bool
    exit_code: int
    notice: Optional[str]
    #: why the pack is INVALID (None: it is not): the code and first error rules/read/result.dl
    #: ``read_failure`` gives, the file position of the input at fault (None: the request
    #: itself) and the read's exit status
    failure: Optional[Failure]
    sections: List[PackSection]
    local_sections: List[PackSection]
    # the overlay directory consulted and what was found there: (path, "absent" | "present" |
    # "unsafe"), ("", "disabled") without an exact 0.7 contract, None when not consulted
    local_dir: Optional[Tuple[str, str]] = None

    def modules_with(self, disposition: str) -> List[ModuleView]:
        """The modules of one disposition, in display order."""
        return [m for m in self.modules if m.disposition == disposition]
