"""The check result cache: a check whose inputs are unchanged is answered from the result
of the last identical check, without loading the fact base or evaluating the rules.

The key covers everything a check result depends on inside the memory dir: the Python,
engine, rule and extractor versions (the program cache key, the rule-set fingerprint and
the extractor version), the project root and memory dir, the families run, and the inventory with the
bytes of every managed file; with the report family (``analyze report``, ``check --format
markdown``), also a digest of the repository's file list its glob column matches, which
the run lists anyway (``git ls-files`` or the walk: analyzer/history/repofiles.py).
What a result depends on outside the memory dir is stored with
it and checked again on every hit: the state of each evidence source path the freshness rules
read (stat only), the Git HEAD when it was consulted, and for the scan families the agent
instruction files and the local overlay directory (analyzer/query/scans.py outside_probe). Any difference, a managed path
that is a symlink or not a regular file, or any problem reading the cache is a miss: the check
then runs in full (and reports those problems itself). Lives under
``$XDG_CACHE_HOME/memory-analyzer/results`` (never in the analysed project); ``--no-cache``
turns it off like every other cache.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from typing import Dict, Optional, Sequence, Tuple

from analyzer.core.cache import Area
from analyzer.core.fingerprint import ruleset_fingerprint
from analyzer.core.resources import data_file
from analyzer.engine.keys import cache_key
from analyzer.project import files

FORMAT = b"memory-analyzer-check-result-6"  # bumped when the result model changes
RESULTS = Area("results", ".pickle", fanout=True)


def listing_digest(listing: Optional[tuple]) -> bytes:
    """A digest of a repository file listing ``(paths, source, complete)`` (b"" for none)."""
    if listing is None:
        return b""
    paths, source, complete = listing
    h = hashlib.sha256(f"{source}\0{int(bool(complete))}\0".encode())
    for path in paths:
        h.update(path.encode("utf-8", "surrogateescape") + b"\0")
    return h.digest()


def result_key(root: str, memory_dir: str, families: Sequence[str], packs: bytes = b"",
               max_file_bytes: Optional[int] = None, repo_files: bytes = b"") -> Optional[str]:
    """The key of a check over the project as it is now, or None when the memory dir holds
    anything the full check must report (a symlink, a non-regular or unreadable file).
    ``packs``: the `--rules` packs' paths and content digests (PackSet.key); ``max_file_bytes``:
    the size cap (a file over it has no key, and a smaller cap never reuses a larger one's answer);
    ``repo_files``: :func:`listing_digest` of the repository's files, for the report family."""
    from analyzer.project.facts_cache import extractor_version

    inv = files.inventory(os.path.join(root, memory_dir), root)
    if inv.problems or inv.not_files:
        return None
    h = hashlib.sha256(FORMAT + sys.version.encode() + b"\0")
    # the program's key covers Python, the engine and the program's path; the fingerprint every rule file
    h.update(cache_key(data_file("rules", "check/check.dl")).encode() + b"\0" + ruleset_fingerprint().encode()
             + b"\0" + extractor_version().encode())
    limit = files.SIZE_CAP if max_file_bytes is None else max_file_bytes
    h.update(f"\0{os.path.realpath(root)}\0{memory_dir}\0{','.join(families)}\0{limit}\0".encode() + packs + b"\0")
    if repo_files:
        h.update(b"repo-files\0" + repo_files)
    for module in inv.modules:
        # a file over the cap is an error the full check must report: no key, no cached answer
        data, error = files.read_bytes(os.path.join(root, memory_dir, module), limit)
        if data is None:
            return None
        h.update(module.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def load(key: str, root: str):
    """The cached result for ``key`` if its outside inputs are unchanged, else None."""
    payload = RESULTS.get(key)  # verified against its digest; None when missing or bad
    if payload is None:
        return None
    try:
        result, probes, git = pickle.loads(payload)
    except Exception:  # an entry from another version of the model is a miss, never an error
        return None
    if not _still_valid(root, probes, git):
        return None
    return result


def _still_valid(root: str, probes: Dict[str, str], git: Optional[Tuple[bool, str]]) -> bool:
    from analyzer.query import scans

    real_root = os.path.realpath(root)
    if any(files.source_state(root, real_root, path) != state for path, state in probes.items() if path != scans.PROBE):
        return False
    if scans.PROBE in probes and not scans.probe_still_valid(root, probes[scans.PROBE]):
        return False  # an agent instruction file or the local overlay changed
    if git is not None:
        from analyzer.history.git import head_commit

        return head_commit(root) == git
    return True


def store(key: str, result, probes: Dict[str, str], git: Optional[Tuple[bool, str]]) -> None:
    """Keep ``result`` with the outside inputs it was computed from (silently skipped when
    the cache cannot be written)."""
    RESULTS.put(key, pickle.dumps((result, probes, git), protocol=pickle.HIGHEST_PROTOCOL))
