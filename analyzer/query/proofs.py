"""``analyze check --with-proofs``: a proof tree for every finding, from the engine's
provenance (the machinery of ``analyze why``), bounded so that a finding resting on a large
part of the project cannot blow up the output.

A finding's proofs are the proofs of the derived tuples it was selected from: the
``<family>_finding(code, severity, message)`` tuple of a quality check, each
``check_conflict_finding`` tuple a conflict finding merges, ``check_contract_finding`` for a
broken manifest contract, and each tuple of a rule pack's finding relation. At most
:data:`MAX_PROOFS` proofs per finding and :data:`MAX_NODES` nodes per proof are kept; a node
whose subproofs were cut says how many with ``elided``.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable, List, Mapping, Optional, Tuple
from analyzer.query.proof_ids import written_of

MAX_PROOFS = 3  # proofs kept per finding (one per tuple it was selected from)
MAX_NODES = 200  # nodes kept per proof tree (breadth first); the rest is elided
SHIPPED = ("rules/", "facts/")  # how proofs name the shipped rule and fact files


def bounded(proof, written: Optional[Mapping[str, str]] = None) -> Optional[dict]:
    """A :class:`~analyzer.engine.provenance.Proof` as JSON data (``analyze why``'s form, shipped
    files named relative to the package), cut to :data:`MAX_NODES` nodes breadth first (one
    nested tree: continuation sections of a deep proof are put back in place); IDs as
    ``written`` gives them (analyzer/query/proof_ids.py)."""
    if proof is None:
        return None
    from analyzer.query.why import WhyAnswer

    root = WhyAnswer.json_proof(proof, written)
    # a proof deeper than provenance.MAX_DEPTH comes with numbered continuation sections; a
    # tree of at most MAX_NODES nodes needs none, so each is put back where it continues
    sections = {section.pop("number"): section for section in root.pop("continuations", [])}
    kept = 0
    queue = deque([root])
    while queue:
        node = queue.popleft()
        if "continued_at" in node:
            node.update(sections.get(node.pop("continued_at"), {}))
        kept += 1
        children = node.get("children") or []
        room = MAX_NODES - kept - len(queue)
        if len(children) > room:
            node["elided"] = len(children) - max(room, 0)
            children[:] = children[:max(room, 0)]
        queue.extend(children)
    return root


def finding_tuples(family_name: str, finding, db) -> List[Tuple[str, tuple]]:
    """The derived tuples a built-in finding was selected from, in a stable order."""
    from analyzer.query.check_families import FAMILIES

    family = FAMILIES.get(family_name)
    if family is None:
        return []
    if family_name in ("security", "privacy", "hidden-text"):
        from analyzer.query.scans import finding_rows

        return finding_rows(family_name, finding, db)
    if family_name == "conflicts":
        if finding.status is None:  # the contract finding of the conflict block
            return [("check_contract_finding", (finding.code, finding.message))]
        rows = [row for row in db.relation("check_conflict_finding")
                if row[1:] == (finding.code, finding.status, finding.message, finding.subject, finding.facet)]
        return [("check_conflict_finding", row) for row in sorted(rows)]
    if family_name == "legacy":
        from analyzer.query.check_legacy import source_tuples

        return source_tuples(finding, db)
    return [(family.relations[0], (finding.code, finding.severity, finding.message))]


def attach(results: Iterable, db) -> None:
    """Give every finding of the built-in family ``results`` its proofs from ``db`` (an
    evaluation with provenance)."""
    written = written_of(db)
    for result in results:
        for finding in result.findings:
            tuples = finding_tuples(result.name, finding, db)
            finding.proofs = [p for p in (bounded(db.why(rel, row), written) for rel, row in tuples[:MAX_PROOFS])
                              if p is not None]


def fact_locations(proof: dict) -> List[Tuple[str, str, int, int]]:
    """``(fact text, path, line, col)`` of the project facts a proof rests on, in depth-first
    order, each once: the lines behind a finding (for SARIF code flows). Facts written in the
    shipped rule files are left out."""
    out, seen, stack = [], set(), [proof]
    while stack:
        node = stack.pop()
        if node.get("rule") is None and node.get("location") and not node.get("see_above"):
            path, line, col = _split(node["location"])
            if path.startswith(SHIPPED) or path.startswith(("/", "<")):
                stack.extend(reversed(node.get("children") or []))
                continue  # a table of facts in a shipped rule file, not a project line
            text = f"{node['relation']}({', '.join(_value(v) for v in node['tuple'])})"
            if (text, path, line) not in seen:
                seen.add((text, path, line))
                out.append((text, path, line, col))
        stack.extend(reversed(node.get("children") or []))
    return out


def _split(location: str) -> Tuple[str, int, int]:
    path, line, col = location.rsplit(":", 2)
    return path, int(line), int(col)


def _value(value) -> str:
    from analyzer.engine.astfmt import value_text

    return value_text(value)
