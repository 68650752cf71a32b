"""Proofs for people: a one-line summary first, then the tree without internal bookkeeping.

The summary names the decisive evidence found in the proof: a touched path matching an
area's glob, the manifest line that routes a module for a task or always, an explicit
request, with the file:line of the fact. The brief tree leaves out what only the engine
needs (ordinal and arithmetic bindings, aggregate steps, the normalization of request
values); ``--verbose`` prints the whole tree. Nothing here decides anything: it reads a
proof the rules produced.
"""

from __future__ import annotations

from typing import Optional


# request plumbing: how a raw --path became a touched path (shown with --verbose)
_PLUMBING = {"path_slashed", "path_norm", "req_path", "req_task", "req_explicit", "explicit_norm"}


def _nodes(proof):
    seen, stack = set(), [proof]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(reversed(node.children))


def _span(node) -> Optional[str]:
    from analyzer.query.why import shipped_relative

    return shipped_relative(str(node.span)).rsplit(":", 1)[0] if node.span else None


def evidence(proof) -> Optional[str]:
    """The decisive evidence of ``proof`` as a phrase with its file:line, or None."""
    nodes = list(_nodes(proof))
    facts = [n for n in nodes if n.rule is None and n.span is not None]
    for node in nodes:
        if node.relation == "path_match" and len(node.tuple) >= 3:
            module, path, glob = node.tuple[:3]
            where = next((_span(f) for f in facts if f.relation == "module_glob"
                          and f.tuple[0] == module and f.tuple[1] == glob), None)
            return f"path {path} matches glob {glob}" + (f" ({where})" if where else "")
    for fact in facts:
        if fact.relation == "route":
            task, _module, mode = fact.tuple[:3]
            how = "listed under Always load" if task == "always" else f"routed for task {task}"
            return f"{how} ({mode}) ({_span(fact)})"
    for node in nodes:
        if node.relation in ("explicit_request", "explicit_match"):
            return "opened explicitly on the command line"
    for fact in facts:
        if fact.relation == "module_decl":
            return f"an optional {fact.tuple[1]} module, activation {fact.tuple[2]} ({_span(fact)})"
    for fact in facts:
        if fact.relation == "module_task":
            return f"its tasks list names {fact.tuple[1]} ({_span(fact)})"
    if facts:
        return f"{facts[0].fact_text} ({_span(facts[0])})"
    return None


def summary(subject: str, proof) -> str:
    """``subject: evidence`` (just ``subject`` when the proof names no evidence)."""
    found = evidence(proof) if proof is not None else None
    return f"{subject}: {found}" if found else subject


def _bookkeeping(node) -> bool:
    """A step only the engine needs: an ordinal chosen by an aggregate (``first_reason_ord``)."""
    from analyzer.engine import ast
    from analyzer.engine.check import iter_aggregates

    if node.rule is None:
        return False
    return any(isinstance(lit, ast.Comparison) and any(iter_aggregates(t) for t in (lit.left, lit.right))
               for lit in node.rule.body)


def _visible(children) -> list:
    """Children to show: request plumbing dropped, bookkeeping steps replaced by their own children."""
    out, todo = [], list(children)
    while todo:
        child = todo.pop(0)
        if child.relation in _PLUMBING:
            continue
        if _bookkeeping(child):
            todo[:0] = list(child.children)
            continue
        out.append(child)
    return out


def render_brief(proof) -> str:
    """The proof tree without bookkeeping: integer bindings, aggregate and arithmetic steps,
    and the request-plumbing subtrees are left out (``--verbose`` shows them)."""
    return proof.render(keep_binding=lambda _name, value: not isinstance(value, int),
                        children=lambda node: _visible(node.children),
                        keep_builtin=lambda text: " : {" not in text and " = " not in text)
