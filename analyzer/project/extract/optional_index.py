"""`## Optional module index` of manifest.md -> ``module_*`` facts (spec §4.4, legacy §4.6)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from analyzer.project.extract.grammars import parser, terminal
from analyzer.project import vocab
from analyzer.project.extract.paths import safe_memory_path, valid_glob
from analyzer.project.extract.sink import Sink
from analyzer.project.markdown import Lexed

SUBSECTIONS = {"enabled rules": "rules", "enabled profiles": "profiles", "enabled areas": "areas"}
KEYS = ("activation", "tasks", "paths", "description")
KEY_RE = re.compile(r"^  - ([a-z-]+):\s*(.*)$")
MODULE_RE = re.compile(r"^- `([^`]*)`(.*)$")
ACTIVATIONS = {
    "rules": ("task", "task-or-explicit", "explicit-only"),
    "profiles": ("explicit-only",),
    "areas": ("path", "path-or-explicit", "explicit-only"),
}


@dataclass
class Declaration:
    """One declared optional module while the index is being read."""

    path: str
    folder: str
    line: int  # 0-based
    keys: Dict[str, Tuple[str, int]] = field(default_factory=dict)  # key -> (value, line)
    inline: str = ""


def _module_line(decl_text: str, folder: str, legacy: bool, index: int, seen: Dict[str, int], errors):
    """Validate a module line; returns a Declaration or None."""
    m = MODULE_RE.match(decl_text)
    path, rest = m.group(1).strip(), m.group(2).strip()
    if rest and not legacy:
        errors.add(f"optional module line may not contain inline metadata: {decl_text.strip()}", index)
        return None
    if not safe_memory_path(path) or path.count("/") != 1 or path.split("/")[0] != folder:
        errors.add(f"optional module path does not match {folder}/<name>.md: {path!r}", index)
        return None
    if path.split("/")[1].casefold() == "readme.md":
        errors.add(f"optional module path may not be a README: {path!r}", index)
        return None
    if path in seen:
        errors.add(f"duplicate optional module declaration: {path}", index)
        return None
    seen[path] = index
    inline = rest[1:].strip() if rest.startswith(":") else rest
    return Declaration(path, folder, index, inline=inline)


def _read_subsections(lexed: Lexed, kinds: Dict[int, str], start: int, end: int, errors) -> List[Tuple[str, int, int]]:
    """Find the canonical subsections inside the index; returns (folder, first, end) ranges."""
    found: List[Tuple[str, int, int]] = []
    heads = [h for h in lexed.headings if start < h.index < end]
    first_sub = heads[0].index if heads else end
    for i in range(start + 1, first_sub):
        if kinds.get(i) in ("module_line", "module_key", "sentinel", "protocol_field"):
            errors.add("optional module declaration appears outside a canonical subsection", i)
    seen = set()
    for k, h in enumerate(heads):
        stop = heads[k + 1].index if k + 1 < len(heads) else end
        if h.level != 3:
            continue
        folder = SUBSECTIONS.get(h.title)
        if folder is None:
            errors.add(f"unknown optional module subsection: {h.raw_title}", h.index)
            continue
        if folder in seen:
            errors.add(f"duplicate optional module subsection: {h.raw_title}", h.index)
            continue
        seen.add(folder)
        found.append((folder, h.index + 1, stop))
    return found


def _read_declarations(lexed, kinds, folder, first, stop, legacy, seen, errors) -> List[Declaration]:
    """Read one subsection's declarations (§4.4 rules 4-7)."""
    decls: List[Declaration] = []
    current: Optional[Declaration] = None
    sentinels = 0
    for i in range(first, stop):
        if not lexed.structural(i):
            continue
        line = lexed.lines[i]
        kind = kinds.get(i)
        if not line.strip():
            continue
        if kind == "sentinel":
            sentinels += 1
            if sentinels > 1 or decls:
                errors.add("contradictory optional module sentinel", i)
            continue
        if kind == "module_line":
            if sentinels:
                errors.add("contradictory optional module sentinel", i)
            current = _module_line(line, folder, legacy, i, seen, errors)
            if current is not None:
                decls.append(current)
            else:  # a rejected module line still owns its metadata lines
                current = Declaration("", folder, i)
            continue
        m = KEY_RE.match(line)
        if m and current is not None:
            key, value = m.group(1), m.group(2).strip()
            if key not in KEYS:
                errors.add(f"unknown optional module key {key!r}", i)
            elif key in current.keys:
                errors.add(f"duplicate optional module key {key!r} in {current.path}", i)
            else:
                current.keys[key] = (value, i)
            continue
        if line.startswith("- ") or line.startswith("  - ") or m:
            errors.add(f"malformed optional module declaration: {line.strip()}", i)
            continue
        if current is not None:
            errors.add("continuation lines are not allowed in the optional module index", i)
    return decls


def _emit(decl: Declaration, legacy: bool, sink: Sink, errors) -> None:
    """Validate one declaration's keys and emit its facts."""
    folder, path = decl.folder, decl.path
    if legacy and not decl.keys:
        activation = "explicit-only"
        if decl.inline:
            sink.fact("module_description", path, decl.inline, line=decl.line + 1)
        sink.fact("module_legacy", path, line=decl.line + 1)
    else:
        activation, act_line = decl.keys.get("activation", ("", decl.line))
        if activation not in ACTIVATIONS[folder]:
            errors.add(f"optional module {path} has invalid activation {activation!r}", act_line)
    sink.fact("module_decl", path, folder, activation, line=decl.line + 1)
    if "tasks" in decl.keys:
        value, line = decl.keys["tasks"]
        tasks: List[str] = []
        for token in (t.strip() for t in value.split(",")):
            if token not in vocab.tasks():  # rules/vocab/tasks.dl
                errors.add(f"optional module {path} has invalid task {token!r}", line)
            elif token not in tasks:
                tasks.append(token)
                sink.fact("module_task", path, token, line=line + 1)
    if "paths" in decl.keys:
        value, line = decl.keys["paths"]
        globs = _parse_paths(value)
        if globs is None:
            errors.add(f"optional module {path}: paths must be comma-separated Markdown code spans", line)
            globs = []
        ordinal = 0
        for glob in dict.fromkeys(globs):
            if not valid_glob(glob):
                errors.add(f"optional module {path} has invalid path glob {glob!r}", line)
                continue
            ordinal += 1
            sink.fact("module_glob", path, glob, ordinal, line=line + 1)
    if "description" in decl.keys:
        value, line = decl.keys["description"]
        sink.fact("module_description", path, value, line=line + 1)
    _compatibility(decl, activation, errors)


def _compatibility(decl: Declaration, activation: str, errors) -> None:
    """The folder/activation/key matrix of §4.4 rule 13."""
    folder, path = decl.folder, decl.path
    if folder == "rules" and "task" in activation and "tasks" not in decl.keys:
        errors.add(f"optional module {path} requires tasks for activation {activation}", decl.line)
    if folder == "areas" and "path" in activation and "paths" not in decl.keys:
        errors.add(f"optional module {path} requires paths for activation {activation}", decl.line)
    forbidden = {"rules": ("paths",), "profiles": ("tasks", "paths"), "areas": ("tasks",)}[folder]
    for key in forbidden:
        if key in decl.keys:
            errors.add(f"optional module {path} may not declare {key}", decl.keys[key][1])


def _code_spans(value: str) -> Optional[List[str]]:
    """The tokens of ``paths_value`` (grammar/manifest.lark) when ``value`` lexes as code spans
    and separators, else None: the lexer of that rule, on the grammar's own terminals."""
    span, sep = terminal("manifest", "CODE_SPAN").match, terminal("manifest", "_PATH_SEP").match
    found = []
    m = span(value)
    while m is not None:
        found.append(m.group())
        if m.end() == len(value):
            return found
        m = sep(value, m.end())
        m = m and span(value, m.end())
    return None


def _parse_paths(value: str) -> Optional[List[str]]:
    """Parse a ``paths:`` value with grammar/manifest.lark; None when it is not code spans."""
    spans = _code_spans(value.strip())
    if spans is None:  # the parser decides what does not lex
        from lark.exceptions import LarkError

        try:
            tree = parser("manifest", ("start", "paths_value")).parse(value.strip(), start="paths_value")
        except LarkError:
            return None
        spans = [str(tok) for tok in tree.children]
    return [span[1:-1].strip() for span in spans]


def extract_index(lexed: Lexed, kinds: Dict[int, str], sink: Sink, errors, legacy: bool) -> None:
    """Read the optional module index; emit ``module_*`` facts and contract errors."""
    indexes = [k for k, h in enumerate(lexed.headings) if h.level == 2 and h.title == "optional module index"]
    if not indexes:
        return
    if len(indexes) > 1:
        errors.add("manifest.md must contain at most one Optional module index section",
                   lexed.headings[indexes[1]].index)
        return
    start, end = lexed.headings[indexes[0]].index, lexed.section_end(indexes[0])
    seen: Dict[str, int] = {}
    decls: List[Declaration] = []
    for folder, first, stop in _read_subsections(lexed, kinds, start, end, errors):
        decls.extend(_read_declarations(lexed, kinds, folder, first, stop, legacy, seen, errors))
    for decl in sorted(decls, key=lambda d: d.path):
        _emit(decl, legacy, sink, errors)
