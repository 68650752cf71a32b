"""Declared JSON shapes of the history commands (``diff``; analyzer/registry.py lists them).

Kept apart from the registry so that the history commands can grow without touching the
other commands' declarations.
"""

from __future__ import annotations

from analyzer.contract import Either, Enum, Obj, Shape, as_type, list_of

DIAGNOSTIC = Obj({"code": "str", "severity": "str", "message": "str", "path": "str", "line": "int", "col": "int"})
ERROR_BODY = Obj({"diagnostics": list_of(DIAGNOSTIC)})
PLACE = Either((Obj({"path": "str", "line": "int"}), as_type("null")))
CLASS = Enum("A", "B", "C", "D", "E")

CHANGE = Obj({"id": "str", "kind": Enum("entry", "subject", "record"), "class": CLASS, "subkind": "str",
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
          "One change per Entry, Subject or reconciliation record that differs, sorted by class, kind and "
          "casefolded ID: class A add (subkind: the entry's Status, `archive`, `subject` or `record`), B merge "
          "(`entries`, `subject`), C rewrite (`inplace`, `supersede`), D delete (`hard`, `soft`), E metadata "
          "(`lifecycle`, `evidence`, `order`, `text`). before/after are the unit's path (relative to the project "
          "root) and heading line in each revision (null where it does not exist); commits the commits of "
          "base..head whose diff touched the unit, oldest first (`worktree` for uncommitted changes). head.commit "
          "is null for the work tree. counts has every class. Status BLINDSPOT (exit 2) when a changed unit, or a "
          "heading in a changed file, could not be read: those units get no class."),
    Shape("error", 1, "Git could not answer (bad revision, not a repository, shallow clone, unreadable file) "
          "or the project root is not a directory", False, ("INVALID",), (2,), ERROR_BODY),
)
