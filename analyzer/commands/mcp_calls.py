"""Answering one MCP tool call in process: the command's own code, bounded, cached, never fatal.

A call parses its command line with the CLI's own parser (``analyze COMMAND`` exactly as the
console builds it) and runs the command module's ``run`` with standard output and error
captured, so the answer is byte for byte the document ``analyze COMMAND --format json``
prints. Around it:

* **Time**: the command's ``--timeout`` (the server's per-call bound) arms the same
  :class:`~analyzer.engine.limits.Watchdog` the console arms; calls run in the server's main
  thread, where its timer signal can interrupt any phase. A limit is DL902, as on the CLI.
* **Size**: an answer over ``max_bytes`` is cut there and comes back as a tool error
  (MA-MCP-SIZE) whose text ends with a note saying how large the whole answer was.
* **Errors**: exit 2 (the ``error`` document, or a message on stderr), a refused argument, an
  internal error: each is an :class:`Answer` with its ``failure`` (the code it carries). No
  exception escapes :meth:`Calls.call`.
* **Cache**: answers of cacheable tools are kept per command line with the project's
  :func:`fingerprint`; a later identical call whose fingerprint is unchanged is answered from
  it. Anything the fingerprint covers that changed (a byte of a memory file, a file added or
  removed, a touched path appearing) recomputes.
* **Concurrency**: :meth:`Calls.call` holds a lock: the analyzer's process-wide state (the
  watchdog's timer, the captured streams) serves one call at a time; others wait their turn.

Nothing here writes to the project: the commands are read-only and the caches they use live
under ``$XDG_CACHE_HOME`` (analyzer/core/cache.py).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import json
import os
import re
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Mapping, Optional, Tuple

from analyzer.commands.mcp_tools import ArgumentError, ToolSpec, command_line, tool, tool_schema
from analyzer.contract.results import Failure

#: default largest answer, in bytes of its text (hosts pass answers to a model: keep them small)
MAX_ANSWER_BYTES = 1 << 20
#: answers the cache keeps (least recently used go first)
CACHE_ENTRIES = 256
#: calls between two full garbage collections (a read builds cyclic garbage that the collector,
#: paused while it runs, would otherwise leave for much later: about 0.4 MiB a call)
GC_EVERY = 16
#: a code at the start of an error line: ours (MA-…), the protocol's (MC-…) or the rule language's
_CODE = re.compile(r"\b(MA-[A-Z0-9-]*[A-Z0-9]|MC-[A-Z0-9-]*[A-Z0-9]|DL\d{3})\b")


@dataclass(frozen=True)
class Answer:
    """What a tool call returns: ``text`` (the document or the command's text), the parsed
    ``document`` for JSON tools, the command's exit status and, for a tool error, its
    :class:`~analyzer.contract.results.Failure` (the code it carries, the text, the status)."""

    text: str
    document: Optional[Dict[str, Any]] = None
    failure: Optional[Failure] = None
    exit_code: int = 0
    cached: bool = False

    @property
    def code(self) -> Optional[str]:
        """The tool error's code (None: the call answered)."""
        return None if self.failure is None else self.failure.code


class Calls:
    """The tool calls of one server: its project, bounds, parsers and answer cache."""

    def __init__(self, project_root: str, memory_dir: str = "docs/memory", timeout: float = 60.0,
                 max_bytes: int = MAX_ANSWER_BYTES, use_cache: bool = True) -> None:
        self.project_root = project_root
        self.memory_dir = memory_dir
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.use_cache = use_cache
        self._lock = threading.Lock()
        self._parsers: Dict[str, Any] = {}
        self._cache: "OrderedDict[Tuple[str, ...], Tuple[str, Answer]]" = OrderedDict()
        self._uncollected = 0  # calls since the last full collection

    # -- the parsers and schemas ----------------------------------------------------------
    def parser(self, command: str):
        """The CLI's parser of ``command`` (the top-level parser holding it alone)."""
        if command not in self._parsers:
            from analyzer.commands.cli import build_parser

            self._parsers[command] = build_parser(command)
        return self._parsers[command]

    def subparser(self, command: str):
        """The argparse parser of ``command`` itself (the one its options are declared on)."""
        parser = self.parser(command)
        return parser._subparsers._group_actions[0].choices[command]

    def schema(self, spec: ToolSpec) -> Dict[str, Any]:
        """The input schema of ``spec`` (from its command's parser)."""
        return tool_schema(spec, self.subparser(spec.command))

    # -- a call ---------------------------------------------------------------------------
    def call(self, name: str, arguments: Optional[Mapping[str, Any]]) -> Answer:
        """Answer a call of tool ``name``; never raises (every failure is an error Answer)."""
        try:
            spec = tool(name)
            words = command_line(spec, self.schema(spec), arguments)
        except (KeyError, ArgumentError) as exc:
            return _error(f"MA-USAGE {exc.args[0] if exc.args else exc}", "MA-USAGE")
        # the bound first: positionals close the command line (after ``--``)
        words = [f"--timeout={self.timeout:g}", *words]
        if spec.project:
            words = [f"--project-root={self.project_root}", f"--memory-dir={self.memory_dir}", *words]
        if not self.use_cache and "--no-cache" in self.subparser(spec.command)._option_string_actions:
            words = ["--no-cache", *words]  # no parse, program or result cache either, as the option says
        with self._lock:
            try:
                return self._answer(spec, words, arguments or {})
            except Exception as exc:  # a tool call never takes the server down
                return _error(f"analyze {spec.command}: internal error: {type(exc).__name__}: {exc}", "MA-INTERNAL", 3)
            finally:
                self._count_call()

    def _count_call(self) -> None:
        self._uncollected += 1
        # a full collection every GC_EVERY calls: a few ms a call on average, a bounded heap; when
        # idle instead, it collided with the next call of a host asking every half second
        if self._uncollected >= GC_EVERY:
            gc.collect()
            self._uncollected = 0

    def text(self, command: str, words: List[str]) -> Answer:
        """Run ``analyze COMMAND WORDS`` in text form (the context pack resource), bounded."""
        spec = ToolSpec("resource", command, (), output="text")
        words = [f"--project-root={self.project_root}", f"--memory-dir={self.memory_dir}", *words,
                 f"--timeout={self.timeout:g}"]
        with self._lock:
            try:
                return self._answer(spec, words, {})
            finally:
                self._count_call()

    def _answer(self, spec: ToolSpec, words: List[str], arguments: Mapping[str, Any]) -> Answer:
        key = (spec.name, *words)
        mark = None
        if spec.cacheable and self.use_cache:
            paths = list(arguments.get("paths") or ())
            mark = fingerprint(self.project_root, self.memory_dir, paths) if spec.project else "static"
            hit = self._cache.get(key)
            if hit is not None and hit[0] == mark:
                self._cache.move_to_end(key)
                answer = hit[1]
                return replace(answer, cached=True)
        answer = self._bounded(self._run(spec, words))
        if mark is not None and answer.failure is None:
            self._cache[key] = (mark, answer)
            while len(self._cache) > CACHE_ENTRIES:
                self._cache.popitem(last=False)
        return answer

    def _run(self, spec: ToolSpec, words: List[str]) -> Answer:
        """Parse and run the command in process, its output captured (as analyzer.commands.cli.main)."""
        import importlib

        from analyzer.commands import bounds
        from analyzer.project import config
        from analyzer.commands.cli import _known_failure

        out, err = io.StringIO(), io.StringIO()
        status = 2
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                args = self.parser(spec.command).parse_args([spec.command, *words])
                module = importlib.import_module(args._module)
                config.settle_max_file_bytes(args)
                dog = args._watchdog = bounds.command_watchdog(args)
                if dog is None:
                    status = int(module.run(args))
                else:
                    with dog.watching(f"running analyze {args.command}"):
                        status = int(module.run(args))
            except SystemExit as exc:  # argparse refused the command line (usage on stderr)
                status = exc.code if isinstance(exc.code, int) else 2
                if "MA-USAGE" not in err.getvalue():
                    err.write("MA-USAGE the arguments were refused\n")
            except config.ConfigError as exc:
                err.write(f"Error: {exc}\n")
                status = 2
            except Exception as exc:
                known = _known_failure(exc, spec.command, False)
                if known is None:
                    err.write(f"analyze {spec.command}: internal error: {type(exc).__name__}: {exc}\n")
                    status = 3
                else:
                    err.write(known + "\n")
                    status = 2
            finally:
                gc.unfreeze()  # a read freezes what it built for a one-shot process; a server frees it
        return _outcome(spec, status, out.getvalue(), err.getvalue())

    def _bounded(self, answer: Answer) -> Answer:
        """``answer``, or its first ``max_bytes`` bytes and a note (a tool error, MA-MCP-SIZE)."""
        data = answer.text.encode("utf-8")
        if len(data) <= self.max_bytes:
            return answer
        cut = data[:self.max_bytes].decode("utf-8", "ignore")
        note = (f"\n[MA-MCP-SIZE answer truncated: it is {len(data):,} bytes, the server's limit is "
                f"{self.max_bytes:,} (--max-answer-bytes); narrow the request (fewer paths, a narrower goal "
                f"or family) or raise the limit]\n")
        return _error(cut + note, "MA-MCP-SIZE", answer.exit_code)


def _outcome(spec: ToolSpec, status: int, out: str, err: str) -> Answer:
    """The Answer of a finished command: its output, or a tool error when it did not answer."""
    document = None
    if spec.output == "json" and out.strip():
        try:
            document = json.loads(out)
        except ValueError:
            document = None
    # exit 1 and 2 can carry an answer (a failed check, a pack with a blocking conflict): what
    # makes a tool error is an `error` document (ok false), no document, or no answer at all
    if spec.output == "json":
        failed = status == 3 or document is None or document.get("ok") is False
    else:  # text: a refused request prints nothing on stdout (read prints a blocked pack, exit 2)
        failed = status == 3 or (status != 0 and not out.strip())
    if not failed:
        return Answer(out, document, None, status)
    code = None
    if document is not None:
        for diagnostic in document.get("diagnostics") or ():
            code = diagnostic.get("code")
            break
    if code is None:
        found = _CODE.search(err) or _CODE.search(out)
        code = found.group(1) if found else ("MA-INTERNAL" if status == 3 else "MA-USAGE")
    if document is not None:  # the error document says it all (its diagnostics carry the code)
        return Answer(out, document, Failure(code, out, exit_code=status), status)
    text = err.strip() or out.strip() or f"analyze {spec.command} exited {status}"
    return _error(text if code in text else f"{code} {text}", code, status)


def _error(text: str, code: str, status: int = 2) -> Answer:
    """A tool error: ``text`` is the answer and the failure's message."""
    return Answer(text, None, Failure(code, text, exit_code=status), status)


# ---- the project fingerprint ------------------------------------------------------------

def fingerprint(root: str, memory_dir: str, paths: List[str]) -> str:
    """A digest of everything a cacheable answer reads from the disk: every entry of the
    memory dir (name, type, size, mtime and, for a regular file, a digest of its bytes), the
    project configuration files, the touched ``paths`` (whether and what they are) and the
    local overlay's directory (spec §11.1; names, types, sizes and mtimes)."""
    h = hashlib.sha256()
    _entry(h, root, "")
    memory = os.path.join(root, memory_dir)
    _tree(h, memory, content=True)
    for name in ("pyproject.toml", ".memory-analyzer.toml"):
        _entry(h, os.path.join(root, name), name, content=True)
    for path in paths:
        _entry(h, os.path.join(root, path), "path:" + path)
    from analyzer.project.extract.overlay import state_root

    _tree(h, os.path.join(state_root(), "projects"), content=False)
    return h.hexdigest()


def _tree(h, top: str, content: bool) -> None:
    _entry(h, top, "", content)
    for directory, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = os.path.join(directory, name)
            _entry(h, path, os.path.relpath(path, top), content)


def _entry(h, path: str, label: str, content: bool = False) -> None:
    try:
        st = os.lstat(path)
    except OSError as exc:
        h.update(f"{label}\0missing {exc.errno}\0".encode("utf-8", "surrogateescape"))
        return
    h.update(f"{label}\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0".encode("utf-8", "surrogateescape"))
    if content and stat.S_ISREG(st.st_mode):
        try:  # no symlink followed, no FIFO waited on (it was a regular file a moment ago)
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(fd, "rb") as handle:
                h.update(hashlib.sha256(handle.read()).digest())
        except OSError as exc:
            h.update(f"unreadable {exc.errno}\0".encode())
