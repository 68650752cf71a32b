"""Proofs of read results: why a module got its disposition, or why any derived tuple holds.

The proof trees come from the engine's provenance (rule, bindings, body facts down to base
facts with their manifest/file spans, negated atoms shown absent); this module only picks
the tuples to explain and frames them as text or JSON payloads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Tuple

from analyzer.contract.results import Failure
from analyzer.query.proof_ids import as_written, written_of
from analyzer.engine import parse_query
from analyzer.query.constants import read_constants


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass
class WhyAnswer:
    """Proofs selected for one why request."""

    relation: str
    tuples: List[tuple]
    proofs: list = field(default_factory=list)
    titles: List[str] = field(default_factory=list)
    failure: Optional[Failure] = None  # a request that names nothing the project has (MA-USAGE)

    summaries: List[str] = field(default_factory=list)
    warnings: list = field(default_factory=list)  # DL921 near misses of a pattern's constants
    written: Dict[str, str] = field(default_factory=dict)  # casefolded ID -> as written (proof_ids)

    def render(self, verbose: bool = False) -> str:
        """The proofs as indented text, each under its one-line summary (or title); without
        ``verbose`` internal bookkeeping is left out of the trees."""
        from analyzer.query.readable import render_brief

        out: List[str] = []
        for i, (title, proof) in enumerate(zip(self.titles, self.proofs)):
            head = self.summaries[i] if i < len(self.summaries) and self.summaries[i] else title
            tree = proof.render() if verbose else render_brief(proof)
            out += [head, shipped_relative(tree), ""]
        return as_written("\n".join(out).rstrip("\n") + "\n", self.written)

    @staticmethod
    def json_proof(proof, written: Optional[Mapping[str, str]] = None) -> dict:
        """A proof tree as JSON data, with shipped rule files named relative to the package
        and, given ``written`` (casefolded ID -> as written), IDs as their files write them."""
        import json

        return json.loads(as_written(shipped_relative(json.dumps(proof.as_dict())), written or {}))


def shipped_relative(text: str) -> str:
    """Name shipped rule and fact files as ``rules/…``/``facts/…`` wherever they are installed,
    so that proofs read the same from a checkout and from a wheel."""
    from analyzer.core.resources import data_dir

    for kind in ("rules", "facts"):
        text = text.replace(str(data_dir(kind)) + "/", kind + "/")
    return text


OUTSIDE = "not-in-result"  # the disposition shown for a project module the result does not list


def module_proofs(db, module: str) -> WhyAnswer:
    """Proofs of ``module``'s disposition and of its displayed reason; for a module of the
    project that the result does not list (inbox.md, an unrouted file, a route's absent
    file, anything but manifest.md when routing is invalid), proofs of why it is not there
    (``outside_reason``, rules/read/outside.dl)."""
    module = module.replace("\\", "/").strip()
    invalid = bool(db.relation("routing_invalid"))
    relation, reason = ("result_disposition", "result_primary_reason") if invalid else ("disposition", "primary_reason")
    rows = db.query(f"{relation}({_quote(module)}, _)")
    if not rows:
        return _outside_proofs(db, module)
    from analyzer.query.readable import summary

    answer = WhyAnswer(relation, rows, written=written_of(db))
    answer.titles.append(f"{module}: {rows[0][1]}")
    proof = db.why(relation, rows[0])
    answer.proofs.append(proof)
    reasons = db.query(f"{reason}({_quote(module)}, _)")
    subject = f"{module} {rows[0][1]}" + (f" ({reasons[0][1]})" if reasons else "")
    answer.summaries.append(shipped_relative(summary(subject, proof)))
    for row in reasons:
        answer.titles.append(f"Reason {row[1]}:")
        answer.proofs.append(db.why(reason, row))
        answer.summaries.append("")
    return answer


def _outside_proofs(db, module: str) -> WhyAnswer:
    rows = sorted(db.query(f"outside_reason({_quote(module)}, _, _, _)"), key=lambda r: (r[1], r[2], r[3]))
    if not rows:
        known = sorted({m for (m,) in db.relation("project_module")} | {m for m, _ in db.relation("result_disposition")})
        from analyzer.core.hints import did_you_mean

        return WhyAnswer("outside_reason", [], failure=Failure(
            "MA-USAGE", f"the project has no module {module!r} (no managed file, route or declaration names it); "
                        f"modules: {', '.join(known) or 'none'}{did_you_mean(module, known)}"))
    answer = WhyAnswer("outside_reason", [(module, OUTSIDE)] + rows, written=written_of(db))
    answer.titles.append(f"{module}: {OUTSIDE} ({rows[0][2]}: {rows[0][3]})")
    answer.proofs.append(db.why("outside_reason", rows[0]))
    for row in rows[1:]:
        answer.titles.append(f"Also {row[2]}: {row[3]}")
        answer.proofs.append(db.why("outside_reason", row))
    return answer


def pattern_proofs(db, pattern: str) -> WhyAnswer:
    """Proofs of every tuple matching ``pattern`` (e.g. ``skip_reason(_, _)``)."""

    atom = parse_query(pattern)
    # an ID constant matches as the protocol matches IDs (caselessly); near misses are said
    (atom,), warnings = read_constants((atom,), lambda rel, k: _column(db, rel, k), {"<query>": pattern})
    rows = db.query(atom)
    answer = WhyAnswer(atom.rel, rows, warnings=warnings, written=written_of(db))
    from analyzer.query.readable import summary

    for row in rows:
        answer.titles.append(f"{atom.rel}{_show(row)}:")
        proof = db.why(atom.rel, row)
        answer.proofs.append(proof)
        answer.summaries.append(shipped_relative(summary(f"{atom.rel}{_show(row)} holds", proof)))
    return answer


def _column(db, rel: str, k: int):
    """The values of column ``k`` of ``rel`` in ``db`` (None when ``db`` does not hold it)."""
    if not db.evaluated(rel):
        return None
    return {row[k] for row in db.tuples(rel) if k < len(row)}


def _show(row: Tuple) -> str:
    return "(" + ", ".join(_quote(v) if isinstance(v, str) else str(v) for v in row) + ")"
