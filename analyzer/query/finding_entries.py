"""The Entry IDs each conflict finding lists, as rules/conflicts/findings.dl states them.

A finding lists its ``conflict_finding_entry`` IDs once each, unless rules state where its IDs
occur (``conflict_finding_occurrence``: a duplicate Entry ID, §9.4); then it lists one ID per
occurrence, as written there. ``read`` and ``check --conflicts`` both show findings this way.
"""

from __future__ import annotations

from typing import Dict, List


def finding_entries(db) -> Dict[str, List[str]]:
    """Finding key -> its Entry IDs (unsorted; one per occurrence where rules list occurrences)."""
    entries: Dict[str, List[str]] = {}
    for key, entry in db.tuples("conflict_finding_entry"):
        entries.setdefault(key, []).append(entry)
    occurrences: Dict[str, List[str]] = {}
    # in file order, so that equal IDs written differently keep one order after a stable sort
    for key, _, _, entry in db.relation("conflict_finding_occurrence"):
        occurrences.setdefault(key, []).append(entry)
    entries.update(occurrences)
    return entries
