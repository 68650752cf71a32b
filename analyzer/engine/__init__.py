"""The datalog engine: rule-language front end (parse, check, builtins) and back end.

Names are imported lazily (PEP 562) so that ``import analyzer.engine`` stays cheap; each
entry of ``_EXPORTS`` maps a public name to the module that defines it. The engine's own
modules import each other as ``import analyzer.engine.ast as ast``, never ``from
analyzer.engine import ast``: the latter asks this package's ``__getattr__`` first whenever
the submodule is not loaded yet.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    # front end
    "parse_program": "analyzer.engine.syntax",
    "parse_query": "analyzer.engine.syntax",
    "check_program": "analyzer.engine.check",
    "load_program": "analyzer.engine.check",
    "BUILTINS": "analyzer.engine.builtins",
    "Builtin": "analyzer.engine.builtins",
    "BuiltinContext": "analyzer.engine.builtins",
    # back end: add its names here
    "Engine": "analyzer.engine.evaluate",
    "Limits": "analyzer.engine.limits",
    "Database": "analyzer.engine.database",
    "Proof": "analyzer.engine.provenance",
    "RuleStats": "analyzer.engine.database",
    "EngineError": "analyzer.engine.errors",
    "EvaluationLimitError": "analyzer.engine.errors",
    "StratificationError": "analyzer.engine.errors",
    "read_facts_dir": "analyzer.engine.factsio",
    "write_facts_dir": "analyzer.engine.factsio",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'analyzer.engine' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
