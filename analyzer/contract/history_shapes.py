"""Declared JSON shapes of the history commands (diff, autonomy, readiness, restore).

analyzer/contract/registry.py names them in its command list.

Kept apart from the registry so that the history commands can grow without touching the
other commands' declarations.
"""

from __future__ import annotations

from analyzer.contract.command_shapes import ERROR_BODY
from analyzer.contract.shapes import Either, Enum, Obj, Shape, as_type, list_of
from analyzer.project import vocab

PLACE = Either((Obj({"path": "str", "line": "int"}), as_type("null")))
CLASS = Enum(*vocab.change_classes())

CHANGE = Obj({"id": "str", "kind": Enum("entry", "subject", "record", "legacy"), "class": CLASS, "subkind": "str",
              "before": PLACE, "after": PLACE, "commits": "list[str]"})
BLINDSPOT = Obj({"revision": "str", "commit": "str|null", "path": "str", "line": "int", "id": "str|null",
                 "message": "str"})

DIFF_SHAPES = (
    Shape("result", 1, "both revisions were read (a unit that could not be read is a blind spot, exit 2)", True,
          ("CHANGES", "UNCHANGED", "BLINDSPOT"), (0, 2),
          Obj({"exit_code": "int",
               "base": Obj({"ref": "str", "commit": "str"}),
               "head": Obj({"ref": "str", "commit": "str|null"}),
               "counts": "dict[int]",
               "changes": list_of(CHANGE),
               "blindspots": list_of(BLINDSPOT)}),
          "One change per Entry, Subject, reconciliation record or free-form (legacy) unit that differs, sorted by "
          "class, kind and casefolded ID (a free-form unit's id is `<file>#unit-<n>`, n its place among all units of "
          "its file): class A add (subkind: the entry's Status, `archive`, `subject`, `record` or `legacy`), B merge "
          "(`entries`, `subject`), C rewrite (`inplace`, `supersede`), D delete (`hard`, `soft`), E metadata "
          "(`lifecycle`, `evidence`, `order`, `text`). before/after are the unit's path (relative to the project "
          "root) and heading line in each revision (null where it does not exist); commits the commits of "
          "base..head whose diff touched the unit, oldest first (`worktree` for uncommitted changes). head.commit "
          "is null for the work tree. counts has every class. Status BLINDSPOT (exit 2) when a changed unit, or a "
          "heading in a changed file, could not be read: those units get no class."),
    Shape("error", 1, "Git could not answer (bad revision, not a repository, shallow clone, unreadable file) "
          "or the project root is not a directory", False, ("INVALID",), (2,), ERROR_BODY),
)

READINESS_SHAPES = (
    Shape("result", 1, "the history of the 30 days before the reading time was read", True,
          ("READY", "NOT_READY"), (0, 1),
          Obj({"exit_code": "int", "as_of": "str", "as_of_seconds": "int",
               "head": Obj({"ref": "str", "commit": "str"}), "commits": "int",
               "readings": list_of(Obj({"name": Enum("R1", "R2", "R3", "R4"), "state": Enum("pass", "fail", "null"),
                                        "details": "list[str]"})),
               "missing": "list[str]"}),
          "READY (exit 0) only when all four readings pass; a null reading (not enough history) never passes. "
          "as_of is the reading time in UTC (--as-of, else the head commit's committer time, never the wall "
          "clock); commits counts the memory commits of the 30-day window; missing names the readings that "
          "do not pass."),
    Shape("error", 1, "the history could not be read, --as-of is not a time, an agent author pattern is not a "
          "regular expression, or the configuration is unusable", False, ("INVALID",), (2,), ERROR_BODY),
)

AUTONOMY_FINDING = Obj({"code": "str", "status": Enum(*reversed(vocab.statuses()[1:])), "kind": "str", "id": "str",
                        "message": "str", "path": "str|null", "line": "int|null"})
MERGE_BASE = Either((Obj({"commit": "str", "base_commit": "str", "head_commit": "str"}), as_type("null")))
AUTONOMY_SHAPES = (
    Shape("autonomy", 1, "--base REV (or --autonomy) was given: the memory changes since REV judged by an autonomy "
          "level", True, vocab.statuses(), (0, 1, 2),
          Obj({"exit_code": "int", "requested": Enum(*vocab.modes()),
               "effective": Enum(*vocab.modes()), "merge_base": MERGE_BASE, "missing_readings": "list[str]",
               "findings": list_of(AUTONOMY_FINDING),
               "diff": Obj({"diff_status": Enum("CHANGES", "UNCHANGED", "BLINDSPOT"), "exit_code": "int",
                            "base": Obj({"ref": "str", "commit": "str"}),
                            "head": Obj({"ref": "str", "commit": "str|null"}), "counts": "dict[int]",
                            "changes": list_of(CHANGE), "blindspots": list_of(BLINDSPOT)})}),
          "Findings MA-AUTONOMY-001 (CONFLICT: a confirmation is required and absent), 002 (INVALID: a change "
          "outside the plan), 003 (REVIEW: full requested without readiness, one per missing reading; effective "
          "is then confirm), 004 (INVALID: the plan names an ID neither revision holds). status is the worst "
          "finding (CLEAR without findings); INVALID with exit 2 when the diff has a blind spot. path/line place "
          "the changed unit (head revision, else base), the plan item for 004, null for 003. The changes judged "
          "are those the head made since it left the base: the comparison runs from the merge base of the base "
          "and the head (HEAD for the work tree) to the head, as `git diff BASE...HEAD` does, and a change's "
          "commits are those of merge-base..head. merge_base is null when the base is an ancestor of the head "
          "(the merge base is the base itself); otherwise it names the merge base (commit; the one `git "
          "merge-base` prints when there are several), the base's own commit and the head's (HEAD's for the "
          "work tree). diff is the `diff.result` body of the same comparison: its base.ref is the ref as given, "
          "its base.commit the commit compared (the merge base)."),
)

RESTORE_SHAPES = (
    Shape("result", 1, "both revisions were read", True, ("READY", "WARNING", "UNCHANGED", "UNKNOWN", "BLINDSPOT"),
          (0, 1, 2),
          Obj({"exit_code": "int", "id": "str", "base": Obj({"ref": "str", "commit": "str"}),
               "head": Obj({"ref": "str", "commit": "str|null"}), "kind": "str|null", "class": "str|null",
               "subkind": "str|null", "base_text": "str|null", "patch": "str",
               "findings": list_of(Obj({"code": "str", "status": Enum("WARNING"), "commit": "str",
                                        "message": "str"}))}),
          "READY (exit 0): patch is a unified diff (paths from the repository top) that `git apply --check` accepts "
          "in the head's work tree and that puts back base_text (null: the unit is new since the base and the "
          "patch removes it). WARNING (exit 1): the same, plus one MA-ROLLBACK-002 finding per later commit "
          "(`worktree` for uncommitted edits) whose edit the restore would discard. UNCHANGED (exit 0): nothing "
          "to restore; UNKNOWN (exit 2): neither revision holds the ID; BLINDSPOT (exit 2): its change cannot be "
          "read. Nothing is ever applied."),
    Shape("error", 1, "Git could not answer (bad revision, not a repository, shallow clone, unreadable file) "
          "or the project root is not a directory", False, ("INVALID",), (2,), ERROR_BODY),
)
