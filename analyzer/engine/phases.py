"""Two-phase evaluation: a first, narrow evaluation decides which units matter; the final
one takes the relations it derived as given instead of deriving them again.

Used by the merge review (analyzer/query/merge.py) and the comparisons of ``analyze diff``
and readiness (analyzer/history/compare.py). The given relations are only valid while the
facts they depend on are exactly those of the first phase: callers only ever extend the
fact lists, so equal lengths mean equal facts, and any change means nothing is given.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Sequence


def phase_one_inputs(program, relations: Sequence[str]) -> List[str]:
    """The base relations the first phase's ``relations`` are derived from."""
    derived = _derived(program)
    return sorted(rel for rel in program.needed(relations) if rel not in derived)


def input_counts(program, relations: Sequence[str], facts: Mapping[str, Sequence]) -> Dict[str, int]:
    """How many facts each input of the first phase had when it was evaluated."""
    return {rel: len(facts.get(rel, ())) for rel in phase_one_inputs(program, relations)}


def phase_one_given(program, first, facts: Mapping[str, Sequence], inputs: Dict[str, int],
                    relations: Sequence[str]) -> Dict[str, set]:
    """Every derived relation the first evaluation (``first``, over ``relations``) computed
    completely, for the final evaluation's ``given``; empty when any input changed since."""
    if any(len(facts.get(rel, ())) != count for rel, count in inputs.items()):
        return {}
    derived = _derived(program)
    return {rel: first.tuples(rel) for rel in program.needed(relations) if rel in derived}


def _derived(program) -> set:
    return {rel for s in program.strata if s.rules for rel in s.relations}
