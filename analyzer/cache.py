"""The facts cache: one JSON file per extracted memory file, keyed by a hash of its content.

Lives under ``$XDG_CACHE_HOME/memory-analyzer/facts`` (never inside the analyzed project).
The key covers everything extraction depends on: file kind, module path, entry schema,
the extractor version and the text itself. A missing, unreadable or corrupt cache entry is
a miss, never an error; a cache that cannot be written is silently skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Optional

from analyzer.extract.grammars import cache_root
from analyzer.extract.sink import Sink

# Bump whenever an extractor changes what it emits for the same input.
EXTRACTOR_VERSION = "3"


def key(kind: str, module: str, schema: int, text: str) -> str:
    """The cache key of one file's extraction."""
    h = hashlib.sha256()
    h.update(f"{EXTRACTOR_VERSION}\0{kind}\0{module}\0{schema}\0".encode("utf-8"))
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _path(digest: str) -> str:
    return os.path.join(str(cache_root()), "facts", digest[:2], digest + ".json")


def load(digest: str) -> Optional[Sink]:
    """The cached extraction for ``digest``, or None."""
    try:
        with open(_path(digest), "r", encoding="utf-8") as fh:
            return Sink.from_json(json.load(fh))
    except (OSError, ValueError):
        return None


def store(digest: str, sink: Sink) -> None:
    """Write one extraction to the cache (atomically; failures are ignored)."""
    target = _path(digest)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(sink.to_json(), fh, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, target)
    except OSError:
        pass
