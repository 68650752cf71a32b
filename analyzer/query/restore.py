"""``analyze restore --preview ID --base REV [--head REV]``: the unit as it was at the base,
and a patch that would put it back. Nothing is ever applied or written.

rules/restore/ decide whether the ID changed, whether its change can be read and whether a
restore would discard later edits (MA-ROLLBACK-002). Python makes the patch text: the head
file with the unit's lines replaced by the base text (a unit added since the base is
removed; one removed since is appended to its base file, created if needed), as a unified
diff against the head's files with paths from the repository top, so that
``git apply --check`` accepts it in the head's work tree.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from analyzer.contract.results import Failure, Finding
from analyzer.history import freeform
from analyzer.history.git import GitError, Repo
from analyzer.history.revisions import UNIT_SOURCES, display_facts
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
        if result.kind == freeform.KIND:
            before, after = _freeform_pair(by_rev["base"], by_rev["head"], ident.casefold())
        else:
            before = _unit(by_rev["base"], result.kind, ident.casefold())
            after = _unit(by_rev["head"], result.kind, ident.casefold())
        result.base_text = before[2] if before else None
        result.patch = make_patch(by_rev["head"], before, after, f"{prefix}{memory_dir}")
    return result


def _prefix(root) -> str:
    return Repo(str(root)).prefix


def _unit(project, kind: str, ident: str) -> Optional[Tuple[str, Tuple[int, int], str]]:
    """(module, (first, last non-blank line, 0-based), text) of a unit in a revision."""
    placed, _shown, fixed = UNIT_SOURCES[kind]
    for fact in project.facts.relation_sets().get(placed, ()):
        found, module, ordinal = (fact[0], fixed, fact[1]) if fixed else fact
        if found != ident:
            continue
        return _placed(project, module, ordinal)
    return None


def _freeform_pair(base, head, ident: str):
    """The ``(before, after)`` of the free-form unit named ``ident`` (§5.11 ``<file>#unit-<n>``,
    casefolded) in the base and head revisions, each as :func:`_unit` gives it or None: the
    file's free-form units paired as diff pairs them (analyzer/history/freeform.py), since
    such a unit's name depends on the pair."""
    folded = ident.rpartition("#unit-")[0]
    for module in sorted(m for m in {*base.texts, *head.texts} if m.casefold() == folded):
        old, new = (freeform.freeform_units(p.texts.get(module)) for p in (base, head))
        for a, b in freeform.aligned(old, new):
            if freeform.name(module, (b or a)[0]).casefold() == ident:
                return (None if a is None else _placed(base, module, a[0], a[2] - 1),
                        None if b is None else _placed(head, module, b[0], b[2] - 1))
    return None, None


def _freeform_present(revisions, ident: str) -> bool:
    """Whether the base or the head holds a free-form unit named ``ident`` (``<file>#unit-<n>``)."""
    module, mark, ordinal = ident.casefold().rpartition("#unit-")
    if not mark or not ordinal.isdigit():
        return False
    return any(unit[0] == int(ordinal)
               for revision in revisions if revision.rev in ("base", "head")
               for name, text in revision.project.texts.items() if name.casefold() == module
               for unit in freeform.freeform_units(text))


def _placed(project, module: str, ordinal: int, first: int = 0) -> Tuple[str, Tuple[int, int], str]:
    """(module, (first, last non-blank line, 0-based), text) of unit ``ordinal`` of ``module``,
    starting no earlier than line ``first`` (a free-form unit's first line with text)."""
    start, end = project.unit_ranges[module][ordinal - 1]
    start = max(start, first)
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
