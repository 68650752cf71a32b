"""Agent instruction files (CLAUDE.md, AGENTS.md, .cursor/rules/*.mdc, …) -> neutral facts.

Mechanics only: this module finds the files by their place and name, parses their frontmatter
(grammar/agent_frontmatter.lark) and their body's imports and path mentions
(grammar/agent_body.lark), and records what it saw with spans. Which tool reads a file, when it
loads, which glob dialect applies and what is cut by a budget is decided by rules/agents/*.dl.
Problems found while parsing are facts (``agent_diagnostic``), never exceptions.

The relations are declared in facts/agents.dl (documented in docs/facts.md).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple
from analyzer.engine.glob_ext import glob_match_ext
from analyzer.project.files import read_bytes
from analyzer.project.extract.grammars import parser

#: Single files a tool reads at a fixed name, at any depth: name -> kind.
NAMED = {"CLAUDE.md": "CLAUDE.md", "CLAUDE.local.md": "CLAUDE.local.md", "AGENTS.md": "AGENTS.md",
         "AGENTS.override.md": "AGENTS.override.md", "GEMINI.md": "GEMINI.md"}
#: Files a tool reads at a fixed place relative to a folder: relative path -> kind.
PLACED = {".claude/CLAUDE.md": ".claude/CLAUDE.md", ".cursorrules": ".cursorrules",
          ".windsurfrules": ".windsurfrules", ".github/copilot-instructions.md": "copilot-instructions"}
#: Folders of rule files: folder -> kind (every file under it, at any depth, is a candidate;
#: the rules decide which endings a tool reads).
FOLDERS = {".claude/rules": ".claude/rules", ".cursor/rules": ".cursor/rules",
           ".github/instructions": ".github/instructions", ".windsurf/rules": ".windsurf/rules"}
#: Folders never searched for nested instruction files (dependencies, tool state, caches).
SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache"}
#: How many rounds of imported files are read beyond the instruction files (the tools follow 5).
IMPORT_WALK = 8
#: The largest instruction file read (bytes); a larger one is a diagnostic, not facts.
MAX_BYTES = 1_048_576

#: Settings files of agent tools, read as JSON with comments (Gemini CLI strips them).
SETTINGS_FILES = (".gemini/settings.json",)
#: How deep the keys of a settings file are recorded (``context.fileName`` is 2 deep): deeper
#: values (MCP server definitions, their environment) never become facts.
SETTINGS_DEPTH = 2
#: The settings keys whose string values are instruction file names: a file of such a name is
#: a candidate at any depth (kind: the name). Which tool reads it, and when, is the rules'.
NAMING_KEYS = ("context.fileName", "contextFileName", "codex-project-doc-fallback-filenames")

GATHERED = ("instruction_source", "agent_frontmatter", "agent_key", "agent_value", "agent_value_part", "agent_diagnostic", "agent_import",
            "agent_mention", "agent_line", "agent_line_digest", "agent_settings_file", "agent_setting")


@dataclass
class AgentFacts:
    """The facts of every agent instruction file of a repository, relation -> rows."""

    rows: Dict[str, List[tuple]] = field(default_factory=lambda: {rel: [] for rel in GATHERED})

    def add(self, rel: str, *row) -> None:
        """Record one fact."""
        self.rows[rel].append(tuple(row))


def discover(root: str, listed: Iterable[str], exclude: Iterable[str] = (),
             names: Iterable[str] = ()) -> List[Tuple[str, str]]:
    """``(path, kind)`` of every candidate instruction file: the listed repository files whose
    name or place matches (or whose name, or path ending, a setting gives: ``names``), plus the
    files at the root and in the rule folders of the root that a listing from Git may leave out
    (untracked or ignored, as CLAUDE.local.md is); none that an ``exclude`` glob matches."""
    found: Dict[str, str] = {}
    paths = set(listed)
    extra = tuple(n for n in names if n not in NAMED)
    for rel in (*NAMED, *PLACED, *extra):
        if os.path.isfile(os.path.join(root, rel)) and not os.path.islink(os.path.join(root, rel)):
            paths.add(rel)
    for folder in FOLDERS:
        base = os.path.join(root, folder)
        for here, dirs, names in os.walk(base, followlinks=False):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            rel = os.path.relpath(here, root).replace(os.sep, "/")
            paths.update(f"{rel}/{name}" for name in names)
    skipped = tuple(exclude)
    for path in sorted(paths):
        if any(part in SKIP_DIRS for part in path.split("/")[:-1]):
            continue
        if any(glob_match_ext(glob, path) for glob in skipped):  # the configuration's agents-exclude
            continue
        kind = kind_of(path, extra)
        if kind is not None:
            found[path] = kind
    return sorted(found.items())


def kind_of(path: str, names: Iterable[str] = ()) -> Optional[str]:
    """The kind of candidate instruction file ``path`` is (its place), or None; a file a
    setting names (``names``: a file name, or a path ending like ``.codex/CODEX.md``) has
    that name as its kind."""
    name = posixpath.basename(path)
    for rel, kind in PLACED.items():
        if path == rel or path.endswith("/" + rel):
            return kind
    for folder, kind in FOLDERS.items():
        if path.startswith(folder + "/") or f"/{folder}/" in path:
            return kind
    if name in NAMED:
        return NAMED[name]
    return next((n for n in names if path == n or path.endswith("/" + n)), None)


def governed_dir(path: str, kind: str) -> str:
    """The folder a file speaks for: its own folder, or the folder holding its ``.claude``,
    ``.cursor``, ``.github`` or ``.windsurf`` folder, or, for a file a setting names by a path
    ending (``.codex/CODEX.md``), the folder holding that ending ("" is the repository root)."""
    if "/" in kind and kind not in PLACED.values() and kind not in FOLDERS.values() and path.endswith(kind):
        return path[:-len(kind)].rstrip("/")
    for marker in (".claude/", ".cursor/", ".github/", ".windsurf/"):
        if path.startswith(marker):
            return ""
        at = path.find("/" + marker)
        if at >= 0:
            return path[:at]
    return posixpath.dirname(path)


def extract(root: str, listed: Iterable[str], exclude: Iterable[str] = (),
            settings: Iterable[tuple] = ()) -> AgentFacts:
    """Read the agent tools' settings files and every candidate instruction file under
    ``root`` (but those ``exclude`` matches) and record their facts; ``settings`` are
    ``agent_setting`` rows from the project configuration (its agent keys)."""
    facts = AgentFacts()
    for rel in SETTINGS_FILES:
        read_settings(facts, root, rel)
    for row in settings:
        facts.add("agent_setting", *row)
    names = sorted({row[4] for row in facts.rows["agent_setting"]
                    if row[1] in NAMING_KEYS and row[3] == "string" and _plain_name(row[4])})
    done = set()
    for path, kind in discover(root, listed, exclude, names):
        extract_file(facts, root, path, kind)
        done.add(path)
    # the files `@` imports reach are read too (kind "imported"), so their own imports and
    # mentions are facts; how many hops a tool follows is the rules' (agent_import_max), this
    # bound only stops a walk through very long chains
    for _ in range(IMPORT_WALK):
        targets = sorted({row[2] for row in facts.rows["agent_import"] if row[3] == "file"} - done)
        if not targets:
            break
        for target in targets:
            extract_file(facts, root, target, "imported")
            done.add(target)
    return facts


def extract_file(facts: AgentFacts, root: str, path: str, kind: str) -> None:
    """The facts of one instruction file (an unreadable file is a diagnostic)."""
    data, problem = read_bytes(os.path.join(root, path), limit=MAX_BYTES)
    where = governed_dir(path, kind)
    depth = 0 if where == "" else where.count("/") + 1
    if data is None:
        facts.add("instruction_source", path, kind, where, depth, 0, 0, 0)
        facts.add("agent_diagnostic", path, 1, 1, f"cannot be read: {problem}")
        return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        facts.add("instruction_source", path, kind, where, depth, len(data), 0, 0)
        facts.add("agent_diagnostic", path, line, 1, "not UTF-8 text")
        return
    lines = text.splitlines(keepends=True)
    facts.add("instruction_source", path, kind, where, depth, len(data), len(text), len(lines))
    end_byte = end_char = 0
    for number, line in enumerate(lines, 1):
        end_byte += len(line.encode("utf-8"))
        end_char += len(line)
        facts.add("agent_line", path, number, end_byte, end_char)
    body_start = _frontmatter(facts, path, lines)
    for number in range(body_start, len(lines) + 1):
        normal = " ".join(lines[number - 1].split())
        if normal:
            facts.add("agent_line_digest", path, number, hashlib.sha256(normal.encode("utf-8")).hexdigest()[:16])
    _body(facts, root, path, lines, body_start)


def _frontmatter(facts: AgentFacts, path: str, lines: List[str]) -> int:
    """Record the frontmatter of ``lines`` (``---`` on line 1 up to the next ``---``); the
    line number the body starts on."""
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        facts.add("agent_frontmatter", path, "none", 0)
        return 1
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r\n").rstrip() == "---"), None)
    if end is None:
        facts.add("agent_frontmatter", path, "unterminated", 1)
        facts.add("agent_diagnostic", path, 1, 1, "frontmatter opened with --- is never closed")
        return 1
    block = "".join(line if line.endswith("\n") else line + "\n" for line in lines[1:end])
    error = _parse_block(facts, path, block, first_line=2)
    if error is not None:
        line, col, message = error
        facts.add("agent_frontmatter", path, "invalid", end + 1)
        facts.add("agent_diagnostic", path, line, col, message)
    else:
        facts.add("agent_frontmatter", path, "ok", end + 1)
    return end + 2


def _parse_block(facts: AgentFacts, path: str, block: str, first_line: int) -> Optional[Tuple[int, int, str]]:
    """Parse a frontmatter block; record keys and values, or return ``(line, col, message)``."""
    from lark.exceptions import LarkError, UnexpectedInput

    try:
        tree = parser("agent_frontmatter").parse(block)
    except UnexpectedInput as exc:
        line = first_line + (getattr(exc, "line", 1) or 1) - 1
        col = getattr(exc, "column", 1) or 1
        shown = block.splitlines()[(getattr(exc, "line", 1) or 1) - 1] if block.strip() else ""
        return line, col, f"invalid frontmatter (not the YAML subset of key: value lines and - items): {shown.strip()!r}"
    except LarkError as exc:  # pragma: no cover - any other parser failure is still a diagnostic
        return first_line, 1, f"invalid frontmatter: {exc.__class__.__name__}"
    current: Optional[Tuple[str, int]] = None
    seen: Dict[str, int] = {}
    for node in tree.children:
        line = first_line + node.meta.line - 1 if not node.meta.empty else first_line
        col = node.meta.column if not node.meta.empty else 1
        if node.data == "pair":
            key = str(node.children[0])
            if key in seen:
                return line, col, f"key {key!r} given twice (first on line {seen[key]})"
            seen[key] = line
            value = node.children[1].children[0] if len(node.children) > 1 else None
            if value is None:
                facts.add("agent_key", path, key, "empty", line, col)
                current = (key, 0)
            elif value.type == "FLOW":
                items = _flow_items(_uncomment(str(value)))
                facts.add("agent_key", path, key, "list", line, col)
                for ord_, item in enumerate(items, 1):
                    facts.add("agent_value", path, key, ord_, item, line, value.column)
                current = None
            else:
                text = _scalar(value)
                facts.add("agent_key", path, key, "quoted" if value.type == "QUOTED" else "scalar", line, col)
                facts.add("agent_value", path, key, 0, text, line, value.column)
                for ord_, part in enumerate(_flow_items("[" + text + "]"), 1):
                    facts.add("agent_value_part", path, key, ord_, part, line, value.column)
                current = None
        elif node.data == "item":
            if current is None:
                return line, col, "list item with no key above it"
            key, count = current
            if count == 0:
                facts.rows["agent_key"][-1] = (path, key, "list", seen[key], facts.rows["agent_key"][-1][4])
            value = node.children[0].children[0] if node.children else None
            current = (key, count + 1)
            facts.add("agent_value", path, key, count + 1, _scalar(value) if value is not None else "", line,
                      value.column if value is not None else col)
    return None


def _uncomment(text: str) -> str:
    """A plain scalar or flow list without its trailing `` # comment``."""
    at = text.find(" #")
    return (text[:at] if at >= 0 else text).rstrip()


def _scalar(token) -> str:
    """The value of a scalar token, unquoted (YAML's quote escapes)."""
    text = str(token)
    if token.type == "QUOTED":
        quote = text[0]
        body = text[1:text.rindex(quote)]
        return body.replace("''", "'") if quote == "'" else body.replace('\\"', '"').replace("\\\\", "\\")
    return _uncomment(text)


def _flow_items(text: str) -> List[str]:
    """The items of a one-line flow sequence ``[a, "b"]`` (commas inside quotes or braces kept)."""
    inner, items, buf, depth, quote = text[1:-1], [], "", 0, ""
    for ch in inner:
        if quote:
            if ch == quote:
                quote = ""
            else:
                buf += ch
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
            buf += ch
        elif ch == "}":
            depth -= 1
            buf += ch
        elif ch == "," and depth == 0:
            items.append(buf.strip())
            buf = ""
        else:
            buf += ch
    if buf.strip():
        items.append(buf.strip())
    return items


def _body(facts: AgentFacts, root: str, path: str, lines: List[str], start: int) -> None:
    """Imports (``@path`` outside code) and mentions of Markdown paths in the body."""
    from lark.exceptions import LarkError

    text = "".join(lines[start - 1:])
    if not text.strip():
        return
    try:
        tree = parser("agent_body").parse(text)
    except LarkError:  # pragma: no cover - the body grammar accepts any text
        facts.add("agent_diagnostic", path, start, 1, "body could not be tokenized")
        return
    fence = False
    for token in tree.children:
        line, col = token.line + start - 1, token.column
        if token.type == "FENCE":
            fence = not fence
        elif token.type == "IMPORT" and not fence:
            raw = str(token)[1:].rstrip(".,;:)!?")
            target, state = _resolve(root, path, raw)
            facts.add("agent_import", path, raw, target, state, line, col)
            _mention(facts, path, raw, line, col)
        elif token.type in ("WORD", "CODESPAN") and not fence:
            _mention(facts, path, str(token).strip("`"), line, col)


def _mention(facts: AgentFacts, path: str, word: str, line: int, col: int) -> None:
    """A word that names a Markdown file (``docs/memory/manifest.md``), as written, without
    surrounding punctuation or a leading ``./``."""
    word = word.strip("*_()[]<>\"',;:!?")
    word = word.rstrip(".")
    if word.startswith("./"):
        word = word[2:]
    if word.endswith(".md") and "://" not in word and " " not in word and len(word) > 3:
        facts.add("agent_mention", path, word, line, col)


def _resolve(root: str, path: str, raw: str) -> Tuple[str, str]:
    """Where an import points, relative to the repository root, and what is there: "file",
    "missing", "outside" (above the root or absolute) or "home" (``~/``, outside the repository)."""
    if raw.startswith("~"):
        return raw, "home"
    if raw.startswith("/"):
        return raw, "outside"
    target = posixpath.normpath(posixpath.join(posixpath.dirname(path), raw))
    if target == ".." or target.startswith("../"):
        return target, "outside"
    full = os.path.join(root, target)
    return target, "file" if os.path.isfile(full) and not os.path.islink(full) else "missing"


def _plain_name(name: str) -> bool:
    """A file name, or a relative path ending, a setting may name (no ``..``, not absolute)."""
    parts = name.split("/")
    return bool(name) and not name.startswith("/") and "" not in parts and ".." not in parts and "." not in parts


def read_settings(facts: AgentFacts, root: str, rel: str) -> None:
    """The facts of one JSON settings file, when it exists: ``agent_settings_file`` with its
    state, ``agent_setting`` per value (keys up to :data:`SETTINGS_DEPTH` deep); a file that
    cannot be read or parsed is an ``agent_diagnostic`` at its line and column."""
    full = os.path.join(root, rel)
    if os.path.islink(full):  # fail closed: the tool would follow it, we do not read outside
        facts.add("agent_settings_file", rel, "invalid")
        facts.add("agent_diagnostic", rel, 1, 1, "a symbolic link, not followed: the names it gives are unknown")
        return
    if not os.path.isfile(full):
        return
    data, problem = read_bytes(full, limit=MAX_BYTES)
    if data is None:
        facts.add("agent_settings_file", rel, "invalid")
        facts.add("agent_diagnostic", rel, 1, 1, f"cannot be read: {problem}")
        return
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        facts.add("agent_settings_file", rel, "invalid")
        facts.add("agent_diagnostic", rel, data[:exc.start].count(b"\n") + 1, 1, "not UTF-8 text")
        return
    # deferred to a settings file that exists: importing Lark costs a warm `check --all` of a
    # repository without one ~25 ms CPU for nothing (docs/performance.md, "Warm check")
    from lark.exceptions import LarkError, UnexpectedInput

    try:
        tree = parser("agent_settings").parse(text)
    except UnexpectedInput as exc:
        line, col = getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1
        if line < 1:  # the input ended early: point after its last character
            line, col = text.count("\n") + 1, len(text.rsplit("\n", 1)[-1]) + 1
        facts.add("agent_settings_file", rel, "invalid")
        facts.add("agent_diagnostic", rel, line, col, "invalid JSON")
        return
    except LarkError as exc:  # pragma: no cover - any other parser failure is still a diagnostic
        facts.add("agent_settings_file", rel, "invalid")
        facts.add("agent_diagnostic", rel, 1, 1, f"invalid JSON: {exc.__class__.__name__}")
        return
    facts.add("agent_settings_file", rel, "ok" if tree.data == "object" else "not-object")
    if tree.data == "object":
        _setting_object(facts, rel, tree, "", 1)


def _setting_object(facts: AgentFacts, rel: str, node, prefix: str, depth: int) -> None:
    """Record the keys of a JSON object node (the last of a repeated key wins, as in JSON.parse)."""
    last = {}
    for pair in node.children:
        if pair is None:
            continue
        last[_json_string(pair.children[0])] = pair.children[1]
    for key, value in last.items():
        name = prefix + key
        shape = _json_shape(value)
        line, col = value.meta.line, value.meta.column
        if shape == "list":
            facts.add("agent_setting", rel, name, 0, "list", "", line, col)
            for ord_, item in enumerate((i for i in value.children if i is not None), 1):
                facts.add("agent_setting", rel, name, ord_, _json_shape(item), _json_text(item),
                          item.meta.line, item.meta.column)
        else:
            facts.add("agent_setting", rel, name, 0, shape, _json_text(value), line, col)
            if shape == "object" and depth < SETTINGS_DEPTH:
                _setting_object(facts, rel, value, name + ".", depth + 1)


def _json_shape(node) -> str:
    """``string``, ``number``, ``bool``, ``null``, ``list`` or ``object``."""
    kind = str(node.data)
    return {"true": "bool", "false": "bool", "array": "list"}.get(kind, kind)


def _json_text(node) -> str:
    """The text of a scalar node (a string unescaped); "" for a list or an object."""
    if node.data == "string":
        return _json_string(node.children[0])
    if node.data == "number":
        return str(node.children[0])
    return {"true": "true", "false": "false", "null": "null"}.get(node.data, "")


def _json_string(token) -> str:
    """A JSON string token's value."""
    import json

    return json.loads(str(token))
