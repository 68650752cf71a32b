"""Proofs of read results: why a module got its disposition, or why any derived tuple holds.

The proof trees come from the engine's provenance (rule, bindings, body facts down to base
facts with their manifest/file spans, negated atoms shown absent); this module only picks
the tuples to explain and frames the text.
"""

from __future__ import annotations

from typing import List, Tuple

from analyzer import exitcodes


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def disposition_proof(db, module: str) -> Tuple[str, int]:
    """Text explaining ``module``'s disposition and displayed reason, and an exit status."""
    rows = db.query(f"disposition({_quote(module)}, _)")
    if not rows:
        known = ", ".join(m for m, _ in db.relation("disposition")) or "none"
        return f"analyze read: module {module!r} is not part of this result (modules: {known})\n", exitcodes.INVALID
    out: List[str] = [f"{module}: {rows[0][1]}", ""]
    out.append(db.why("disposition", rows[0]).render())
    for row in db.query(f"primary_reason({_quote(module)}, _)"):
        out += ["", f"Reason {row[1]}:", db.why("primary_reason", row).render()]
    return "\n".join(out).rstrip("\n") + "\n", exitcodes.OK


def pattern_proofs(db, pattern: str) -> Tuple[str, int]:
    """Proof trees of every tuple matching ``pattern`` (e.g. ``skip_reason(_, _)``)."""
    atom = db.parse_pattern(pattern) if hasattr(db, "parse_pattern") else None
    rows = db.query(pattern)
    rel = atom.rel if atom is not None else pattern.split("(", 1)[0].strip()
    if not rows:
        return f"no tuple of {rel} matches {pattern}\n", exitcodes.OK
    out: List[str] = []
    for row in rows:
        proof = db.why(rel, row)
        out.append(proof.render() if proof is not None else f"{rel}{row}: no proof")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n", exitcodes.OK
