"""The JSON shape of `analyze read --tool` (named in READ_SHAPES, analyzer/contract/command_shapes.py)."""

from __future__ import annotations

from analyzer.contract.shapes import Obj, Shape, list_of

_FILE_LINE = Obj({"file": "str", "reason": "str", "line": "int"})

AGENTS_READ = Shape(
    "agents", 1, "--tool was given: which agent instruction files load for each path, per tool", True,
    ("OK",), (0,),
    Obj({"cwd": "str", "memory_manifest": "str", "instruction_files": "int",
         "answers": list_of(Obj({
             "tool": "str", "name": "str", "path": "str", "in_use": "str", "memory_reachable": "bool",
             "loads": list_of(Obj({"order": "int", "file": "str", "step": "str", "detail": "str", "line": "int",
                                   "hop": "int", "root": "str"})),
             "not_loaded": list_of(_FILE_LINE), "near_misses": list_of(_FILE_LINE)}))}),
    "answers: one per path and tool, paths in the order given, tools in the order claude, codex, cursor, "
    "copilot, gemini, windsurf. loads are in context order; step is launch, nested, glob or import; detail "
    "is the folder, the glob as written or the importing file; line the deciding line (the glob's, the "
    "import's); hop counts import hops from root. in_use is detected, configured, implied or empty; "
    "memory_reachable says whether a file the tool loads at every start leads to memory_manifest.")
