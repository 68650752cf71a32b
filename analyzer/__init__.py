"""memory-analyzer: a read-only analyzer for MemoryCustodian Protocol 0.7 memory projects.

The pipeline is grammars -> fact base -> datalog rules (our own engine) -> query layer ->
renderers; see docs/ and the architecture notes in the README.
"""

__version__ = "0.1.0"
