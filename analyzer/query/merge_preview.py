"""The result of `subject merge` (spec §9.6): selected from the derived relations of
rules/index/merge.dl, plus the verbatim registry units and the Plan ID.

The Plan ID is the first 16 hex digits of a SHA-256 over a NUL-joined seed: the project_id,
both Subject IDs, then the sorted SHA-256 digests of the manifest, the registry, both
registry units, every referenced entry unit and every listed line, so that any relevant
edit changes it (the reference's exact seed need not be reproduced).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import List

from analyzer.core.span import Span

FUTURE = ("Future semantics: current active/candidate references mutate; source gains Merged-Into; "
          "historical entries retain their original Subject ID.")
APPLY = "Transactional Subject merge apply requires Protocol 0.8."


@dataclass
class SubjectUnit:
    """The source or the target Subject: ID as written, title, verbatim unit, location."""

    id: str
    title: str
    unit: str
    location: Span


@dataclass
class Reference:
    """An entry that references the source Subject."""

    id: str
    source: str
    status: str
    location: Span
    text: str


@dataclass
class Blocker:
    """Something that blocks a future merge, with the entries it is about."""

    message: str
    entries: List[str]
    locations: List[Span]


@dataclass
class MergePreview:
    """Everything the preview prints."""

    status: str
    source: SubjectUnit
    target: SubjectUnit
    current: List[Reference]
    historical: List[Reference]
    reviews: List[str]
    blockers: List[Blocker]
    plan_id: str = ""
    required: List[str] = field(default_factory=list)

    def payload(self) -> dict:
        """The ``subject.merge`` JSON payload."""
        def where(*spans):
            return [{"path": s.path, "line": s.line, "col": s.col} for s in spans]

        def subject(s: SubjectUnit):
            return {"id": s.id, "title": s.title, "unit": s.unit, "locations": where(s.location)}

        def refs(rows: List[Reference]):
            return [{"id": r.id, "source": r.source, "status": r.status, "locations": where(r.location)}
                    for r in rows]

        return {"status": self.status, "exit_code": 0, "source": subject(self.source),
                "target": subject(self.target), "current_references": refs(self.current),
                "historical_references": refs(self.historical), "reviews": self.reviews,
                "required": self.required,
                "blockers": [{"message": b.message, "entries": b.entries, "locations": where(*b.locations)}
                             for b in self.blockers],
                "plan_id": self.plan_id}


def build_preview(ev) -> MergePreview:
    """Select a merge evaluation into a :class:`MergePreview` and compute its Plan ID."""
    subjects = {role: SubjectUnit(shown, title, _unit(ev, "subjects.md", o, "subject"),
                                  ev.locate("subjects.md", o, "subject"))
                for role, _, shown, title, o in ev.relation("merge_subject")}
    units = {(k, m): o for k, m, o in ev.project.facts.relation("entry_unit")}
    located = {}

    def reference(key, shown, module, status):
        o = units.get((key, module), 0)
        located[shown] = ev.locate(module, o, "entry")
        return Reference(shown, module, status or "-", located[shown], _unit(ev, module, o, "entry"))

    current = _sorted(reference(*row) for row in ev.relation("current_reference"))
    historical = _sorted(reference(*row) for row in ev.relation("historical_reference"))
    entries = {}
    for key, shown in ev.relation("merge_blocker_entry"):
        entries.setdefault(key, []).append(shown)
    blockers = []
    for key, message, owners in ev.relation("merge_blocker"):
        ids = sorted(entries.get(key, []), key=lambda i: (i.casefold(), i))
        text = message + ", ".join(ids) if owners else message
        blockers.append(Blocker(text, ids, sorted({located[i] for i in ids if i in located})))
    blockers.sort(key=lambda b: b.message)
    preview = MergePreview(ev.relation("merge_status")[0][0], subjects["source"], subjects["target"], current,
                           historical, [m for (m,) in ev.relation("merge_review")], blockers)
    if current:
        preview.required.append("Future subject-merged reconciliation must cover current references: "
                                + ", ".join(r.id for r in current))
    preview.plan_id = _plan_id(ev, preview)
    return preview


def _sorted(refs) -> List[Reference]:
    return sorted(refs, key=lambda r: (r.id.casefold(), r.source, r.id))


def _unit(ev, module: str, ordinal: int, kind: str) -> str:
    return "\n".join(text for _, text in ev.unit_lines(module, ordinal, kind))


def _plan_id(ev, preview: MergePreview) -> str:
    project_id = ev.relation("merge_project_id")
    parts = [ev.project.text("manifest.md") or "", ev.project.text("subjects.md") or "",
             preview.source.unit, preview.target.unit]
    parts += [r.text for r in preview.current + preview.historical]
    parts += listed_lines(preview)
    digests = sorted(hashlib.sha256(p.encode("utf-8", "surrogatepass")).hexdigest() for p in parts)
    seed = "\0".join([project_id[0][0] if project_id else "", preview.source.id, preview.target.id, *digests])
    return hashlib.sha256(seed.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def listed_lines(preview) -> List[str]:
    """The listed lines of the preview (references, review notes, requirements, blockers):
    the plan ID digests them (:func:`_plan_id`); ``subject merge`` shows the same lines under
    its headings (analyzer/render/subject_text.py)."""
    return [*(reference_line(r) for r in preview.current), *(reference_line(r) for r in preview.historical),
            *(f"- {m}" for m in preview.reviews), *(f"- {m}" for m in preview.required),
            *(f"- {b.message}" for b in preview.blockers)]


def reference_line(ref) -> str:
    """A reference as the preview lists it: ``- <ID> (<source>; <status>)``."""
    return f"- {ref.id} ({ref.source}; {ref.status})"
