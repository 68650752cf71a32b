"""The shapes of the JSON documents ``analyze fleet`` prints (see :mod:`analyzer.contract.registry`)."""

from __future__ import annotations

from analyzer.contract.shapes import Obj, Shape, list_of

FLEET_SHAPES = (
    Shape("result", 1, "fleet check --format json: every repository was checked", True,
          ("CLEAN", "FINDINGS", "FAILED"), (0, 1, 2),
          Obj({"repositories": list_of(Obj({"path": "str", "result": "any"}))}),
          "one entry per repository, in fleet order: `result` is the document `analyze check --all --format json` "
          "prints in that repository (check.result, or check.error when that check stops); status CLEAN when "
          "every repository exits 0, FINDINGS when the worst exits 1, FAILED when one exits 2 (or with any "
          "other code, which counts as 2), as the command's exit status."),
    Shape("report", 1, "fleet report --format json", True, ("OK",), (0,),
          Obj({"repositories": list_of(Obj({"path": "str", "status": "str", "exit_code": "int", "findings": "int",
                                            "error": "str|null"})),
               "statuses": "dict[int]",
               "most_common_findings": list_of(Obj({"code": "str", "findings": "int", "repositories": "int"})),
               "unreached": "list[str]"}),
          "the ten most common finding codes; `unreached`: repositories whose reachability family is not clean."),
    Shape("export", 1, "fleet export --format json: the Parquet files were written", True, ("OK",), (0,),
          Obj({"files": "list[str]"}),
          "every file written, one per relation (`repo` column first, then the declared columns)."),
)
