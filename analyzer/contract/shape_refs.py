"""Output shapes named by reference and imported on first use (analyzer/contract/registry.py).

The CLI is built from the command registry on every run, but only a run that prints JSON,
or the docs and conformance checks, read the shapes: declaring them (analyzer.contract.command_shapes,
analyzer.contract.history_shapes and the type language of analyzer.contract.shapes) cost each run about
5 ms of imports before this.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Optional, Tuple

if TYPE_CHECKING:
    from analyzer.contract.shapes import Shape


class Shapes:
    """A command's output shapes, read on first use from ``module:NAME`` tuples of
    :class:`~analyzer.contract.shapes.Shape` (concatenated). It behaves as that tuple (iterates,
    indexes, compares, adds); building the CLI from the registry, which every run does,
    then imports no shape declaration (analyzer.contract.command_shapes and analyzer.contract.shapes: about
    5 ms of each run that prints no JSON)."""

    __slots__ = ("sources", "_shapes")

    def __init__(self, *sources: str) -> None:
        self.sources = sources
        self._shapes: Optional[Tuple["Shape", ...]] = None

    def tuple(self) -> Tuple["Shape", ...]:
        """The shapes, imported now if they were not yet."""
        if self._shapes is None:
            found: Tuple["Shape", ...] = ()
            for source in self.sources:
                module, name = source.split(":")
                found += getattr(importlib.import_module(module), name)
            self._shapes = found
        return self._shapes

    def __iter__(self):
        return iter(self.tuple())

    def __len__(self) -> int:
        return len(self.tuple())

    def __getitem__(self, index):
        return self.tuple()[index]

    def __add__(self, other):
        return self.tuple() + tuple(other)

    def __radd__(self, other):
        return tuple(other) + self.tuple()

    def __eq__(self, other) -> bool:
        if isinstance(other, (Shapes, tuple)):
            return self.tuple() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.tuple())

    def __repr__(self) -> str:
        return repr(self.tuple())
