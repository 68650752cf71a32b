"""Project configuration: ``[tool.memory-analyzer]`` in the project's ``pyproject.toml``, or
the top-level keys of ``.memory-analyzer.toml`` (which wins when both exist, as a tool's own
file does for ruff and mypy).

The file sets defaults for command-line options; a flag given on the command line always
wins. Every key is declared in :data:`KEYS` (name, type, the commands it applies to, the
argparse destination); a key no row declares is an error with ``file:line``, so a typo never
silently changes nothing. Another command adds its keys by adding rows (a key may apply to
several commands). Reading needs ``tomllib`` (Python 3.11+) or the ``tomli`` package on 3.10;
without either, a file that holds our table is an error (fail closed), never ignored.

Usage from a command::

    from analyzer.project import config

    try:
        config.apply(args, "check", config.load(args.project_root))
    except config.ConfigError as exc:
        ...  # exc.diagnostic(): path:line:col, code, message; exit 2
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

from analyzer.project import vocab

PYPROJECT, OWN_FILE = "pyproject.toml", ".memory-analyzer.toml"
TABLE = "tool.memory-analyzer"


@dataclass(frozen=True)
class Key:
    """One configuration key: its type (``str``, ``list`` of str, ``bool``, ``int``), the
    commands it sets a default for, the argparse ``dest`` it fills, the allowed values (or
    the vocabulary of rules/vocab/ that holds them, read only when a file sets the key)."""

    name: str
    kind: str
    commands: Tuple[str, ...]
    dest: str
    help: str
    choices: Tuple[str, ...] = ()
    vocabulary: str = ""

    def allowed(self) -> Tuple[str, ...]:
        """The values the key may take (none listed: any value of its kind)."""
        return vocab.ordered(self.vocabulary) if self.vocabulary else self.choices


#: Every key a configuration file may hold. Add a row to add a key.
KEYS: Dict[str, Key] = {k.name: k for k in (
    Key("format", "str", ("check",), "format", "default output format",
        ("text", "concise", "json", "sarif", "junit", "github", "markdown", "gitlab")),
    # known so that it is refused by name, never set: see _check (docs/decisions.md)
    Key("output", "list", ("check",), "output",
        "refused: output files come only from the command line (--output)"),
    Key("sarif-category", "str", ("check",), "sarif_category",
        "the SARIF automationDetails.id category (as --sarif-category)"),
    Key("help-uri", "str", ("check",), "help_uri",
        "absolute URL of docs/findings.md that SARIF rules' helpUri points into (as --help-uri)"),
    Key("fail-on", "str", ("check", "report"), "fail_on", "which findings fail the run (as --fail-on)",
        vocabulary="fail_on"),
    Key("select", "list", ("check", "report"), "select", "codes or code prefixes to report (as --select)"),
    Key("ignore", "list", ("check", "report"), "ignore", "codes or code prefixes not to report (as --ignore)"),
    Key("baseline", "path", ("check", "report"), "baseline",
        "a previous JSON or SARIF output, relative to the project root (as --baseline)"),
    Key("autonomy", "str", ("check",), "autonomy", "the autonomy level `check --base` judges changes by",
        vocabulary="autonomy_mode"),
    Key("reviewers", "list", ("check",), "reviewers",
        "names a `Memory-Confirmed-By:` trailer may carry to confirm a change (as repeated --reviewer)"),
    Key("max-file-bytes", "int", ("read", "why", "check", "facts", "query", "list", "show", "subject", "shell"),
        "max_file_bytes",
        "largest memory file read, in bytes, by every command that reads a project (as --max-file-bytes)"),
    Key("agents-exclude", "list", ("check", "report", "read"), "agents_exclude",
        "globs of instruction files `read --tool` and `check --agents` leave out (test fixtures, vendored code)"),
    Key("agents", "list", ("check", "report", "read"), "agent_tools",
        "the agent tools the project uses (claude, codex, cursor, copilot, gemini, windsurf): `check --agents` "
        "checks them even without their own files (a name the rules do not know is ignored)"),
    Key("codex-project-doc-fallback-filenames", "list", ("check", "report", "read"), "codex_fallback_filenames",
        "the file names Codex looks for after AGENTS.override.md and AGENTS.md in each folder, as Codex's own "
        "`project_doc_fallback_filenames` (which lives in ~/.codex/config.toml, outside the repository)"),
    Key("codex-project-doc-max-bytes", "int", ("check", "report", "read"), "codex_max_bytes",
        "the byte budget of Codex's concatenated AGENTS.md files, as Codex's own `project_doc_max_bytes` "
        "(default 32768)"),
    Key("agent-authors", "list", ("check", "readiness"), "agent_authors",
        "Python regular expressions an agent's commit author (`Name <email>`) fully matches "
        "(as repeated --agent-author)"),
)}


class ConfigError(Exception):
    """A configuration file that cannot be used: where, a stable code, and why."""

    def __init__(self, code: str, message: str, path: str, line: int = 1, col: int = 1) -> None:
        super().__init__(f"{path}:{line}:{col}: {code} {message}")
        self.code, self.message, self.path, self.line, self.col = code, message, path, line, col

    def __reduce__(self):
        # rebuilt from its fields: the default (from ``args``, one string) does not fit this
        # __init__, and a fleet worker's error that cannot be unpickled stops the pool's
        # result thread, leaving the main process waiting forever
        return type(self), (self.code, self.message, self.path, self.line, self.col)

    def diagnostic(self) -> Dict[str, Any]:
        """The error as a JSON diagnostic (the ``error`` shapes' item)."""
        return {"code": self.code, "severity": "error", "message": self.message, "path": self.path,
                "line": self.line, "col": self.col}


@dataclass
class Config:
    """The keys a file set (``{}`` when no file sets any), and the file they came from."""

    values: Dict[str, Any] = field(default_factory=dict)
    path: Optional[str] = None
    lines: Dict[str, int] = field(default_factory=dict)


def _toml():
    try:
        import tomllib  # Python 3.11+
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            return None
    return tomllib


#: largest configuration file read (bytes): a pyproject.toml is a few KiB
CONFIG_CAP = 1024 * 1024


def load(project_root: str) -> Config:
    """The configuration of the project at ``project_root`` (empty when it has none)."""
    own = os.path.join(project_root, OWN_FILE)
    if os.path.lexists(own):
        return _read(own, OWN_FILE, table=(), root=project_root)
    pyproject = os.path.join(project_root, PYPROJECT)
    if os.path.lexists(pyproject):
        return _read(pyproject, PYPROJECT, table=("tool", "memory-analyzer"), root=project_root)
    return Config()


#: the keys that decide who may confirm a change, who is an agent and how strictly changes are
#: judged. When changes are judged (``check --base``), the configuration at the base revision
#: bounds them: the changes themselves (a pull request, possibly an agent's) must not add their
#: author to ``reviewers`` and so confirm themselves (issue 32; analyzer/commands/check.py).
TRUST_KEYS = ("reviewers", "agent-authors", "autonomy")


def _read_raw(path: str, shown: str, root: str) -> bytes:
    """The file's bytes. The file belongs to the analyzed project, which is untrusted: a
    FIFO, device or directory is refused without blocking (it was silently skipped, so the
    project's settings were dropped), a symlink is followed only to a file inside the
    project, and the size is capped (:data:`CONFIG_CAP`)."""
    from analyzer.project.files import _inside, read_bytes

    if os.path.islink(path) and not _inside(path, os.path.realpath(root)):
        raise ConfigError("MA-CONFIG-READ", "the configuration file is a symlink to outside the project; "
                          "not followed", shown)
    raw, problem = read_bytes(path, CONFIG_CAP, follow_symlinks=True)
    if problem is not None:
        raise ConfigError("MA-CONFIG-READ", f"cannot read the configuration file: {problem}", shown)
    return raw


def _read(path: str, shown: str, table: Tuple[str, ...], root: str = ".") -> Config:
    return parse(_read_raw(path, shown, root), shown, table)


def parse(raw: bytes, shown: str, table: Tuple[str, ...] = ()) -> Config:
    """The configuration a file's bytes set (``table``: where our keys are, ``()`` for the
    top level of .memory-analyzer.toml); :class:`ConfigError` at ``shown:line:col`` for
    anything unusable. The fuzzers (tests/fuzz/test_documents.py) call this directly."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("MA-CONFIG-READ", "the configuration file is not valid UTF-8", shown) from None
    # a pyproject.toml without our table is another tool's business: not even parsed
    if table and "memory-analyzer" not in text:
        return Config()
    toml = _toml()
    if toml is None:
        raise ConfigError("MA-CONFIG-READ", "reading TOML needs Python 3.11 or the tomli package", shown)
    try:
        document = toml.loads(text)
    except RecursionError:  # tomllib recurses once per nested array or inline table
        line, col = _deepest(text)
        raise ConfigError("MA-CONFIG-TOML", "arrays or inline tables nested too deeply to read", shown,
                          line, col) from None
    except toml.TOMLDecodeError as exc:
        where = re.search(r"line (\d+), column (\d+)", str(exc))
        line, col = (int(where.group(1)), int(where.group(2))) if where else (1, 1)
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc)) or "invalid TOML"
        raise ConfigError("MA-CONFIG-TOML", f"invalid TOML: {message}", shown, line, col) from None
    values: Any = document
    for part in table:
        values = values.get(part, {}) if isinstance(values, dict) else {}
    if not isinstance(values, dict):
        raise ConfigError("MA-CONFIG-VALUE", f"[{TABLE}] must be a table", shown, _line_of(text, table, None))
    lines = {key: _line_of(text, table, key) for key in values}
    for key in sorted(values, key=lambda k: lines[k]):
        _check(key, values[key], shown, lines[key])
    return Config(dict(values), shown, lines)


def _check(key: str, value: Any, path: str, line: int) -> None:
    spec = KEYS.get(key)
    if spec is None:
        import difflib  # only for an unknown key's suggestion

        near = difflib.get_close_matches(key, list(KEYS), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else f"; known keys: {', '.join(sorted(KEYS))}"
        raise ConfigError("MA-CONFIG-UNKNOWN-KEY", f"unknown key {key!r}{hint}", path, line)
    if key == "output":  # the analyzed project must never direct a write (issue 32)
        raise ConfigError("MA-CONFIG-OUTPUT", "output files come only from the command line (--output FILE): "
                          "a project's own configuration cannot name files for the analyzer to write", path, line)
    ok = {"str": isinstance(value, str), "path": isinstance(value, str), "bool": isinstance(value, bool),
          "int": isinstance(value, int) and not isinstance(value, bool),
          "list": isinstance(value, list) and all(isinstance(v, str) for v in value)}[spec.kind]
    if not ok:
        wanted = {"str": "a string", "path": "a path (string)", "bool": "true or false", "int": "an integer", "list": "a list of strings"}
        raise ConfigError("MA-CONFIG-VALUE", f"{key} must be {wanted[spec.kind]}", path, line)
    if key == "reviewers" and any(not name.strip() for name in value):  # an empty name would match an empty trailer
        raise ConfigError("MA-CONFIG-VALUE", "reviewers must not hold an empty name", path, line)
    if spec.kind == "int" and value <= 0:  # the one int key is a size: zero would read nothing
        raise ConfigError("MA-CONFIG-VALUE", f"{key} must be a positive integer, not {value}", path, line)
    allowed = spec.allowed()
    if allowed and value not in allowed:
        raise ConfigError("MA-CONFIG-VALUE", f"{key} must be one of {', '.join(allowed)}, not {value!r}",
                          path, line)
    if key == "agent-authors":  # a bad pattern is reported where it is written, with its line
        from analyzer.engine.linear_re import pattern_problem  # matched in linear time: no backtracking

        for pattern in value:
            problem = pattern_problem(pattern)
            if problem:
                raise ConfigError("MA-CONFIG-VALUE", f"{key}: {pattern!r} is not a regular expression: "
                                  f"{problem.split(': ', 1)[1]}", path, line)


def _deepest(text: str) -> Tuple[int, int]:
    """Line and column of the first ``[`` or ``{`` past 100 levels of nesting (strings and
    comments are not told apart: this only places an error tomllib gave no position for)."""
    depth = 0
    line, col = 1, 0
    for char in text:
        col += 1
        if char == "\n":
            line, col = line + 1, 0
        elif char in "[{":
            depth += 1
            if depth > 100:
                return line, col
        elif char in "]}":
            depth = max(0, depth - 1)
    return 1, 1


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")


def _line_of(text: str, table: Tuple[str, ...], key: Optional[str]) -> int:
    """The 1-based line that sets ``key`` in ``table`` (the table's header for a key set in a
    sub-table header or by a form this scan does not follow; 1 when neither is found).
    tomllib gives no positions, so the text is scanned: headers and ``key =`` lines."""
    want = ".".join(table)
    current, header_line = "", 0
    key_re = re.compile(r'^\s*["\']?' + re.escape(key) + r'["\']?\s*[=.]') if key else None
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            current = re.sub(r'\s*\.\s*', ".", header.group(1)).replace('"', "")
            if current == want and not header_line:
                header_line = number
            elif key and current == f"{want}.{key}".lstrip("."):
                return number
            continue
        if key_re and current == want and key_re.match(line):
            return number
    return header_line or 1


def apply(args: Any, command: str, config: Config) -> None:
    """Fill the options of ``command`` the command line left unset (``None``) from ``config``.
    A key that does not apply to ``command`` is ignored here (another command uses it)."""
    for key, value in config.values.items():
        spec = KEYS[key]
        if command in spec.commands and getattr(args, spec.dest, None) is None:
            if spec.kind == "path":  # relative to the project root, where the file is
                value = os.path.join(getattr(args, "project_root", "."), value)
            setattr(args, spec.dest, list(value) if isinstance(value, list) else value)


def settle_max_file_bytes(args: Any) -> None:
    """Give ``args.max_file_bytes`` its value when the command line left it unset: the
    configuration's ``max-file-bytes``, else :data:`analyzer.project.files.SIZE_CAP`. Commands without
    the option are left alone. Raises :class:`ConfigError` for an unusable file or value."""
    if getattr(args, "max_file_bytes", 0) is not None:
        return  # given on the command line, or a command without the option
    from analyzer.project.files import SIZE_CAP
    from analyzer.project.root import resolve_root

    args.max_file_bytes = SIZE_CAP  # what the command uses should the file be refused below
    root = resolve_root(getattr(args, "project_root", None), getattr(args, "memory_dir", "docs/memory")).path
    loaded = load(root)
    value = loaded.values.get("max-file-bytes")
    if value is not None:
        args.max_file_bytes = value
