"""reconciliations.md -> record facts and per-record issues (spec §7.1).

Consistency with entries and Subjects (§7.2) needs the whole project and is left to rules.
"""

from __future__ import annotations

from functools import lru_cache

from analyzer.project.extract.blocks import BlockReader, common_problems, read_blocks, report
from analyzer.project.extract.entry_rules import classify_evidence
from analyzer.project.extract.judge import entry_vocabulary
from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.sink import Sink

RESOLUTIONS = ("distinct", "superseded", "exception", "subject-merged")


@lru_cache(maxsize=None)
def _reader() -> BlockReader:
    return BlockReader("reconciliations", "REC_HEADING", ("Status", "Resolution"), ("Entries", "Evidence"),
                       "rec_issue", "reconciliation")


def extract_records(text: str, module: str, sink: Sink) -> None:
    """Extract every reconciliation record of ``reconciliations.md`` into ``sink``."""
    id_re = terminal("entries", "ENTRY_ID")
    for block in read_blocks(text, module, sink, _reader()):
        shown = block.heading.group("id")
        rid = shown.casefold()
        status, resolution = block.one("Status"), block.one("Resolution")
        line = block.line
        sink.fact("rec", rid, status, resolution, block.heading.group("title"), line=line)
        sink.fact("rec_unit", rid, block.ordinal, line=line)
        sink.fact("rec_display", rid, shown, line=line)
        problems = common_problems(block, ("Status", "Resolution"), ("Entries", "Evidence"))
        if status and status != "active":
            problems.append((f"has invalid Status {status!r}", line))
        if resolution and resolution not in RESOLUTIONS:
            problems.append((f"has invalid Resolution {resolution!r}", line))
        entries = [(v, ln) for v, ln in block.items.get("Entries", []) if v]
        for k, (value, ln) in enumerate(entries, 1):
            sink.fact("rec_entry", rid, value.casefold(), k, line=ln, col=3)
            if not id_re.fullmatch(value):
                problems.append((f"has invalid Entry ID {value!r}", ln))
        keys = [v.casefold() for v, _ in entries]
        if len(keys) < 2:
            problems.append(("must list at least two Entry IDs", line))
        elif len(set(keys)) != len(keys):
            problems.append(("lists an Entry ID more than once", line))
        elif keys != sorted(keys):
            problems.append(("must list Entries in canonical (case-insensitive ascending) order", line))
        evidence = [(v, ln) for v, ln in block.items.get("Evidence", []) if v]
        for k, (item, ln) in enumerate(evidence, 1):
            sink.fact("rec_evidence", rid, item, k, line=ln, col=3)
        kinds = [classify_evidence(item)[0] for item, _ in evidence]
        refused = ("invalid",) + entry_vocabulary("candidate_only_evidence")  # rules/entries/fields.dl
        if not kinds or any(k in refused for k in kinds):
            problems.append(("Evidence is missing or invalid", line))
        report(sink, "rec_issue", rid, shown, problems)
