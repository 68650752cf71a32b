"""What can be asked: every relation of the built-in program (rules/query.dl), base and
derived, with columns, types, ``///`` doc comments and the file:line that defines it.

``analyze schema`` prints it and docs/relations.md is generated from it (derived relations;
docs/facts.md documents the base ones), so the command and the page never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

BASE, REQUEST, DERIVED = "base", "request", "derived"
_REQUEST_FILES = ("facts/request.dl", "facts/index_request.dl")


@dataclass
class RelationInfo:
    """One queryable relation."""

    name: str
    kind: str  # base | request | derived
    columns: List[Tuple[str, str, str]]  # (name, type, doc)
    doc: str
    location: str  # shipped-relative file:line of the .decl
    rules: List[str] = field(default_factory=list)  # file:line of each rule deriving it
    uses: List[str] = field(default_factory=list)  # relations its rules read

    @property
    def file(self) -> str:
        """The defining file (shipped-relative), without the line."""
        return self.location.rsplit(":", 1)[0]

    @property
    def signature(self) -> str:
        """``name(col: type, ...)``."""
        return f"{self.name}({', '.join(f'{c}: {t}' for c, t, _ in self.columns)})"

    def as_dict(self) -> dict:
        """JSON-ready form."""
        return {"name": self.name, "kind": self.kind, "doc": self.doc, "location": self.location,
                "columns": [{"name": c, "type": t, "doc": d} for c, t, d in self.columns],
                "rules": list(self.rules), "uses": list(self.uses)}


def _where(span) -> str:
    from analyzer.query.why import shipped_relative

    return shipped_relative(f"{span.path}:{span.line}") if span else "?"


def catalogue(programs=None) -> Dict[str, RelationInfo]:
    """Every declared relation of ``programs`` (a program or a list in priority order; default:
    the built-in world, rules/query.dl and rules/check/check.dl) by name."""
    if programs is None:
        from analyzer.query.world import world_programs

        programs = world_programs()
    if not isinstance(programs, (list, tuple)):
        programs = [programs]
    out: Dict[str, RelationInfo] = {}
    for program in reversed(programs):
        out.update(_catalogue(program))
    return out


def _catalogue(program) -> Dict[str, RelationInfo]:
    from analyzer.engine.check import iter_atoms

    out: Dict[str, RelationInfo] = {}
    for name, decl in program.decls.items():
        location = _where(decl.span)
        kind = REQUEST if location.rsplit(":", 1)[0] in _REQUEST_FILES else BASE
        out[name] = RelationInfo(name, kind, [(c.name, c.type, " ".join(c.doc.split())) for c in decl.columns],
                                 decl.doc, location)
    for rule in program.rules:
        info = out.get(rule.head.rel)
        if info is None:
            continue
        info.kind = DERIVED
        where = _where(rule.span)
        # a table of facts in a rule file is listed once per file, at its first fact
        if rule.is_fact and any(r.rsplit(":", 1)[0] == where.rsplit(":", 1)[0] for r in info.rules):
            continue
        info.rules.append(where)
        for atom, _neg, _depth in iter_atoms(rule.body):
            if atom.rel in program.decls and atom.rel not in info.uses:
                info.uses.append(atom.rel)
    for info in out.values():
        info.uses.sort()
    return out


def select(relations: Dict[str, RelationInfo], derived_only: bool = False) -> List[RelationInfo]:
    """Relations in the order they are listed: base, request, derived; by name within each."""
    order = {BASE: 0, REQUEST: 1, DERIVED: 2}
    chosen = [r for r in relations.values() if not derived_only or r.kind == DERIVED]
    return sorted(chosen, key=lambda r: (order[r.kind], r.name))


def render_list(infos: List[RelationInfo]) -> str:
    """One line per relation: kind, signature, location, first doc line."""
    lines = []
    for info in infos:
        first = info.doc.splitlines()[0] if info.doc else "(undocumented)"
        lines.append(f"{info.kind:<8} {info.signature}  [{info.location}]  {first}")
    return "\n".join(lines) + "\n"


def render_relation(info: RelationInfo) -> str:
    """Everything about one relation: signature, doc, columns, where it is defined and derived."""
    out = [f"{info.signature}  ({info.kind})", f"  declared at {info.location}"]
    if info.doc:
        out += ["  " + line for line in info.doc.splitlines()]
    out.append("  columns:")
    out += [f"    {c}: {t}{(' - ' + d) if d else ''}" for c, t, d in info.columns]
    if info.rules:
        out.append("  derived by rules at: " + ", ".join(info.rules))
        out.append("  reads: " + ", ".join(info.uses))
    elif info.kind == REQUEST:
        out.append("  holds the request: `analyze query` fills it from --task/--path/--rule/--profile/--area")
    else:
        out.append("  base relation: facts extracted from the project (`analyze facts` dumps them)")
    return "\n".join(out) + "\n"


def relations_doc(programs=None) -> str:
    """docs/relations.md: every derived relation, grouped by the rule file that declares it."""
    infos = [r for r in select(catalogue(programs), derived_only=True)]
    out = ["# Derived relations (what the rules compute)", "",
           "<!-- generated by `python -m analyzer.dev.gendocs` from the `///` comments of rules/**/*.dl;"
           " do not edit by hand -->", "",
           "Every relation the shipped rules derive, with its columns and the rules that derive it. Each",
           "can be asked directly: `analyze query --project-root DIR 'relation(X, Y)'` (add the read request,",
           "`--task`, `--path`, ..., for relations that depend on it), and `analyze schema NAME` prints the",
           "same entry. Base relations (extracted facts) are in [facts.md](facts.md).", ""]
    by_file: Dict[str, List[RelationInfo]] = {}
    for info in infos:
        by_file.setdefault(info.file, []).append(info)
    for path in sorted(by_file):
        out += [f"## {path}", ""]
        for info in sorted(by_file[path], key=lambda r: int(r.location.rsplit(":", 1)[1])):
            out += [f"### `{info.signature}`", "", " ".join(info.doc.split()) or "(undocumented)", ""]
            out += [f"- `{c}` ({t}){(': ' + d) if d else ''}" for c, t, d in info.columns]
            lines = ", ".join(r.rsplit(":", 1)[1] for r in info.rules if r.rsplit(":", 1)[0] == path)
            others = [r for r in info.rules if r.rsplit(":", 1)[0] != path]
            derived = f"lines {lines}" if lines else ""
            if others:
                derived = ", ".join(filter(None, [derived, *others]))
            out += ["", f"Declared at line {info.location.rsplit(':', 1)[1]}; derived by rules at {derived}; "
                        f"reads {', '.join(f'`{u}`' for u in info.uses)}.", ""]
    return "\n".join(out)


def nearest_relation(name: str, relations) -> Optional[str]:
    """The relation name closest to ``name`` (shared with the query errors)."""
    from analyzer.query.adhoc import nearest

    return nearest(name, relations)
