"""Proof trees from provenance.

With ``provenance=True`` evaluation records, for every tuple, the rule that first derived it
and the iteration (*height*) in which that happened; base facts have height 0. A proof is
rebuilt on demand: an instantiation of that rule whose head is the tuple and whose positive
body tuples all have strictly lower heights (so the tree is well-founded), down to base
facts. Among several such instantiations the one with the lowest body heights, then the
smallest body tuples, is chosen, so proofs do not depend on hash seeds or fact order.
Trees are built and walked without recursion: a chain of 1,000 steps is a normal proof.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

import analyzer.engine.ast as ast
from analyzer.engine.astfmt import atom_text, literal_text, rule_text, term_text, value_text
from analyzer.engine.database import sort_key
from analyzer.engine.errors import EngineError
from analyzer.engine.plan import CALL, NEG, SCAN
from analyzer.core.span import Span


@dataclass(eq=False)
class Proof:
    """Why ``relation(tuple)`` holds: the rule and bindings used, and the proofs of its body."""

    relation: str
    tuple: tuple
    rule: Optional[ast.Rule] = None
    span: Optional[Span] = None
    bindings: Dict[str, object] = field(default_factory=dict)
    children: List["Proof"] = field(default_factory=list)
    absent: List[str] = field(default_factory=list)
    builtins: List[str] = field(default_factory=list)

    @property
    def fact_text(self) -> str:
        """``rel(v1, v2)`` with values as written in the rule language."""
        return f"{self.relation}({', '.join(value_text(v) for v in self.tuple)})"

    def _label(self) -> str:
        where = f" ({self.span})" if self.span else ""
        if self.rule is None:
            return f"{self.fact_text}  <- fact{where}"
        return f"{self.fact_text}  <- rule {rule_text(self.rule)}{where}"

    def render(self, keep_binding=None, children=None, keep_builtin=None) -> str:
        """An indented text tree; a subproof already shown is referred to, not repeated.

        Indentation stops at :data:`MAX_DEPTH` levels: a deeper subproof continues in a
        numbered section below (``(continued at #2 below)``), so the text grows with the
        number of distinct facts in the proof and their uses, never with depth squared.
        Optional filters (for readers who need less): ``keep_binding(name, value)``,
        ``children(node)`` (the subproofs to show) and ``keep_builtin(text)``."""
        lines: List[str] = []
        for number, root, nodes in _sections(self, keep_binding, children, keep_builtin):
            if number:
                lines += ["", f"#{number}:"]
            for depth, node, ref in nodes:
                pad = "  " * depth
                if isinstance(node, str):
                    lines.append(pad + node)
                elif ref == "shown":
                    lines.append(f"{pad}{node.fact_text}  (shown above)")
                elif ref:
                    lines.append(f"{pad}{node.fact_text}  (continued at #{ref} below)")
                else:
                    lines.append(pad + node._label())
        return "\n".join(lines)

    def as_dict(self) -> dict:
        """JSON-ready nested form; a repeated subproof becomes ``{"relation", "tuple",
        "see_above"}``, one deeper than :data:`MAX_DEPTH` ``{"relation", "tuple",
        "continued_at": n}`` with the continuation in the root's ``continuations`` list."""
        root: dict = {}
        for number, start, nodes in _sections(self):
            top = root if not number else {"number": number}
            if number:
                root.setdefault("continuations", []).append(top)
            stack: List[tuple] = []  # (depth, dict) of the open nodes
            for depth, node, ref in nodes:
                if isinstance(node, str):
                    continue
                while stack and stack[-1][0] >= depth:
                    stack.pop()
                out = top if not stack else {}
                if stack:
                    stack[-1][1]["children"].append(out)
                out.update(relation=node.relation, tuple=list(node.tuple))
                if ref == "shown":
                    out["see_above"] = True
                    continue
                if ref:
                    out["continued_at"] = ref
                    continue
                out.update(rule=rule_text(node.rule) if node.rule else None,
                           location=str(node.span) if node.span else None,
                           bindings=dict(sorted(node.bindings.items())),
                           absent=list(node.absent), builtins=list(node.builtins), children=[])
                stack.append((depth, out))
        return root


#: deepest indentation of a printed proof; deeper subproofs continue in numbered sections
MAX_DEPTH = 16


def _sections(proof: Proof, keep_binding=None, children=None, keep_builtin=None):
    """``(number, root, [(depth, node or text line, ref)])`` per section of the printed
    proof: section 0 is the proof itself, then one per subproof cut at :data:`MAX_DEPTH`.
    ``ref`` is None for a node shown in full, ``"shown"`` for one shown before, or the
    number of the section it continues in. The filters are :meth:`Proof.render`'s."""
    shown = set()
    numbers: Dict[int, int] = {}
    queue = [proof]
    for root in queue:
        number = numbers.get(id(root), 0)
        items = []
        stack = [(root, 0)]
        while stack:
            node, depth = stack.pop()
            if isinstance(node, str):
                items.append((depth, node, None))
                continue
            if id(node) in shown:
                items.append((depth, node, "shown"))
                continue
            subproofs = node.children if children is None else children(node)
            if node is not root and (id(node) in numbers or (
                    depth >= MAX_DEPTH and (subproofs or node.bindings))):
                if id(node) not in numbers:
                    numbers[id(node)] = len(numbers) + 1
                    queue.append(node)
                items.append((depth, node, numbers[id(node)]))
                continue
            shown.add(id(node))
            items.append((depth, node, None))
            extra = []
            shown_bindings = [(k, v) for k, v in sorted(node.bindings.items())
                              if keep_binding is None or keep_binding(k, v)]
            if shown_bindings:
                extra.append("with " + ", ".join(f"{k} = {value_text(v)}" for k, v in shown_bindings))
            extra += [f"absent: !{a}" for a in node.absent]
            extra += [f"builtin: {b}" for b in node.builtins if keep_builtin is None or keep_builtin(b)]
            stack.extend(reversed([(e, depth + 1) for e in extra] + [(c, depth + 1) for c in subproofs]))
        yield number, root, items


def prove(db, rel: str, tup: tuple, check=None) -> Proof:
    """The proof of a tuple known to be in ``db`` (evaluated with provenance); ``check`` is
    called once per fact of the proof (the evaluation's limits)."""
    memo: Dict[tuple, Proof] = {}
    root = memo[(rel, tup)] = Proof(rel, tup)
    todo = [root]
    while todo:
        if check is not None:
            check()
        node = todo.pop()
        for child in _expand(db, node):
            key = (child.relation, child.tuple)
            if key in memo:
                node.children.append(memo[key])
            else:
                memo[key] = child
                node.children.append(child)
                todo.append(child)
    return root


def _expand(db, node: Proof) -> List[Proof]:
    prov = db._prov
    ri, height = prov[node.relation][node.tuple]
    if ri is None:
        node.span = db.spans.get((node.relation, node.tuple))
        return []
    engine = db.engine
    rule = engine.rules[ri]
    node.rule, node.span = rule, rule.span
    variant = _why_variant(db, ri)
    args = [_resource(db, key) for key in variant.params]
    best = None
    for env, kept in variant.fn(*args, node.tuple):
        parts = _classify(variant.steps, kept)
        heights = [prov[r][t][1] for kind, r, t, _ in parts if kind == SCAN]
        if any(h >= height for h in heights):
            continue
        key = (max(heights, default=0), [sort_key(t) for kind, r, t, _ in parts if kind == SCAN],
               sort_key(tuple(sorted(env.items()))))
        if best is None or key < best[0]:
            best = (key, env, parts)
    if best is None:
        raise EngineError(f"internal: no well-founded derivation of {node.fact_text}", rule.span)
    _, env, parts = best
    node.bindings = dict(env)
    children = []
    # children in the order the rule's body lists them, not the join order
    order = {id(lit): i for i, lit in enumerate(rule.body)}
    parts.sort(key=lambda part: order.get(id(part[3]), len(order)))
    for kind, what, value, _lit in parts:
        if kind == SCAN:
            children.append(Proof(what, value))
        elif kind == CALL:
            node.builtins.append(atom_text(what, env))
        elif kind == "agg":
            node.builtins.append(f"{term_text(what, env)} = {value_text(value)}")
    for step in variant.steps:
        if step.kind == NEG:
            node.absent.append(literal_text(step.literal.atom, env))
    return children


def _classify(steps, kept) -> list:
    """Pair the generated function's kept values with the literals they belong to."""
    parts, pos = [], 0
    for step in steps:
        for agg in step.aggs:
            parts.append(("agg", agg.node, kept[pos], step.literal))
            pos += 1
        if step.kind == SCAN:
            parts.append((SCAN, step.literal.rel, kept[pos], step.literal))
            pos += 1
        elif step.kind == CALL:
            parts.append((CALL, step.literal, kept[pos], step.literal))
            pos += 1
    return parts


def _why_variant(db, ri: int):
    from analyzer.engine.variants import why_variant

    cache = db.engine._why_variants
    if ri not in cache:
        cache[ri] = why_variant(db.engine.rules[ri], ri, db.engine.builtins)
    return cache[ri]


def _resource(db, key):
    from analyzer.engine.indexes import build_index

    kind = key[0]
    if kind == "F":
        return db._full[key[1]]
    if kind == "I":
        if key not in db._why_cache:
            db._why_cache[key] = build_index(db._full[key[1]], key[2])
        return db._why_cache[key]
    if kind == "B":
        return db.engine.builtins[key[1]].fn
    if kind == "CTX":
        if "ctx" not in db._why_cache:
            from analyzer.engine.evaluate import _Context

            db._why_cache["ctx"] = _Context(db._full)
        return db._why_cache["ctx"]
    raise EngineError(f"internal: unexpected resource {key!r}")
