"""The facts of the agent rules (rules/agents/*.dl) for a repository and a request: the
instruction files extracted (analyzer/project/extract/agent_files.py), the repository's
listing and the configuration's agent keys. Apart from analyzer/query/agents.py, which
evaluates them, because a check answered from its result cache digests them into its key
(:func:`inputs_digest`) and must not import the engine for that."""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
from typing import Dict, List, Optional, Sequence

from analyzer.history.repofiles import list_files
from analyzer.project import config
from analyzer.project.extract.agent_files import extract


def gather(root: str, memory_dir: str = "docs/memory", paths: Sequence[str] = (), cwd: str = "",
           configured: Optional[Sequence[str]] = None, listed: Optional[tuple] = None,
           exclude: Optional[Sequence[str]] = None) -> Dict[str, list]:
    """The facts of rules/agents/*.dl for a repository and a request. ``configured`` and
    ``exclude`` default to the project configuration's ``agents`` and ``agents-exclude``
    (:class:`analyzer.project.config.ConfigError` for an unusable configuration file)."""
    loaded = config.load(root)
    values = loaded.values
    configured = values.get("agents", []) if configured is None else configured
    exclude = values.get("agents-exclude", []) if exclude is None else exclude
    files, source, complete = listed if listed is not None else list_files(root)
    facts = extract(root, files, exclude, config_settings(loaded)).rows
    manifest = posixpath.join(memory_dir, "manifest.md")
    facts["agent_memory_present"] = [(manifest,)] if os.path.isfile(os.path.join(root, manifest)) else []
    facts["agent_repo_file"] = [(p,) for p in files]
    facts["agent_request_path"] = [(p,) for p in paths]
    facts["agent_request_cwd"] = [(cwd,)] if cwd else []
    facts["agent_memory_manifest"] = [(manifest,)]
    facts["agent_configured"] = [(t,) for t in configured]
    return facts


#: The configuration keys that state what an agent tool's own (user-level) configuration holds.
CONFIG_SETTINGS = ("codex-project-doc-fallback-filenames", "codex-project-doc-max-bytes")


def config_settings(loaded) -> List[tuple]:
    """``agent_setting`` rows of the project configuration's agent keys (its file, the key's
    line; the configuration module has checked their types)."""
    rows = []
    source = posixpath.basename(loaded.path) if loaded.path else ""
    for key in CONFIG_SETTINGS:
        if key not in loaded.values:
            continue
        value, line = loaded.values[key], loaded.lines.get(key, 1)
        if isinstance(value, list):
            rows.append((source, key, 0, "list", "", line, 1))
            rows.extend((source, key, i, "string", str(v), line, 1) for i, v in enumerate(value, 1))
        else:
            rows.append((source, key, 0, "number", str(value), line, 1))
    return rows


def inputs_digest(facts: Dict[str, list]) -> bytes:
    """A digest of every agent fact a check evaluates (:func:`gather`'s: the instruction
    files' contents, the repository listing, the configuration's agents and agents-exclude,
    whether the manifest exists), for the check result cache's key."""
    text = json.dumps({rel: sorted(rows) for rel, rows in sorted(facts.items())}, ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).digest()
