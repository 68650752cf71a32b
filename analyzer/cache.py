"""The facts cache: one ``marshal`` file per extracted memory file, keyed by a hash of its content.

Lives under ``$XDG_CACHE_HOME/memory-analyzer/facts`` (never inside the analyzed project).
The key covers everything extraction depends on: file kind, module path, entry schema,
the extractor version and the text itself. A missing, unreadable or corrupt cache entry is
a miss, never an error; a cache that cannot be written is silently skipped.

The payload is :meth:`Sink.to_plain` (tuples, lists, strings, ints) written with ``marshal``:
loading it is several times faster than decoding JSON and re-building tuples, which was the
largest part of a warm load (docs/performance.md, "analyze read"). ``marshal``'s format may
change between Python versions, so the Python version is part of the key.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
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
    h = hashlib.sha256(sys.version.encode())
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
    return os.path.join(str(cache_root()), "facts", digest[:2], digest + ".marshal")


def has(digest: str) -> bool:
    """Whether an extraction for ``digest`` is stored (it may still fail to load)."""
    return os.path.isfile(_path(digest))


def load(digest: str) -> Optional[Sink]:
    """The cached extraction for ``digest``, or None."""
    try:
        with open(_path(digest), "rb") as fh:
            data = fh.read()
        # loads() on the bytes: load() on a file object reads piecemeal and is 4x slower
        return Sink.from_plain(marshal.loads(data))
    except (OSError, EOFError, ValueError, TypeError):
        return None


def store(digest: str, sink: Sink) -> None:
    """Write one extraction to the cache (atomically; failures are ignored)."""
    target = _path(digest)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            marshal.dump(sink.to_plain(), fh)
        os.replace(tmp, target)
    except (OSError, ValueError):  # ValueError: a value marshal cannot write (never expected)
        pass
