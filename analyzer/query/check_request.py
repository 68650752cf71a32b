"""The ``check`` request before anything is evaluated: which families, on which project,
opened (the memory dir checked, the repository listed for the report) and looked up in the
result cache (analyzer/query/check_cache.py).

A check answered from that cache needs this module and the cache, nothing more: loading the
project and evaluating the rules (analyzer/query/check.py, which imports the families, the
extractors and the engine) is imported only when the cache has no answer (:func:`run_check`). The key's inputs
outside the memory dir are digested here too: those of plain `check` (:func:`outside_inputs`)
and of the agents family (analyzer/query/agent_facts.py).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

from analyzer.contract.check_model import CheckResult
from analyzer.contract.results import Failure
from analyzer.core.span import Span
from analyzer.history.repofiles import list_files
from analyzer.project import files
from analyzer.project.extract.overlay import state_root
from analyzer.query import check_cache
from analyzer.query.agent_facts import gather, inputs_digest

#: The families of ``check --all``, in block order (analyzer/query/check_families.py defines them).
ORDER: Tuple[str, ...] = ("routing", "reachability", "freshness", "conflicts", "legacy", "security", "privacy", "hidden-text",
                          "agents")

# what plain `check` reads outside the managed files (§9.8.5: agent entry files; §9.8.2: the
# optional folders), digested into its result cache key here and read by analyzer/query/check_legacy.py
AGENT_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
FOLDERS = ("rules", "profiles", "areas")


@dataclass
class CheckRequest:
    """Which families to run, on which project."""

    families: Sequence[str]
    project_root: Path = field(default_factory=Path.cwd)
    memory_dir: str = "docs/memory"
    use_cache: bool = True
    options: Dict[str, str] = field(default_factory=dict)  # family options, e.g. merge_base
    packs: Optional[object] = None  # a PackSet of `--rules` packs (analyzer/query/packs.py)
    with_proofs: bool = False  # a bounded proof tree per finding (analyzer/query/proofs.py)
    max_file_bytes: Optional[int] = None  # None: the loader's default cap (analyzer.project.files.SIZE_CAP)
    # the repository's files for the report family, (paths, source, complete) as
    # analyzer.history.repofiles.list_files gives them; listed once by open_request, before its cache key
    repo_files: Optional[tuple] = None
    # the agent facts (analyzer/query/agent_facts.py ``gather``) when the agents family runs:
    # gathered once by open_request, for the cache key and for the family, which takes them
    # (analyzer/query/agents.py ``family_facts``: None after, so a request kept past its
    # evaluation, as the fleet keeps it, holds none)
    agent_facts: Optional[dict] = None


def agents_only(request: CheckRequest) -> bool:
    """Whether the request is `check --agents` alone, which reads no memory project
    (analyzer/query/agents.py ``run_agents_check``) and is not cached."""
    return list(request.families) == ["agents"] and not request.packs and not request.with_proofs


def lookup(request: CheckRequest) -> Tuple[CheckRequest, Optional[str], Optional[CheckResult]]:
    """``(request, key, result)``: the request opened (:func:`open_request`), its result cache
    key (None: not cached), and the result when it is known without evaluating: the error of
    an unusable memory dir, or the cached answer (None: run the check,
    analyzer/query/check.py ``run_opened``). An :func:`agents_only` request is neither
    opened nor cached: ``(request, None, None)``."""
    if agents_only(request):
        return request, None, None
    request, early = open_request(request)
    if early is not None:
        return request, None, early
    key = result_cache_key(request)
    return request, key, check_cache.load(key, str(request.project_root)) if key else None


def run_check(request: CheckRequest) -> CheckResult:
    """Run the requested families; an unusable project is an error result, never a crash.
    A result :func:`lookup` knows (the cache's answer, a memory dir error) imports nothing
    more: the evaluation (analyzer/query/check.py ``run_opened``, with the families, the
    extractors and the engine) is imported only when the check has to run."""
    request, key, done = lookup(request)
    if done is not None:
        return done
    from analyzer.query.check import run_opened

    return run_opened(request, key)


def result_cache_key(request: CheckRequest) -> Optional[str]:
    """The result cache's key of an opened request (:func:`open_request`), or None when the
    result is not cached (no cache, a merge review, proofs, or input the key cannot cover).
    Shared with ``fleet check``, which reuses and fills the same entries."""
    # a merge review reads Git history, which the result cache's key does not cover (nor
    # proofs, which are built from a fresh evaluation with provenance)
    if not request.use_cache or request.options.get("merge_base") or request.with_proofs:
        return None
    root, memory_dir = str(request.project_root), request.memory_dir
    # the plain check also reads agent entry files, empty optional folders and the local
    # overlay, outside the managed files the key covers: their digest joins the key
    outside = b""
    if "legacy" in request.families:
        outside = outside_inputs(root, memory_dir)
    if "agents" in request.families:  # agent instruction files lie outside the memory dir too
        outside += inputs_digest(request.agent_facts if request.agent_facts is not None
                                 else gather(root, memory_dir, listed=request.repo_files))
    flags = [f"+{flag}" for flag in ("security", "privacy") if request.options.get(flag)]
    return check_cache.result_key(root, memory_dir, list(request.families) + flags,
                                  request.packs.key() if request.packs else b"", request.max_file_bytes,
                                  check_cache.listing_digest(request.repo_files) + outside)


def open_request(request: CheckRequest):
    """``(request, early)``: the request with its memory dir normalized (the repository's
    files listed when the report family runs, the agent facts gathered when the agents family
    does), and the error result of a missing or unusable memory dir (None when the check can
    go on)."""
    root = str(request.project_root)
    memory_dir = files.memory_dir_name(request.memory_dir)
    request = replace(request, memory_dir=memory_dir)
    problem = files.check_memory_dir(root, memory_dir)
    if problem == files.MEMORY_DIR_MISSING:
        return request, CheckResult([], "INVALID", 1, failure=Failure(
            "MA-MEMDIR", files.memory_dir_missing(root, memory_dir), Span(memory_dir), 1))
    if problem is not None:
        return request, CheckResult([], "INVALID", 2, failure=Failure("MA-MEMDIR", f"Error: {problem}: {memory_dir}",
                                                                      Span(memory_dir)))
    if "report" in request.families and request.repo_files is None:
        # the report depends on the repository's file list (its glob column): listed once,
        # here, for the facts and for the result cache's key
        request = replace(request, repo_files=list_files(root))
    if "agents" in request.families and request.agent_facts is None:
        # the agents' instruction files are listed and read once, here, for the key and the family
        request = replace(request, agent_facts=gather(root, memory_dir, listed=request.repo_files))
    return request, None


def outside_inputs(root: str, memory_dir: str) -> bytes:
    """A digest of what plain `check` reads outside the managed files, for the result cache's
    key: the agent entry files, which optional folders exist (even empty), where the memory
    dir's symlinks lead, and the local overlay's state tree (paths, modes and bytes: its status depends on permissions too)."""
    h = hashlib.sha256(b"legacy-inputs\0")
    for name in AGENT_FILES:
        text = read_text(os.path.join(root, name))
        h.update(name.encode() + (b"\1" + text.encode("utf-8", "surrogateescape") if text is not None else b"\0"))
    for folder in FOLDERS:
        h.update(folder.encode() + (b"\1" if os.path.isdir(os.path.join(root, memory_dir, folder)) else b"\0"))
    # symlinks in the memory dir decide whether a route name escapes it (route_resolves)
    memory = os.path.join(root, memory_dir)
    for base, dirs, names in sorted(os.walk(memory, followlinks=False)):
        for name in sorted(dirs + names):
            path = os.path.join(base, name)
            if os.path.islink(path):
                h.update(b"link\0" + os.path.relpath(path, memory).encode("utf-8", "surrogateescape") + b"\0"
                         + os.path.realpath(path).encode("utf-8", "surrogateescape") + b"\0")
    state = state_root()
    for base, dirs, names in sorted(os.walk(state, followlinks=False)):
        for name in sorted(dirs + names):
            path = os.path.join(base, name)
            try:
                st = os.lstat(path)
                data = b""
                if os.path.isfile(path) and not os.path.islink(path) and st.st_size < 1 << 20:
                    with open(path, "rb") as handle:
                        data = handle.read()
            except OSError:
                st, data = None, b"?"
            h.update(os.path.relpath(path, state).encode("utf-8", "surrogateescape") + b"\0"
                     + (f"{st.st_mode}:{st.st_uid}".encode() if st else b"-") + b"\0" + data)
    return h.digest()


def read_text(path: str):
    """The text of a regular file (UTF-8, undecodable bytes replaced), or None."""
    if os.path.islink(path) or not os.path.isfile(path):
        return None
    data, _error = files.read_bytes(path, files.SIZE_CAP)
    return None if data is None else data.decode("utf-8", "replace")
