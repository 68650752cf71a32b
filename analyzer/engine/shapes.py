"""Tighter generated code for the rule shapes the shipped rules use most.

:class:`~analyzer.engine.compile.RuleCompiler` asks these functions before it falls back
to its general nested loops; each returns None (or False) when its shape does not apply.
The results are the same tuples either way (tests/engine_backend/test_shapes.py evaluates
random programs both ways); only the work per tuple changes:

* a *projection rule* (one positive atom, head variables taken from it, plain flavour) adds
  its heads in one C-level ``set.update(map(itemgetter, tuples))`` per chunk instead of a
  Python loop building and testing each head tuple (``shown_id(I, S) :- entry_display(I,
  S).``: 10,000 iterations of a 10,000-entry project); membership tests after the atom
  (``live_entry(I, M) :- entry(I, M, _, _, _), live_storage(M).``) filter the chunk with
  ``compress`` over key sets, also in C;
* a loop over the distinct values of one column of a whole relation (an outer scan whose
  other columns are ignored, or a one-column projection) reads the relation's *key set* on
  that column (resource ``K``), built once per evaluation and shared by every such reader
  (four rules read the scopes of 10,000 entries);
* a ``count`` over one atom whose columns are all bound or ignored is the length of the
  index bucket (or selection, or relation) it would have looped over;
* a lookup that only tests whether a key occurs (a negation, an atom binding nothing)
  reads a *key set* (resource ``K``), not a hash index;
* a lookup whose key columns all hold constants reads a *selection* (resource ``Q``: the
  matching tuples, computed once per evaluation), not a hash index of the whole relation
  built for that one key (``subject(S, "active", _, _)``).
"""

from __future__ import annotations

from typing import Optional

import analyzer.engine.ast as ast
from analyzer.engine.plan import NEG, SCAN

#: False: every rule gets the general code (index lookups, loops). Only tests turn it off,
#: to evaluate the same programs both ways; compiled programs are made with it on.
TIGHT = True


def constant_key(atom: ast.Atom, cols) -> Optional[tuple]:
    """The resource key of a selection when every key column of ``atom`` is a constant:
    ``("Q", relation, cols, value)`` with the value an index on ``cols`` would be looked
    up by (the constant itself for one column, their tuple for several), else None."""
    if not TIGHT or not cols or not all(isinstance(atom.args[i], ast.Const) for i in cols):
        return None
    values = tuple(atom.args[i].value for i in cols)
    return ("Q", atom.rel, tuple(cols), values[0] if len(values) == 1 else values)


def projection_rule(c) -> bool:
    """Generate a projection rule in bulk (``c``: the rule compiler, plain flavour); False
    when the rule is not one: its body is one relation atom whose variables are distinct
    and do not all come bound, each head argument is one of them, and every later literal is
    a membership test of those variables (a fully bound atom, or a negation) that filters the
    tuples in C (``compress``) instead of one test per tuple in Python."""
    rule, steps = c.rule, c.steps
    if not TIGHT or not steps or steps[0].kind != SCAN or any(s.aggs for s in steps):
        return False
    step = steps[0]
    atom = step.literal
    position = {}
    for i, t in enumerate(atom.args):
        if isinstance(t, ast.Var):
            if t.name in position:
                return False  # a repeated variable is a filter
            position[t.name] = i
        elif not isinstance(t, (ast.Wildcard, ast.Const)):
            return False
    if not position or not all(isinstance(t, ast.Var) and t.name in position for t in rule.head.args):
        return False
    tests = [_membership(s, position, c.builtins) for s in steps[1:]]
    if None in tests:
        return False
    cols = tuple(i for i, t in enumerate(atom.args) if isinstance(t, ast.Const))
    if step.delta and (cols or tests):
        return False  # a delta's constants are filters, tested tuple by tuple
    if step.delta:
        source = c.res.name(("D", atom.rel))
    elif cols:
        source = c.res.name(constant_key(atom, cols))
    else:
        source = c.res.name(("F", atom.rel))
    picks = [position[t.name] for t in rule.head.args]
    if len(picks) == 1 and len(atom.args) > 1 and not (step.delta or cols or tests):
        # one column of a whole relation: its distinct values are the relation's key set on
        # that column, built once per evaluation and shared with every other reader
        # (``scope_value(Sc) :- entry(_, _, _, _, Sc).``)
        keys, new, full = c.res.name(("K", atom.rel, (picks[0],))), c.res.name(("U", rule.head.rel)), \
            c.res.name(("F", rule.head.rel))
        rows = c.fresh("chunk")
        c.emit(f"for {rows} in _chunks({keys}):")
        c.emit("    _check()")
        c.emit(f"    {new}.update(_filterfalse({full}.__contains__, zip({rows})) if {full} else zip({rows}))")
        return True
    new, full = c.res.name(("U", rule.head.rel)), c.res.name(("F", rule.head.rel))
    rows = c.fresh("chunk")
    # a chunk that membership tests filter is read twice (compress over it and its keys)
    c.emit(f"for {rows} in {'_lists' if tests else '_chunks'}({source}):")
    c.emit("    _check()")
    for resource, key, negated in tests:
        test = f"map({c.res.name(resource)}.__contains__, {_keys(c, key, rows)})"
        selector = f"map(_not, {test})" if negated else test
        c.emit(f"    {rows} = list(_compress({rows}, {selector}))")
    if picks == list(range(len(atom.args))):
        heads = rows  # the tuples themselves
    else:
        # itemgetter of one column yields the value: zip makes it a 1-tuple
        proj = _getter(c, picks)
        # one column: its distinct values first (``scope_value(Sc) :- entry(_, _, _, _, Sc).``
        # builds and hashes 21 1-tuples, not 10,000)
        heads = f"zip(set(map({proj}, {rows})))" if len(picks) == 1 else f"map({proj}, {rows})"
    c.emit(f"    {new}.update(_filterfalse({full}.__contains__, {heads}) if {full} else {heads})")
    return True


def _membership(step, position, builtins):
    """``(resource key, key parts, negated)`` of a literal that only tests whether the
    variables of the first atom (``position``: name -> column) occur in a relation, else
    None. Key parts: ``("col", i)`` for a variable, ``("const", value)`` for a constant.
    A negated builtin (``!ends_with(X, "/")``) is a call, not a relation to look in."""
    if step.kind == SCAN and not step.delta:
        atom, negated = step.literal, False
    elif step.kind == NEG:
        atom, negated = step.literal.atom, True
    else:
        return None
    if atom.rel in builtins:
        return None
    parts, cols = [], []
    for i, t in enumerate(atom.args):
        if isinstance(t, ast.Var) and t.name in position:
            parts.append(("col", position[t.name]))
        elif isinstance(t, ast.Const):
            parts.append(("const", t.value))
        elif isinstance(t, ast.Wildcard) and negated:
            continue
        else:
            return None
        cols.append(i)
    if not any(kind == "col" for kind, _ in parts):
        return None  # does not depend on the tuple
    cols = tuple(cols)
    if len(cols) == len(atom.args) and len(cols) > 1:
        return ("F", atom.rel), parts, negated  # the whole tuple
    return ("K", atom.rel, cols), parts, negated


def _keys(c, parts, rows: str) -> str:
    """The iterator of the keys ``parts`` takes from each tuple of ``rows``."""
    if all(kind == "col" for kind, _ in parts):
        return f"map({_getter(c, [i for _, i in parts])}, {rows})"
    columns = [f"map({_getter(c, [v])}, {rows})" if kind == "col" else f"_repeat({v!r})" for kind, v in parts]
    return f"zip({', '.join(columns)})"


def _getter(c, cols) -> str:
    name = c.fresh("proj")
    c.prelude.append(f"    {name} = _itemgetter({', '.join(map(str, cols))})")
    return name


def counted_by_length(c, agg) -> Optional[str]:
    """The expression of a ``count`` aggregate over one atom that only looks tuples up (no
    repeated variable, not every column bound): the length of what its loop would visit
    (count sees every matching tuple, each once). None for any other aggregate."""
    if not TIGHT or agg.node.func != "count" or len(agg.steps) != 1:
        return None
    step = agg.steps[0]
    if step.kind != SCAN or step.aggs or step.delta:
        return None
    atom = step.literal
    names = [t.name for t in atom.args if isinstance(t, ast.Var) and t.name not in step.bound]
    if len(names) != len(set(names)):
        return None
    cols, key = c.key_of(atom, step.bound)
    if len(cols) == len(atom.args):
        return None  # a membership test
    return c.count_lookup(atom, cols, key) if cols else f"len({c.res.name(('F', atom.rel))})"
