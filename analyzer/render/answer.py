"""Rendering query answers: a table with named columns, CSV, and the JSON payload."""

from __future__ import annotations

from typing import List, Sequence


def render_table(columns: Sequence[str], rows: Sequence[tuple]) -> str:
    """Aligned columns under their names, then ``(N tuples)``; a goal without variables
    prints only the count (1 when it holds, 0 when it does not)."""
    out: List[str] = []
    if columns:
        cells = [[str(v) for v in row] for row in rows]
        widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(columns)]
        for row in [list(columns), ["-" * w for w in widths]] + cells:
            out.append("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
    out.append(f"({len(rows)} tuple{'' if len(rows) == 1 else 's'})")
    return "\n".join(out) + "\n"


def write_csv(stream, columns: Sequence[str], rows: Sequence[tuple]) -> None:
    """A header of column names, then one line per row."""
    import csv

    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)


def answer_payload(answer) -> dict:
    """The ``query.result`` document of an answer: rows as objects keyed by column name."""
    payload = {
        "status": "MATCH" if answer.rows else "NO_MATCH",
        "goal": answer.goal, "pattern": answer.goal, "relation": answer.relation,
        "columns": list(answer.columns),
        "rows": [dict(zip(answer.columns, row)) for row in answer.rows],
        "tuples": [list(row) for row in answer.rows],
    }
    if answer.proofs is not None:
        from analyzer.query.why import WhyAnswer

        payload["proofs"] = [WhyAnswer.json_proof(p) for p in answer.proofs]
    if answer.stats is not None:
        payload["profile"] = [s.as_dict() for s in answer.stats if not s.rule.is_fact]
    return payload
