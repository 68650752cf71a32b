"""The repo-external local overlay (spec §11) -> ``overlay_*`` facts. Read only, never written.

Only facts are produced here; the overlay status (DISABLED/UNBOUND/REVIEW/BOUND) is decided
by rules from ``overlay_dir``, ``overlay_binding``, ``overlay_current_root`` and
``overlay_issue``.
"""

from __future__ import annotations

import os
import stat

from analyzer.project import files
from analyzer.project.extract.grammars import terminal
from analyzer.project.extract.sink import Sink

CORRUPT = "Local overlay binding file is corrupt."


def state_root() -> str:
    """``$XDG_STATE_HOME/memory-custodian``, else ``~/.local/state/memory-custodian`` (§11.1)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "memory-custodian")


def _private(path: str, is_kind, mode: int) -> bool:
    """``path`` is of the expected kind (never a symlink), owned by the current user, with
    exactly ``mode`` (§11.1: directories 0700, files 0600)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not is_kind(info.st_mode):
        return False
    return not hasattr(os, "getuid") or (info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == mode)


def _safe_dir(path: str) -> bool:
    """A private directory of the overlay (mode 0700)."""
    return _private(path, stat.S_ISDIR, 0o700)


def _safe_file(path: str) -> bool:
    """A private regular file of the overlay (mode 0600)."""
    return _private(path, stat.S_ISREG, 0o600)


def _read(path: str, sink: Sink = None):
    """The text of an overlay file, or None; an unsafe file is reported and not read."""
    if sink is not None and os.path.lexists(path) and not _safe_file(path):
        sink.fact("overlay_issue", f"Unsafe local overlay file: {path} must be a regular file with mode 0600.")
        return None
    data, error = files.read_bytes(path)
    if data is None:
        return None
    text, _ = files.decode(os.path.basename(path), data)
    return text


def _bindings(path: str, project_id: str, sink: Sink) -> None:
    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate key")
        return dict(pairs)

    text = _read(path) if _safe_file(path) else None  # an unsafe binding file counts as corrupt
    import json  # only here: a read without a local overlay binding need not import it

    try:
        data = json.loads(text, object_pairs_hook=no_duplicates) if text is not None else None
    except (ValueError, RecursionError):  # RecursionError: arrays or objects nested too deeply
        data = None
    roots = data.get("roots") if isinstance(data, dict) else None
    valid = (isinstance(data, dict) and data.get("project_id") == project_id and isinstance(roots, list) and roots
             and all(_canonical_root(r) for r in roots) and len(set(roots)) == len(roots))
    if not valid:
        sink.fact("overlay_issue", CORRUPT)
        return
    for root in roots:
        sink.fact("overlay_binding", root)


def _canonical_root(root) -> bool:
    """A bound root as §11 wants it: an absolute, canonical path. A NUL byte or a lone
    surrogate (JSON allows ``\\u0000`` and ``\\ud800``) is no path: the binding is corrupt,
    where ``realpath`` raised ValueError (exit 3)."""
    if not isinstance(root, str) or "\x00" in root:
        return False
    try:
        root.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return os.path.isabs(root) and os.path.realpath(root) == root


def _local_manifest(local: str, project_id: str, sink: Sink) -> list:
    text = _read(os.path.join(local, "manifest.md"), sink)
    if text is None:
        sink.fact("overlay_issue", "Local manifest is missing or unreadable.")
        return []
    terms = {name: terminal("local_manifest", name) for name in ("LOCAL_TITLE", "LOCAL_SECTION", "LOCAL_META",
                                                                  "LOCAL_MODULE")}
    headings, meta, modules, section = [], {}, [], ""
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if terms["LOCAL_TITLE"].fullmatch(line) or terms["LOCAL_SECTION"].fullmatch(line):
            section = line.lstrip("#").strip().casefold()
            headings.append(section)
            continue
        m = terms["LOCAL_META"].fullmatch(line)
        if m and len(headings) == 1:
            meta.setdefault(m.group("key"), []).append(m.group("value"))
            continue
        m = terms["LOCAL_MODULE"].fullmatch(line)
        if m and (section == "preferences") == (m.group("module") == "preferences.md") and section:
            modules.append((m.group("module"), n))
            continue
        sink.fact("overlay_issue", f"Local manifest has an invalid declaration on line {n}: {line.strip()!r}", line=n)
    if headings != ["local memory overlay", "preferences", "profiles"]:
        sink.fact("overlay_issue", "Local manifest headings must be Local Memory Overlay, Preferences, Profiles.")
    if meta.get("local_overlay_schema_version") != ["1"]:
        sink.fact("overlay_issue", "Local manifest requires exactly one local_overlay_schema_version: 1.")
    if meta.get("project_id") != [project_id]:
        sink.fact("overlay_issue", "Local manifest project_id does not match the shared manifest.")
    names = [m for m, _ in modules]
    if names.count("preferences.md") != 1:
        sink.fact("overlay_issue", "Local manifest must declare preferences.md exactly once.")
    if len(set(names)) != len(names):
        sink.fact("overlay_issue", "Local manifest declares a module more than once.")
    return sorted(set(names))


def load_overlay(loader, info) -> None:
    """Read the overlay of this project (if the shared contract allows it) into the loader."""
    loader.base.add("overlay_current_root", os.path.realpath(loader.root))
    if not info.exact_07_valid:
        loader.base.add("overlay_dir", "", "disabled")
        return
    directory = os.path.join(state_root(), "projects", info.project_id)
    sink = Sink(directory)
    if not os.path.lexists(directory):
        sink.fact("overlay_dir", directory, "absent")
        loader.merge(sink, None)
        return
    local = os.path.join(directory, "local")
    if not _safe_dir(directory) or (os.path.lexists(local) and not _safe_dir(local)):
        sink.fact("overlay_dir", directory, "unsafe")
        sink.fact("overlay_issue", f"Unsafe local overlay project directory: {directory}")
        loader.merge(sink, None)
        return
    sink.fact("overlay_dir", directory, "present")
    bindings = os.path.join(directory, "bindings.json")
    if os.path.lexists(bindings):
        _bindings(bindings, info.project_id, sink)
    if not os.path.lexists(local):
        sink.fact("overlay_local_missing", "bindings.json" if os.path.lexists(bindings) else "")
        if os.path.lexists(bindings):
            sink.fact("overlay_issue", "Local overlay binding exists but the required local directory is missing.")
        loader.merge(sink, None)
        return
    if not _safe_dir(os.path.join(local, "profiles")):
        sink.fact("overlay_issue", "Local overlay profiles/ directory is missing or unsafe.")
    for module in _local_manifest(local, info.project_id, sink):
        sink.fact("overlay_module", module)
        text = _read(os.path.join(local, module), sink)
        if text is None:
            sink.fact("overlay_issue", f"Declared local module is missing or unreadable: {module}")
            continue
        module_sink = Sink(os.path.join(local, module))
        from analyzer.project.extract.entries import extract_entries  # only when a local module exists

        extract_entries(text, module, info.entry_schema, module_sink, prefix="overlay_")
        loader.merge(module_sink, text)
        loader.project.texts[f"local/{module}"] = text  # the pack uses this text, never a second read
        loader.project.unit_ranges[f"local/{module}"] = module_sink.units
    loader.merge(sink, None)
