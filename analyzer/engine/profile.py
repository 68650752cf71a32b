"""Per-rule evaluation statistics (``profile=True``) and their table form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from analyzer.engine import ast
from analyzer.core.span import Span


@dataclass
class RuleStats:
    """Seconds spent in one rule's variants, how many times they ran, tuples they added."""

    rule: ast.Rule
    seconds: float = 0.0
    iterations: int = 0
    derived: int = 0

    @property
    def text(self) -> str:
        """The rule as written, on one line."""
        from analyzer.engine.astfmt import rule_text

        return rule_text(self.rule)

    @property
    def span(self):
        """Where the rule is written."""
        return self.rule.span

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"rule": self.text, "location": str(self.span) if self.span else None,
                "seconds": round(self.seconds, 6), "iterations": self.iterations,
                "derived": self.derived}


def render_profile(stats: List[RuleStats]) -> str:
    """An aligned table, slowest rule first (ties by location), facts left out."""
    rows = [s for s in stats if not s.rule.is_fact]
    rows.sort(key=lambda s: (-s.seconds, s.span or Span("", 0, 0), s.text))
    table = [("seconds", "iters", "derived", "location", "rule")]
    for s in rows:
        table.append((f"{s.seconds:.4f}", str(s.iterations), str(s.derived),
                      str(s.span) if s.span else "-", s.text))
    widths = [max(len(r[i]) for r in table) for i in range(4)]
    lines = []
    for r in table:
        cells = [r[i].rjust(widths[i]) if i < 3 else r[i].ljust(widths[i]) for i in range(4)]
        lines.append("  ".join(cells + [r[4]]).rstrip())
    return "\n".join(lines)
