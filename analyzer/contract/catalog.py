"""The code catalogue: every finding and reason code declared in rules/*.dl, and where it is used.

A rule file declares each code it produces in a ``///`` block of tagged lines (the convention
is in docs/findings.md's header and the rule-file notes)::

    /// @code MC-SKIP-TASK-MISMATCH
    /// @kind reason
    /// @title A task-routed rule was skipped because the task is not in its tasks list
    /// @severity none
    /// @relation skip_reason
    /// Free explanation text until the end of the block.

The catalogue links a code to its rule file and relation by name, never by line number, so
editing a rule file does not churn the docs. Fixtures are the test files that mention the
code, plus the code's firing-corpus folder ``tests/corpus/<CODE>`` (named after the code, so
value codes such as COMPLETE have fixtures too). ``docs/findings.md`` and ``analyze explain CODE`` both render :func:`render_entry`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

from analyzer.core.fingerprint import SHIPPED
from analyzer.core.resources import data_dir
from analyzer.project import vocab

TAGS = ("code", "kind", "title", "severity", "relation", "fix", "messages")
REQUIRED_TAGS = ("code", "kind", "title", "relation")
KINDS = ("reason", "finding", "completeness", "status", "reserved")
# Reserved codes are protocol codes no rule derives yet (they belong to the unbuilt `check`
# command). They are declared only in this metadata-only file, with ``@relation none``, so the
# catalogue can name them while showing they are not implemented.
RESERVED, RESERVED_FILE, NO_RELATION = "reserved", "rules/reserved.dl", "none"
# MC- codes are the protocol's; MA- findings are ours (e.g. MA-AUTONOMY-001, rules/autonomy/)
CODE_RE = re.compile(r"M[CA]-[A-Z0-9]+(?:-[A-Z0-9]+)+")
# completeness and status values (COMPLETE, CLEAR, …) are declared like codes, keyed by kind too
VALUE_KINDS = ("completeness", "status")
VALUE_RE = re.compile(r"[A-Z][A-Z0-9_-]*")
_MENTION_RE = re.compile(r"(?<![A-Za-z0-9_-])MC-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?:-\*)?")
CATALOGUE_DOC = "docs/findings.md"
CORPUS_DIR = "tests/corpus"
_TEXT_SUFFIXES = {"", ".md", ".py", ".dl", ".json", ".jsonl", ".txt", ".toml", ".lark", ".facts", ".cfg", ".yml"}


@dataclass(frozen=True)
class CodeEntry:
    """One declared code with its metadata and the files that mention it in tests/."""

    code: str
    kind: str
    title: str
    severity: str
    relation: str
    rule_file: str
    explanation: str
    fixtures: Tuple[str, ...] = ()
    fix: str = ""  # what to do about it (`@fix`): every protocol code has one
    messages: str = ""  # the rule files that word the messages the code reports (`@messages`), when others

    @property
    def reserved(self) -> bool:
        """True for a protocol code that no rule derives yet (declared in rules/reserved.dl)."""
        return self.kind == RESERVED


@dataclass
class Catalogue:
    """Every declared code (sorted) and the problems found while reading the declarations."""

    entries: List[CodeEntry] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)

    def find(self, code: str) -> List[CodeEntry]:
        """The entries declaring ``code`` (a value such as INVALID may exist once per kind)."""
        return [entry for entry in self.entries if entry.code == code]

    def codes(self) -> Set[str]:
        """The set of declared codes (implemented and reserved)."""
        return {e.code for e in self.entries}

    def reserved_codes(self) -> Set[str]:
        """The declared codes that no rule derives yet."""
        return {e.code for e in self.entries if e.reserved}


def rule_files(locate: Callable[[str], Path] = data_dir) -> List[Tuple[str, Path]]:
    """The shipped rule files as (``rules/<relative>``, path), sorted."""
    base = locate("rules")
    found = {f"rules/{p.relative_to(base).as_posix()}": p
             for pattern in SHIPPED["rules"] for p in base.glob(pattern) if p.is_file()} if base.is_dir() else {}
    return sorted(found.items())


def parse_blocks(rel: str, text: str) -> Tuple[List[Dict[str, str]], List[str]]:
    """The ``@code`` blocks of one rule file as tag dicts (``explanation`` included), and problems."""
    blocks, problems, current = [], [], None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped.startswith("///"):
            current = None  # a block ends at the first line that is not a /// comment
            continue
        body = stripped[3:].strip()
        match = re.match(r"@([a-z_]+)\s*(.*)$", body)
        if match and match.group(1) == "code":
            current = {"code": match.group(2).strip(), "explanation": "", "_where": f"{rel}:{number}"}
            blocks.append(current)
        elif current is None:
            continue  # an ordinary doc comment attached to a declaration or rule
        elif match:
            tag, value = match.group(1), match.group(2).strip()
            if tag not in TAGS:
                problems.append(f"{rel}:{number}: unknown tag @{tag} in the block of {current['code']}")
            elif tag in current:
                problems.append(f"{rel}:{number}: @{tag} given twice for {current['code']}")
            else:
                current[tag] = value
        else:
            current["explanation"] = (current["explanation"] + " " + body).strip()
    return blocks, problems


def load(locate: Callable[[str], Path] = data_dir, root: Optional[Path] = None) -> Catalogue:
    """Read every rule file's code blocks; with a source ``root``, also find fixtures in tests/."""
    catalogue, seen = Catalogue(), {}
    fixtures = mentions(root, ("tests",)) if root is not None else {}
    for code, folder in (corpus_folders(root) if root is not None else {}).items():
        fixtures.setdefault(code, set()).add(folder)
    for rel, path in rule_files(locate):
        text = path.read_text(encoding="utf-8")
        blocks, problems = parse_blocks(rel, text)
        catalogue.problems.extend(problems)
        for block in blocks:
            problems = _check_block(block, text, seen)
            catalogue.problems.extend(problems)
            code, key = block["code"], _key(block)
            if key in seen or not _valid_code(block):
                continue
            seen[key] = block["_where"]
            catalogue.entries.append(CodeEntry(
                code, block.get("kind", ""), block.get("title", ""), block.get("severity", "none"),
                block.get("relation", ""), rel, block["explanation"], tuple(sorted(fixtures.get(code, ()))),
                block.get("fix", ""), block.get("messages", "")))
    catalogue.entries.sort(key=lambda e: (e.code, e.kind))
    return catalogue


def _key(block: Dict[str, str]) -> Tuple[str, str]:
    kind = block.get("kind", "")
    return block["code"], kind if kind in VALUE_KINDS else ""


def _valid_code(block: Dict[str, str]) -> bool:
    pattern = VALUE_RE if block.get("kind") in VALUE_KINDS else CODE_RE
    return bool(pattern.fullmatch(block["code"]))


def severity_words() -> Tuple[str, ...]:
    """The words a code's ``@severity`` may hold: ``none``, a finding severity, or a conflict
    status (rules/vocab/)."""
    return ("none",) + vocab.severities() + vocab.statuses()


def _check_block(block: Dict[str, str], text: str, seen: Dict[Tuple[str, str], str]) -> List[str]:
    where, code, problems = block["_where"], block["code"], []
    if not _valid_code(block):
        return [f"{where}: {code!r} is not a code (MC-<FAMILY>-<NAME> or MA-<FAMILY>-<NAME> in upper case; "
                f"kinds {', '.join(VALUE_KINDS)} take an upper-case value such as COMPLETE)"]
    if _key(block) in seen:
        return [f"{where}: {code} is already declared at {seen[_key(block)]}; one code, one rule file"]
    problems += [f"{where}: {code} has no @{tag}" for tag in REQUIRED_TAGS if not block.get(tag)]
    if block.get("kind") and block["kind"] not in KINDS:
        problems.append(f"{where}: {code} has @kind {block['kind']!r}; expected one of {', '.join(KINDS)}")
    severities = severity_words()
    if block.get("severity", "none") not in severities:
        problems.append(f"{where}: {code} has @severity {block['severity']!r}; expected one of {', '.join(severities)}")
    relation, rel = block.get("relation"), where.rsplit(":", 1)[0]
    if (block.get("kind") == RESERVED) != (rel == RESERVED_FILE):
        return problems + [f"{where}: {code}: reserved codes are declared in {RESERVED_FILE}, "
                           f"and that file declares only reserved codes"]
    if block.get("kind") == RESERVED:
        if relation != NO_RELATION:
            problems.append(f"{where}: {code} is reserved, so its @relation must be {NO_RELATION!r}")
        return problems
    # the relation must be defined in this file (a rule head or a .decl), outside comments
    code_text = _code_text(text)
    if relation and not re.search(rf"(?<![\w.]){re.escape(relation)}\s*\(", code_text):
        problems.append(f"{where}: {code} names relation {relation!r}, which this file does not define")
    return problems


def _code_text(text: str) -> str:
    # the file without its comments: what the engine would read
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def reserved_problems(catalogue: Catalogue, locate: Callable[[str], Path] = data_dir) -> List[str]:
    """Ways a reserved code is in fact implemented: rules in rules/reserved.dl, or a rule using it."""
    reserved, problems = catalogue.reserved_codes(), []
    for rel, path in rule_files(locate):
        code_text = _code_text(path.read_text(encoding="utf-8"))
        if rel == RESERVED_FILE and code_text.strip():
            problems.append(f"{rel}: holds declarations or rules; it must be metadata only")
        problems += [f"{rel}: derives reserved code {code} (move its block here from {RESERVED_FILE})"
                     for code in sorted(reserved) if f'"{code}"' in code_text]
    return problems


_STATEMENT_END = re.compile(r"\.[ \t]*(?:\n|$)")
_LITERAL_CODE = re.compile(r'"(MC-[A-Z0-9]+(?:-[A-Z0-9]+)*)"')


def producer_problems(catalogue: Catalogue, locate: Callable[[str], Path] = data_dir) -> List[str]:
    """MC- codes produced (in a rule head or fact) by a file other than the one declaring them:
    one code, one rule file. Bodies may read any code (e.g. to pick the displayed reason)."""
    owner = {e.code: e.rule_file for e in catalogue.entries}
    problems = []
    for rel, path in rule_files(locate):
        for statement in _STATEMENT_END.split(_code_text(path.read_text(encoding="utf-8"))):
            statement = statement.strip()
            if not statement or statement.startswith("."):
                continue
            head = statement.split(":-", 1)[0]
            for code in sorted(set(_LITERAL_CODE.findall(head))):
                if owner.get(code) != rel:
                    where = f"declared in {owner[code]}" if code in owner else "declared nowhere"
                    problems.append(f"{rel}: produces {code} ({where})")
    return sorted(set(problems))


def mentions(root: Path, folders: Iterable[str] = ("docs", "tests")) -> Dict[str, Set[str]]:
    """Code mentions in the text files under ``root/<folder>``: code (or ``PREFIX-*``) -> files."""
    found: Dict[str, Set[str]] = {}
    for folder in folders:
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix not in _TEXT_SUFFIXES:
                continue
            rel = path.relative_to(root).as_posix()
            if rel == CATALOGUE_DOC:
                continue  # the generated catalogue lists every code; it is not a mention
            for code in codes_in(path.read_text(encoding="utf-8", errors="replace")):
                found.setdefault(code, set()).add(rel)
    return found


def corpus_folders(root: Path) -> Dict[str, str]:
    """Code -> ``tests/corpus/<CODE>`` for every folder of the firing corpus (one per code)."""
    base = root / CORPUS_DIR
    if not base.is_dir():
        return {}
    return {p.name: f"{CORPUS_DIR}/{p.name}" for p in sorted(base.iterdir())
            if p.is_dir() and not p.name.startswith(("_", ".")) and p.name != "__pycache__"}


def codes_in(text: str) -> Set[str]:
    """The finding/reason codes mentioned in ``text`` (IDs and bare family names excluded)."""
    codes = set()
    # entry, subject and record IDs share the MC- prefix but are not codes (spec §5.3, §6, §7)
    id_families = vocab.names("id_family")  # rules/vocab/ids.dl
    for token in _MENTION_RE.findall(text):
        parts = token.split("-")
        if len(parts) < 3 or parts[1].upper() in id_families:
            continue  # "MC-ROUTE" alone is a family name; MC-DEC-… is an entry ID
        if token.endswith("-*") or CODE_RE.fullmatch(token):
            codes.add(token)
    return codes


def missing_codes(found: Dict[str, Set[str]], declared: Set[str]) -> List[str]:
    """``code: files`` for every mentioned code (or ``PREFIX-*`` family) that no rule declares."""
    missing = []
    for code in sorted(found):
        if code.endswith("-*"):
            known = any(d.startswith(code[:-1]) for d in declared)
        else:
            known = code in declared
        if not known:
            missing.append(f"{code}: mentioned in {', '.join(sorted(found[code]))}")
    return missing


def heading(entry: CodeEntry) -> str:
    """The section heading: the code, plus the kind for completeness/status values."""
    return entry.code if entry.code.startswith("MC-") else f"{entry.code} ({entry.kind})"


def _anchor(title: str) -> str:
    # GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens
    return re.sub(r"[^a-z0-9 _-]", "", title.lower()).replace(" ", "-")


def render_entry(entry: CodeEntry, with_fixtures: bool = True) -> str:
    """One code's section, as docs/findings.md and ``analyze explain`` print it."""
    derived = (f"- derived by: nothing yet; reserved in `{entry.rule_file}` (see its explanation)"
               if entry.reserved else
               f"- derived by: `{entry.rule_file}`, relation `{entry.relation}`")
    lines = [
        f"## {heading(entry)}",
        "",
        f"**{entry.title}**",
        "",
        f"- kind: {entry.kind}",
        f"- severity or status: {entry.severity}",
        derived,
    ]
    if entry.messages:
        lines.append("- messages worded by: " + ", ".join(f"`{f}`" for f in entry.messages.split()))
    if with_fixtures:
        shown = ", ".join(f"`{f}`" for f in entry.fixtures) or "none yet"
        lines.append(f"- fixtures: {shown}")
    if entry.explanation:
        lines += ["", entry.explanation]
    if entry.fix:
        lines += ["", f"What to do: {entry.fix}"]
    return "\n".join(lines) + "\n"


def render_findings(catalogue: Catalogue) -> str:
    """docs/findings.md: an index table, then one section per code."""
    out = [
        "# Finding and reason codes",
        "",
        "<!-- generated by `python -m analyzer.dev.gendocs` from the `///` code blocks in rules/*.dl;"
        " do not edit by hand -->",
        "",
        "Each code is declared by exactly one rule file in a `///` block (`@code`, `@kind`, `@title`,",
        "`@severity`, `@relation`, then the explanation). Rule files and relations are named, never",
        "line numbers; where other rule files word the messages a code reports (`@messages`), they",
        "are named too. Fixtures are the test files that mention the code and the code's firing corpus",
        f"`{CORPUS_DIR}/<CODE>` (a case that must produce it and a nearest case that must not).",
        "`analyze explain CODE` prints the same section.",
        "",
        f"Codes of kind `{RESERVED}` are protocol codes that no rule derives yet: they belong to the",
        f"`analyze check` command, which is not built, and are listed (metadata only) in `{RESERVED_FILE}`",
        "so that docs and tests may name them.",
        "",
    ]
    if not catalogue.entries:
        return "\n".join(out + ["No codes are declared yet: no rule file has an `@code` block.", ""])
    reserved = len(catalogue.reserved_codes())
    out += [f"{len(catalogue.entries) - reserved} codes and values are implemented by rules; {reserved} codes are "
            "reserved.", ""]
    out += ["| code | kind | severity or status | title |", "| --- | --- | --- | --- |"]
    out += [f"| [{e.code}](#{_anchor(heading(e))}) | {e.kind} | {e.severity} | {e.title} |"
            for e in catalogue.entries]
    out.append("")
    for entry in catalogue.entries:
        out.append(render_entry(entry))
    return "\n".join(out)
