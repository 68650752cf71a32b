"""``analyze restore --preview ID --base REV [--head REV]``: the unit as it was at the base,
and a patch that would put it back. Nothing is ever applied or written.

rules/restore/ decide whether the ID changed, whether its change can be read and whether a
restore would discard later edits (MA-ROLLBACK-002); where the unit is in each revision is
rules/diff/'s ``change_at`` (for a free-form unit, whose name depends on the comparison, the
one pairing of its file's units that analyzer/history/freeform.py made for the diff). Python
makes the patch text: the head file with the unit's lines replaced by the base text (a unit
added since the base is removed; one removed since is appended to its base file, created if
needed), as a unified diff against the head's files with paths from the repository top, so
that ``git apply --check`` accepts it in the head's work tree.
"""

from __future__ import annotations

import bisect
import difflib
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from analyzer.contract.results import Failure, Finding
from analyzer.history import freeform
from analyzer.history.git import GitError, Repo
from analyzer.history.revisions import display_facts
from analyzer.query.diff import DiffResult, diff_facts, select
from analyzer.query.failures import git_failure


def commit_of(finding: Finding) -> str:
    """The later commit an MA-ROLLBACK-002 finding is about (its ``at``: "commit <sha>"), whose
    edit a restore would discard."""
    return finding.at.partition(" ")[2]


@dataclass
class RestoreResult:
    """The outcome of a restore preview."""

    ident: str
    diff: DiffResult
    status: str = ""  # READY, WARNING, UNCHANGED, UNKNOWN, BLINDSPOT; "" when it could not run
    exit_code: int = 2
    failure: Optional[Failure] = None  # why it could not run (MA-FILE-* at a file that cannot be used, else MA-GIT)
    kind: str = ""
    cls: str = ""
    subkind: str = ""
    base_text: Optional[str] = None  # the unit at the base (None: it did not exist there)
    patch: str = ""
    findings: List[Finding] = field(default_factory=list)  # at: "commit <sha>" (:func:`commit_of`)
    known: List[str] = field(default_factory=list)  # UNKNOWN: the IDs either revision holds, as written (hints)


def run_restore(root, memory_dir: str, ident: str, base: str, head: Optional[str] = None,
                use_cache: bool = True) -> RestoreResult:
    """Preview restoring ``ident`` to its text at ``base`` in ``head`` (the work tree when None)."""
    from analyzer.query.program import restore_program

    program = restore_program(use_cache)
    result = RestoreResult(ident, DiffResult(base, head or ""))
    try:
        facts, order, revisions = diff_facts(root, memory_dir, result.diff, program, use_cache)
        prefix = _prefix(root)
    except GitError as exc:
        result.failure = git_failure(exc)
        return result
    facts["restore_target"] = [(ident.casefold(),)]
    facts["restore_freeform_present"] = [(ident.casefold(),)] if _freeform_present(revisions, ident) else []
    db = facts.evaluate(program)
    select(db, result.diff, memory_dir, order)
    [(result.status, result.exit_code)] = db.relation("restore_status")
    if result.status == "UNKNOWN":  # for a did-you-mean: what the ID could have been
        result.known = sorted({row[-1] for r in revisions if r.rev in ("base", "head") for row in display_facts(r)})
    for kind, _ident, cls, sub in db.relation("restore_unit"):
        result.kind, result.cls, result.subkind = kind, cls, sub
    result.findings = sorted((Finding(code, "rollback", message, status=status, at=f"commit {sha}")
                              for code, status, _k, _i, sha, message in db.relation("rollback_finding")),
                             key=lambda f: (order.get(commit_of(f), 0), commit_of(f)))
    if result.status in ("READY", "WARNING"):
        by_rev = {r.rev: r.project for r in revisions}
        places = {}  # side -> (module, line) of the unit, as rules/diff/ pair its two sides
        for _pair, kind, found, side, module, line in sorted(db.relation("change_at")):
            if (kind, found) == (result.kind, ident.casefold()):
                places.setdefault(side, (module, line))
        before = _placed(by_rev["base"], *places["before"]) if "before" in places else None
        after = _placed(by_rev["head"], *places["after"]) if "after" in places else None
        result.base_text = before[2] if before else None
        result.patch = make_patch(by_rev["head"], before, after, f"{prefix}{memory_dir}")
    return result


def _prefix(root) -> str:
    return Repo(str(root)).prefix


def _freeform_present(revisions, ident: str) -> bool:
    """Whether the base or the head holds a free-form unit named ``ident`` (``<file>#unit-<n>``)."""
    module, mark, ordinal = ident.casefold().rpartition("#unit-")
    if not mark or not ordinal.isdigit():
        return False
    return any(unit[0] == int(ordinal)
               for revision in revisions if revision.rev in ("base", "head")
               for name, text in revision.project.texts.items() if name.casefold() == module
               for unit in freeform.freeform_units(text))


def _placed(project, module: str, line: int) -> Tuple[str, Tuple[int, int], str]:
    """(module, (first, last non-blank line, 0-based), text) of the unit of ``module`` whose
    line ``line`` (1-based) is its first with text: the heading of an Entry, Subject or
    record, or the first line of a free-form unit (which may start with blank lines)."""
    start = line - 1
    ranges = project.unit_ranges[module]
    at = bisect.bisect_right(ranges, (start, float("inf"))) - 1  # the unit that holds the line
    assert at >= 0, (module, line)  # the line is a unit's first: before every unit is a caller's bug
    end = ranges[at][1]
    lines = project.lines(module)
    while end > start and not lines[end].strip():
        end -= 1
    return module, (start, end), "\n".join(lines[start:end + 1])


def _lines(text: str) -> List[str]:
    return text.splitlines(keepends=True)


def _file_diff(path: str, old: Optional[str], new: str) -> str:
    a, b = _lines(old or ""), _lines(new)
    for side in (a, b):
        if side and not side[-1].endswith("\n"):
            side[-1] += "\n\\ No newline at end of file\n"
    out = difflib.unified_diff(a, b, "/dev/null" if old is None else f"a/{path}", f"b/{path}", n=3)
    return "".join(out)


def make_patch(head, before, after, folder: str) -> str:
    """The unified diff that puts the base unit ``before`` back in place of ``after`` in
    the head revision ``head`` (either may be None)."""
    edits = {}  # module -> new text
    if after is not None:
        module, (start, end), _text = after
        lines = head.lines(module)
        if before is not None and before[0] == module:
            new = lines[:start] + before[2].split("\n") + lines[end + 1:]
        else:
            rest = lines[end + 1:]
            while rest and not rest[0].strip() and start > 0 and not lines[start - 1].strip():
                rest = rest[1:]  # do not leave two blank lines where the unit was
            new = lines[:start] + rest
        # a file left without lines is empty, not one blank line
        edits[module] = "\n".join(new) + ("\n" if new and head.texts[module].endswith("\n") else "")
    if before is not None and (after is None or before[0] != after[0]):
        module, _range, text = before
        current = edits.get(module, head.texts.get(module))
        if current is None:
            edits[module] = text + "\n"
        else:
            edits[module] = current.rstrip("\n") + "\n\n" + text + "\n"
    return "".join(_file_diff(f"{folder}/{module}", head.texts.get(module), new)
                   for module, new in sorted(edits.items()))
