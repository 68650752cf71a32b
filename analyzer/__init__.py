"""memory-analyzer: a read-only analyzer for MemoryCustodian Protocol 0.7 memory projects.

The pipeline is grammars -> fact base -> datalog rules (our own engine) -> query layer ->
renderers; see docs/ and the architecture notes in the README.

The package is layered: :data:`LAYERS` names its packages, lowest first, and a module imports
only its own package and those below it (tests/contract/test_layers.py holds this).
"""

__version__ = "0.1.0"

#: The packages of analyzer/, lowest first: core (positions, diagnostics, exit codes, the
#: cache) < engine (datalog) < project (a tree to facts) < history (Git) < contract (result
#: models, shapes, registry, codes) < query (one module per request) < render < commands (CLI)
#: < dev (gendocs, conformance, generated grammar terms).
LAYERS = ("core", "engine", "project", "history", "contract", "query", "render", "commands", "dev")
