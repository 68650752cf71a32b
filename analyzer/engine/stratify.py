"""Stratification: the predicate dependency graph, its strongly connected components and
their topological order.

An edge ``body -> head`` is negative when the head needs the *complete* body relation:
negation, any atom inside an aggregate, and the relation named by a graph builtin's
``relation_arg``. A negative edge inside one component is a cycle through negation: the
program has no stratified meaning and is refused with the cycle named.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, Iterable, List, Mapping, Set, Tuple

import analyzer.engine.ast as ast
from analyzer.engine.errors import StratificationError


@dataclass(frozen=True)
class Stratum:
    """One component: its relations, the indexes of its rules, and whether it recurses."""

    relations: Tuple[str, ...]
    rules: Tuple[int, ...]
    recursive: bool


def body_dependencies(literals: Iterable, builtins: Mapping, negative: bool = False):
    """Yield ``(relation, negative, span)`` for every relation a rule body reads."""
    for lit in literals:
        if isinstance(lit, ast.Negation):
            yield from body_dependencies([lit.atom], builtins, True)
        elif isinstance(lit, ast.Atom):
            if lit.rel in builtins:
                spec = builtins[lit.rel]
                if spec.relation_arg is not None and spec.relation_arg < len(lit.args):
                    arg = lit.args[spec.relation_arg]
                    if isinstance(arg, ast.Const) and isinstance(arg.value, str):
                        yield arg.value, True, lit.span
            else:
                yield lit.rel, negative, lit.span
            for term in lit.args:
                yield from _term_dependencies(term, builtins)
        elif isinstance(lit, ast.Comparison):
            yield from _term_dependencies(lit.left, builtins)
            yield from _term_dependencies(lit.right, builtins)


def _term_dependencies(term, builtins):
    if isinstance(term, ast.Aggregate):
        yield from body_dependencies(term.body, builtins, True)
        if term.target is not None:
            yield from _term_dependencies(term.target, builtins)
    elif isinstance(term, ast.BinOp):
        yield from _term_dependencies(term.left, builtins)
        yield from _term_dependencies(term.right, builtins)


def dependency_graph(program: ast.Program, builtins: Mapping):
    """The networkx DiGraph over declared relations; edge attr ``negative`` and ``span``."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(sorted(program.decls))
    for rule in program.rules:
        head = rule.head.rel
        graph.add_node(head)
        for rel, negative, span in body_dependencies(rule.body, builtins):
            old = graph.get_edge_data(rel, head)
            if old is None:
                graph.add_edge(rel, head, negative=negative, span=span)
            elif negative and not old["negative"]:
                old.update(negative=True, span=span)
    return graph


def stratify(program: ast.Program, builtins: Mapping) -> List[Stratum]:
    """Strata in evaluation order (ties broken by relation name); raises on negative cycles."""
    import networkx as nx

    graph = dependency_graph(program, builtins)
    cond = nx.condensation(graph)
    members: Dict[int, List[str]] = {n: sorted(cond.nodes[n]["members"]) for n in cond.nodes}
    order = nx.lexicographical_topological_sort(cond, key=lambda n: members[n][0])
    rules_of: Dict[str, List[int]] = {}
    for index, rule in enumerate(program.rules):
        rules_of.setdefault(rule.head.rel, []).append(index)
    strata = []
    for node in order:
        rels = members[node]
        sub = graph.subgraph(rels)
        for u, v, data in sorted(sub.edges(data=True), key=lambda e: (e[0], e[1])):
            if data["negative"]:
                raise StratificationError(_cycle_message(sub, u, v), data["span"])
        recursive = len(rels) > 1 or graph.has_edge(rels[0], rels[0])
        rule_ids = tuple(sorted(i for r in rels for i in rules_of.get(r, ())))
        strata.append(Stratum(tuple(rels), rule_ids, recursive))
    return strata


def stratify_over(program: ast.Program, builtins: Mapping, below: Iterable[str]) -> List[Stratum]:
    """:func:`stratify` of a program whose rules sit on top of the relations ``below``,
    which none of its rules defines (an ad hoc goal over a large base program): the very
    same strata, computed over the rules' own relations only.

    A relation of ``below`` that no rule reads nor defines has no edge: it is an empty
    stratum of its own, and the lexicographic topological order puts it right before the
    first other stratum whose name sorts after it (popping it frees nothing, and it is the
    smallest waiting node until then). So those strata are merged in by name instead of
    going through the graph, and the cost follows the added rules, not the base program."""
    heads = {rule.head.rel for rule in program.rules}
    read = {rel for rule in program.rules for rel, _, _ in body_dependencies(rule.body, builtins)}
    apart = sorted(rel for rel in set(below) if rel in program.decls and rel not in heads and rel not in read)
    skip = set(apart)
    core = stratify(ast.Program(decls={n: d for n, d in program.decls.items() if n not in skip},
                                rules=program.rules), builtins)
    strata: List[Stratum] = []
    waiting = iter(apart)
    nxt = next(waiting, None)
    for stratum in core:
        while nxt is not None and nxt < stratum.relations[0]:
            strata.append(_alone(nxt))
            nxt = next(waiting, None)
        strata.append(stratum)
    if nxt is not None:
        strata.append(_alone(nxt))
    strata.extend(_alone(rel) for rel in waiting)
    return strata


@lru_cache(maxsize=4096)
def _alone(rel: str) -> Stratum:
    # the empty stratum of a relation without rules; immutable, so shared by every question
    return Stratum((rel,), (), False)


def _cycle_message(sub, body: str, head: str) -> str:
    import networkx as nx

    back = nx.shortest_path(sub, head, body) if head != body else [head]
    cycle = [body] + back
    return (f"cycle through negation or aggregation: {' -> '.join(cycle)} "
            f"({head} needs the complete relation {body}, which depends on {head})")


def dependency_maps(program: ast.Program, builtins: Mapping) -> Tuple[Dict[str, Set[str]], Dict[str, Set[str]]]:
    """``(reads, readers)``: per head relation the relations its rules' bodies read (any
    dependency: positive, negated, aggregated or a graph builtin's relation), and the
    converse. Plain dicts: cheaper than a networkx graph on every request."""
    reads: Dict[str, Set[str]] = {}
    readers: Dict[str, Set[str]] = {}
    for rule in program.rules:
        deps = reads.setdefault(rule.head.rel, set())
        for rel, _, _ in body_dependencies(rule.body, builtins):
            deps.add(rel)
            readers.setdefault(rel, set()).add(rule.head.rel)
    return reads, readers


def needed_relations(program: ast.Program, builtins: Mapping, wanted: Iterable[str], stop: Iterable[str] = (),
                     maps=None) -> Set[str]:
    """The relations ``wanted`` depend on (transitively), themselves included; what a
    relation of ``stop`` depends on is not followed (it is given, not derived)."""
    reads = (maps or dependency_maps(program, builtins))[0]
    return _closure(reads, [rel for rel in wanted if rel in program.decls], set(stop))


def dependent_relations(program: ast.Program, builtins: Mapping, inputs: Iterable[str], maps=None) -> Set[str]:
    """The relations that depend on ``inputs`` (transitively, through any body dependency:
    positive, negated, aggregated or a graph builtin's relation), the inputs included."""
    readers = (maps or dependency_maps(program, builtins))[1]
    return _closure(readers, list(inputs))


def _closure(edges: Mapping[str, Set[str]], start: List[str], stop: Set[str] = frozenset()) -> Set[str]:
    out: Set[str] = set()
    while start:
        rel = start.pop()
        if rel not in out:
            out.add(rel)
            if rel not in stop:
                start.extend(edges.get(rel, ()))
    return out
