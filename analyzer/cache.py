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
from functools import lru_cache
from pathlib import Path
from typing import Optional

from analyzer.resources import data_dir
from analyzer.extract.grammars import cache_root
from analyzer.extract.sink import Sink

@lru_cache(maxsize=None)
def extractor_version() -> str:
    """A digest of the code and grammars extraction runs (a hand-bumped version number was
    forgotten once already: cached facts then lacked a relation added since)."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    sources = [here / "markdown.py", here / "files.py", here / "cache.py", *sorted((here / "extract").glob("*.py")),
               *sorted(data_dir("grammar").glob("*.lark"))]
    for path in sources:
        if path.is_file():
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def key(kind: str, module: str, schema: int, text: str) -> str:
    """The cache key of one file's extraction."""
    h = hashlib.sha256()
    h.update(f"{extractor_version()}\0{kind}\0{module}\0{schema}\0".encode("utf-8"))
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
