"""Proof trees show IDs as written (issue 25): the fact base keys Entry, Subject and record IDs
casefolded (facts/schema.dl), so the engine's proofs hold ``mc-con-…``; every place that prints
a proof (``analyze why``, ``read --why``, ``query --why``, ``check --with-proofs``) passes its
text through :func:`as_written`, which puts back each ID as its file writes it
(``entry_display``, ``subject_display``, ``rec_display``: analyzer/query/constants.py).

Only a whole quoted value is replaced (``"mc-con-…"`` in text, also ``\\"mc-con-…\\"`` inside a
JSON string), so a path or a message that merely contains an ID keeps its bytes.
"""

from __future__ import annotations

import re
from typing import Dict, Mapping
from analyzer.query.constants import WRITTEN, written_ids

#: a casefolded protocol ID standing alone between quotes (a JSON-escaped quote closes it too)
QUOTED_ID = re.compile(r'(?<=")(mc-[a-z]+-\d{8}-[0-9a-f]{8})(?=\\?")')


def as_written(text: str, written: Mapping[str, str]) -> str:
    """``text`` with every quoted casefolded ID that ``written`` knows in its written form."""
    if not written or "mc-" not in text:
        return text
    return QUOTED_ID.sub(lambda m: written.get(m.group(1), m.group(1)), text)


def written_of(db) -> Dict[str, str]:
    """Casefolded ID -> ID as written, from an evaluation ``db`` (empty when it holds none)."""
    return written_ids({rel: db.relation(rel) for rel in WRITTEN if db.evaluated(rel)})
