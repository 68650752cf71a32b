"""Rule packs: ``.dl`` files of one's own findings, run by ``analyze check --rules PACK.dl``
and unit-tested by ``analyze test`` (docs/rule-packs.md).

A pack is added on top of the built-in relations exactly as ``analyze query --rules`` adds
it (analyzer/query/adhoc.py): it reads any built-in relation, base or derived, and defines
relations of its own; it may not define a built-in relation (DL919), a relation of
rules/check/packs.dl or a relation another pack defines (MA-PACK-COLLISION). Built-in
findings are therefore computed exactly as without packs.

Each finding a pack reports is declared by a ``@code`` block as in rules/check/*.dl, whose
``@relation`` names a relation the pack defines: every tuple of it is one finding. Its
columns named ``entry``, ``subject`` and ``module`` say what the finding is about (and where
it is), ``@message`` is a template over its columns (``{entry}``), and ``@severity`` is
ERROR, WARNING or INFO. The family's status is derived by rules/check/packs.dl.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Sequence, Tuple

from analyzer.core.diagnostics import Diagnostic, DiagnosticError
from analyzer.core.resources import data_file
from analyzer.core.span import Span
from analyzer.project import vocab

FAMILY = "packs"  # the family name of pack findings (JSON key, text block header)
STATUS_FILE = "check/packs.dl"  # under rules/
TAGS = ("code", "kind", "title", "severity", "relation", "message", "help")
REQUIRED = ("code", "title", "severity", "relation")
# MC- codes are the protocol's, MA- and DL codes the analyzer's own (docs/decisions.md)
RESERVED_PREFIXES = ("MC-", "MA-", "DL")
CODE_RE = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\Z")
LOCATING = ("entry", "subject", "module")  # columns that say what a finding is about
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
HEADER = "MA-PACK-HEADER"
CODE = "MA-PACK-CODE"
COLLISION = "MA-PACK-COLLISION"
EMPTY = "MA-PACK-EMPTY"


@dataclass(frozen=True)
class PackCode:
    """One ``@code`` block of a pack: the finding it declares and where."""

    code: str
    title: str
    severity: str
    relation: str
    message: str  # a template over the relation's columns; "" means the title
    explanation: str
    span: Span  # the @code line
    relation_line: int
    message_line: int
    help: str = ""  # @help: an absolute http(s) URL explaining the finding (SARIF helpUri)


@dataclass(frozen=True)
class Pack:
    """A loaded, checked rule pack: its path, text, codes and a digest of every file it reads."""

    path: str
    text: str
    codes: Tuple[PackCode, ...]
    digest: str


@dataclass
class PackSet:
    """The packs of one command line, checked together. ``session(facts)`` builds a query
    session with them added over a project's facts (packs are re-added per project)."""

    packs: List[Pack] = field(default_factory=list)
    use_cache: bool = True
    checked: object = None  # the session the packs were checked in (its added rules are reused)

    def __bool__(self) -> bool:
        return bool(self.packs)

    def key(self) -> bytes:
        """What the check result cache keys pack results on: each pack's path and digest."""
        return b"".join(f"{p.path}\0{p.digest}\0".encode() for p in self.packs)

    def codes(self) -> List[PackCode]:
        """Every declared pack code, in pack order."""
        return [c for p in self.packs for c in p.codes]

    def session(self, facts: Mapping[str, object], spans=None):
        """A session over ``facts`` with rules/check/packs.dl, the packs and their status glue
        (the rules checked once, when the packs were loaded, and shared by every session)."""
        checked = self.checked
        if checked is None:
            checked, _ = _build(self.packs, {}, None, self.use_cache)
            self.checked = checked
        _, session = _world(facts, spans, self.use_cache)
        session.decls, session.rules, session.sources = dict(checked.decls), list(checked.rules), dict(checked.sources)
        return session


def load_packs(paths: Sequence[str], use_cache: bool = True) -> PackSet:
    """Read and check the packs named on a command line; raises DiagnosticError
    (``path:line:col: CODE message``) for the first pack that is wrong."""
    from analyzer.engine.sourcefile import read_text

    packs, problems = [], []
    for path in paths:
        try:
            text = read_text(path)  # regular files only: a FIFO never blocks
        except (OSError, UnicodeDecodeError) as exc:
            raise DiagnosticError([Diagnostic(Span(str(path), 1, 1), "DL017", f"cannot read {str(path)!r}: "
                                              f"{getattr(exc, 'strerror', None) or exc}")]) from None
        codes, wrong = _codes(str(path), text)
        problems += wrong
        packs.append(Pack(str(path), text, tuple(codes), ""))
    # every problem in one pass, as a compiler reports them: the headers' and then the rules'
    # (a wrong header no longer hides the DL errors of the rules below it)
    for step in (lambda: _check_codes(packs), lambda: _build(packs, {}, None, use_cache)):
        try:
            built = step()
        except DiagnosticError as exc:
            problems += exc.diagnostics
    if problems:
        raise DiagnosticError(problems)
    checked, digests = built
    return PackSet([Pack(p.path, p.text, p.codes, digests[i]) for i, p in enumerate(packs)], use_cache, checked)


# ---- the @code blocks -------------------------------------------------------------------


def _codes(path: str, text: str) -> Tuple[List[PackCode], List[Diagnostic]]:
    """The pack's well-formed @code blocks, and a diagnostic for each one that is not."""
    lines = text.splitlines()
    problems: List[Diagnostic] = []
    blocks: List[Dict[str, tuple]] = []
    current = None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped.startswith("///"):
            current = None
            continue
        body = stripped[3:].strip()
        col = line.index("///") + 4 + (len(stripped[3:]) - len(stripped[3:].lstrip()))
        match = re.match(r"@([a-z_]+)\s*(.*)$", body)
        if match and match.group(1) == "code":
            current = {"code": (match.group(2).strip(), number, col), "_start": ("", number, col)}
            blocks.append(current)
        elif current is None:
            continue
        elif match:
            tag, value = match.group(1), match.group(2).strip()
            if tag not in TAGS:
                problems += _at(path, lines, number, col, HEADER, f"unknown tag @{tag} (a pack's @code block "
                                f"has {', '.join('@' + t for t in TAGS)})").diagnostics
            elif tag in current:
                problems += _at(path, lines, number, col, HEADER, f"@{tag} given twice").diagnostics
            else:
                current[tag] = (value, number, col)
        else:
            value, first, start = current.get("_doc", ("", number, col))
            current["_doc"] = ((value + " " + body).strip(), first, start)
    if not blocks:
        problems += _at(path, lines, 1, 1, EMPTY, "the pack declares no finding: add a `/// @code` block "
                        "(docs/rule-packs.md) above the rule deriving it").diagnostics
    codes = []
    for block in blocks:
        try:
            codes.append(_code_of(path, lines, block))
        except DiagnosticError as exc:
            problems += exc.diagnostics
    return codes, problems


def _code_of(path: str, lines: List[str], block: Dict[str, tuple]) -> PackCode:
    """The code one well-formed block declares; raises DiagnosticError at its first problem.
    Tag values with a fixed vocabulary (@kind, @severity) are read in any case."""
    code, number, col = block["code"]
    for tag in REQUIRED:
        if not block.get(tag, ("",))[0]:
            raise _at(path, lines, number, col, HEADER, f"the block of {code or '@code'} has no @{tag}")
    if not CODE_RE.match(code):
        raise _at(path, lines, number, col, CODE, f"{code!r} is not a finding code: write letters and "
                  "digits in dash-separated parts, e.g. ACME-001")
    if code.startswith(RESERVED_PREFIXES):
        raise _at(path, lines, number, col, CODE, f"{code}: MC- codes are the protocol's and MA-/DL codes "
                  "the analyzer's; give pack codes a prefix of your own (e.g. ACME-001)")
    kind = block.get("kind")
    if kind is not None and kind[0].lower() != "finding":
        raise _at(path, lines, kind[1], kind[2], HEADER, f"@kind {kind[0]}: pack codes are findings")
    severity, severities = block["severity"], vocab.severities()
    severity = (severity[0].upper(), *severity[1:]) if severity[0].upper() in severities else severity
    if severity[0] not in severities:
        raise _at(path, lines, severity[1], severity[2], HEADER,
                  f"@severity {severity[0]}: a pack finding is {', '.join(severities)}")
    relation, message = block["relation"], block.get("message", ("", number, col))
    link = block.get("help", ("", number, col))
    if link[0] and not re.match(r"https?://[^\s/]+\S*$", link[0]):
        raise _at(path, lines, link[1], link[2], HEADER, f"@help {link[0]}: give an absolute http(s) URL "
                  "(code scanning opens it; a local path opens nothing there)")
    return PackCode(code, block["title"][0], severity[0], relation[0], message[0],
                    block.get("_doc", ("",))[0], Span(path, number, col), relation[1], message[1], link[0])


def _check_codes(packs: Sequence[Pack]) -> None:
    from analyzer.contract import catalog

    builtin = catalog.load().codes()
    seen: Dict[str, PackCode] = {}
    for pack in packs:
        lines = pack.text.splitlines()
        for code in pack.codes:
            if code.code in builtin:
                raise _at(pack.path, lines, code.span.line, code.span.col, COLLISION,
                          f"{code.code} is a built-in code (`analyze explain {code.code}`)")
            if code.code in seen:
                raise _at(pack.path, lines, code.span.line, code.span.col, COLLISION,
                          f"{code.code} is declared twice (first at {seen[code.code].span})")
            seen[code.code] = code


def _at(path: str, lines: List[str], line: int, col: int, code: str, message: str) -> DiagnosticError:
    source = lines[line - 1] if 0 < line <= len(lines) else None
    return DiagnosticError([Diagnostic(Span(path, line, col), code, message, source_line=source)])


# ---- adding packs to a session ----------------------------------------------------------


def _build(packs: Sequence[Pack], facts, spans, use_cache: bool):
    """``(session, digests)``: the built-in world over ``facts`` with rules/check/packs.dl,
    each pack and the status glue added; checks every rule on the way."""
    _, session = _world(facts, spans, use_cache)
    status = data_file("rules", STATUS_FILE)
    owners = {rel: f"rules/{STATUS_FILE}" for rel in _heads(session, status.read_text(encoding="utf-8"), str(status))}
    digests = []
    # every pack at once: a pack's rule may use a relation a later pack (or rule) defines
    parsed = session.add_all([(pack.text, pack.path) for pack in packs]) if packs else []
    for pack, (rules, _decls, sources) in zip(packs, parsed):
        defined = {}
        for rule in rules:
            defined.setdefault(rule.head.rel, rule)
        for rel, rule in defined.items():
            if rel in owners:
                raise _error_at(rule.head.span, COLLISION, f"{rel} is defined by {owners[rel]}; a pack defines "
                                "relations of its own (give this one another name)", session.sources)
        owners.update({rel: pack.path for rel in defined})
        lines = pack.text.splitlines()
        glue = []
        for code in pack.codes:
            if code.relation not in defined:
                raise _at(pack.path, lines, code.relation_line, 1, HEADER,
                          f"@relation {code.relation}: no rule of this pack derives it")
            columns = [c.name for c in session.decl(code.relation).columns]
            for name in PLACEHOLDER.findall(code.message):
                if name not in columns:
                    raise _at(pack.path, lines, code.message_line, 1, HEADER, f"@message names {{{name}}}, which is "
                              f"not a column of {code.relation} ({', '.join(columns)})")
            glue.append(f'pack_fired("{code.code}", "{code.severity}") :- '
                        f'{code.relation}({", ".join("_" for _ in columns)}).')
        before = len(session.sources)
        session.add("\n".join(glue), f"<glue of {pack.path}>")
        new = sorted(list(sources.items()) + list(session.sources.items())[before:])
        digests.append(hashlib.sha256(repr(new).encode()).hexdigest())
    return session, digests


def _world(facts, spans, use_cache: bool):
    """``(world session, top session)``: the built-in world of ``analyze query --project-root``
    over ``facts``, with no read request. The check program answers first (a relation both
    programs declare is derived by the same rule files in both), so that packs read the very
    evaluation the built-in families were selected from; rules/query.dl answers the rest."""
    from analyzer.query.adhoc import Session
    from analyzer.query.world import OTHER_REQUESTS, REQUEST_RELATIONS, check_engine, world_engine

    # check has no read request: a pack reading a request relation is an error, never empty
    hints = dict(OTHER_REQUESTS)
    hints.update({rel: "`analyze check` has no read request; ask request-dependent relations with "
                  "`analyze query --task`" for rel in REQUEST_RELATIONS})
    world = Session(world_engine(use_cache), facts, spans=spans, request_hints=hints)
    return world, Session(check_engine(use_cache), facts, spans=spans, request_hints=hints, others=[world])


def _heads(session, text: str, path: str):
    """Add ``text`` to ``session``; the relations its rules define, each with its first rule."""
    count = len(session.rules)
    session.add(text, path)
    defined = {}
    for rule in session.rules[count:]:
        defined.setdefault(rule.head.rel, rule)
    return defined


def _error_at(span, code, message, sources):
    from analyzer.query.adhoc import _error

    return _error(span, code, message, sources)


# ---- evaluating -------------------------------------------------------------------------


def message_of(code: PackCode, columns: Sequence[str], row: tuple) -> str:
    """The message of one finding tuple: the ``@message`` template filled from its columns,
    else its ``message`` column, else the code's title."""
    values = {name: str(value) for name, value in zip(columns, row)}
    if code.message:
        return PLACEHOLDER.sub(lambda m: values[m.group(1)], code.message)
    return values.get("message", code.title)


def evaluate(packs: PackSet, facts, locate, check_db=None, proofs: bool = False, covered=()):
    """The pack family's :class:`~analyzer.contract.check_model.FamilyResult` over ``facts``
    (``check_db``: the built-in check evaluation, reused for the relations ``covered``: those
    it evaluated or was given the facts of)."""
    from analyzer.contract.check_model import FamilyResult
    from analyzer.contract.results import Finding

    session = packs.session(facts, spans=locate.project.facts.spans if proofs else None)
    if check_db is not None:
        session.reuse(check_db, covered)
    grouped: Dict[Tuple[str, str, str], dict] = {}
    for code in packs.codes():
        answer = session.ask(f"{code.relation}({', '.join('_' for _ in session.decl(code.relation).columns)})",
                             provenance=proofs)
        for i, row in enumerate(answer.rows):
            message = message_of(code, answer.columns, row)
            slot = grouped.setdefault((code.severity, code.code, message), {k: set() for k in LOCATING})
            slot.setdefault("proofs", [])
            if answer.proofs is not None and answer.proofs[i] is not None:
                # the goal's proof has one child: the proof of the finding tuple itself
                slot["proofs"].append(answer.proofs[i].children[0])
            for name, value in zip(answer.columns, row):
                if name in LOCATING:
                    slot[name].add(str(value))
    findings = []
    for (severity, code, message), about in sorted(grouped.items()):
        where = []
        entries = sorted(about["entry"], key=str.casefold)
        for entry in entries:
            where += locate.entry(entry)
        for subject in sorted(about["subject"]):
            where += locate.subject(subject)
        for module in sorted(about["module"]):
            where += locate.module(module)
        finding = Finding(code, FAMILY, message, severity=severity, entries=entries,
                               subject=",".join(sorted(about["subject"])), locations=sorted(set(where)))
        if proofs:
            from analyzer.query.proofs import MAX_PROOFS, bounded

            finding.proofs = [bounded(p) for p in about["proofs"][:MAX_PROOFS]]
        findings.append(finding)
    (status, exit_code), = session.ask("pack_status(S, X)").rows
    declared = {c.code: (c.title, c.explanation, c.severity, c.help) for c in packs.codes()}
    return FamilyResult(FAMILY, "quality", status, exit_code, findings, [FAMILY], declared)


def check_relations(packs: PackSet) -> List[str]:
    """The relations of the built-in check program the packs read (evaluated with the
    families, so the packs reuse that evaluation)."""
    session = packs.session({})  # (cheap: the packs' rules were checked at load time)
    body = {atom.rel for rule in session.rules for lit in rule.body for atom in _atoms_of(lit)}
    from analyzer.engine.builtins import BUILTINS

    # a builtin call (concat, to_string, ...) is an atom of the body too, but no relation
    return sorted(rel for rel in body
                  if rel not in session.decls and rel not in BUILTINS and session.owner(rel) is session)


def _atoms_of(literal):
    from analyzer.engine.check import iter_atoms

    return [atom for atom, _neg, _depth in iter_atoms((literal,))]
