"""docs/memory/plan.md -> plan facts (grammar/plan.lark): steps, allowed classes, named IDs.

A plan that cannot be read is an error with its line (:class:`PlanError`), never an empty
plan: in plan mode an empty plan would fail every change for the wrong reason, and a plan
read partly could allow what its author did not write.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from analyzer.project.extract.grammars import terminal

PLAN_MODULE = "plan.md"


class PlanError(ValueError):
    """A plan line that does not follow grammar/plan.lark."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


def parse_plan(text: str) -> Dict[str, List[tuple]]:
    """The facts of a plan: plan_step(step, title, line), plan_allows(step, class),
    plan_names(step, id, line) (IDs casefolded)."""
    step_re, allow_re = terminal("plan", "STEP_HEADING"), terminal("plan", "ALLOW_LINE")
    entries_re, item_re = terminal("plan", "ENTRIES_LINE"), terminal("plan", "ITEM_LINE")
    facts: Dict[str, List[tuple]] = {"plan_step": [], "plan_allows": [], "plan_names": []}
    step: Optional[int] = None
    allowed_at: Dict[int, int] = {}
    in_entries = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.rstrip()
        if stripped.startswith("## "):
            m = step_re.fullmatch(stripped)
            if not m:
                raise PlanError(number, f"malformed step heading {stripped!r}; expected `## Step <n> \u2014 <title>`")
            step = int(m.group("step"))
            if any(s == step for s, _, _ in facts["plan_step"]):
                raise PlanError(number, f"duplicate step {step}")
            facts["plan_step"].append((step, m.group("title"), number))
            in_entries = False
            continue
        if step is None or not stripped:
            continue
        if stripped.startswith("Allow"):
            m = allow_re.fullmatch(stripped)
            if not m:
                raise PlanError(number, f"malformed Allow line {stripped!r}; expected `Allow: ` and classes A-E")
            if step in allowed_at:
                raise PlanError(number, f"step {step} has a second Allow line (first on line {allowed_at[step]})")
            allowed_at[step] = number
            facts["plan_allows"] += [(step, c.strip()) for c in m.group("classes").split(",")]
            in_entries = False
        elif stripped.startswith("Entries"):
            if not entries_re.fullmatch(stripped):
                raise PlanError(number, f"malformed Entries line {stripped!r}; expected `Entries:` alone")
            in_entries = True
        elif stripped.startswith("- "):
            m = item_re.fullmatch(stripped)
            if not in_entries or not m:
                raise PlanError(number, f"{stripped!r} is not an ID item of an Entries list")
            facts["plan_names"].append((step, m.group("id").casefold(), number))
    for step_no, _title, line in facts["plan_step"]:
        if step_no not in allowed_at:
            raise PlanError(line, f"step {step_no} has no Allow line")
    return facts
