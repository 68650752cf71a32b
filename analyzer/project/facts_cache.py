"""The facts cache: ``marshal``-ed :meth:`Sink.to_plain` forms of extracted memory files (facts
grouped by relation, positions as machine-integer arrays), entries of the verified store
(analyzer/core/cache.py, area ``facts``): one per file (the manifest, the files a prefetch
helper extracts, a project's facts too large for one entry), one per project's files read
from disk (:class:`ProjectFiles`), or one per bundle of given texts (:class:`Bundle`). Inside an entry of several files each file is still
found by its own :func:`key`.

:func:`key` hashes everything extraction depends on: the entry format and byte order, file
kind, module path, entry schema, the extractor's code and grammars (with the Python version:
``marshal``'s format may change) and the text. Loading marshal is several times faster than
decoding JSON (docs/performance.md).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from functools import lru_cache
from typing import Collection, Dict, Optional

from analyzer.core import digest_memo
from analyzer.core.cache import MAX_ENTRY_BYTES, Area
from analyzer.core.fingerprint import matching, read
from analyzer.core.resources import data_dir
from analyzer.project.extract import sink
from analyzer.project.extract.sink import Sink

FACTS = Area("facts", ".marshal", fanout=True)


@lru_cache(maxsize=None)
def extractor_version() -> str:
    """A digest of the code and grammars extraction runs (a hand-bumped version number was
    forgotten once already: cached facts then lacked a relation added since); read from the
    memo while none of them changed (analyzer/core/digest_memo.py)."""
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # analyzer/
    anchors = [here, *(str(data_dir(kind)) for kind in ("grammar", "facts", "rules"))]
    return digest_memo.memoized("extractor", anchors, lambda: _extractor_version(here))


def _extractor_version(here: str):
    """:func:`extractor_version` computed, and the paths it read or listed (plain strings and
    os.scandir: pathlib's objects cost a cold read about as much as the hashing)."""
    h = hashlib.sha256(sys.version.encode())
    project, facts, rules = os.path.join(here, "project"), str(data_dir("facts")), str(data_dir("rules"))
    listed = [os.path.join(project, "extract"), str(data_dir("grammar")), os.path.join(rules, "entries"),
              os.path.join(rules, "manifest")]
    sources = [os.path.join(project, "markdown.py"), os.path.join(project, "files.py"), os.path.join(project, "facts_cache.py"),
               *matching(listed[0], "*.py"),
               *matching(listed[1], "*.lark"),
               # extraction judges each file's entries and the manifest with these rules (the
               # judgement program rules/entries/entries.dl and what it includes: analyzer/project/extract/judge.py)
               os.path.join(facts, "entry_fields.dl"), os.path.join(facts, "manifest_fields.dl"),
               *matching(listed[2], "*.dl"), *matching(listed[3], "*.dl"),
               os.path.join(rules, "vocab", "tasks.dl")]
    for path in sources:
        if os.path.isfile(path):
            h.update(os.path.basename(path).encode() + b"\0" + read(path))
    return h.hexdigest()[:16], sources + listed


def key(kind: str, module: str, schema: int, text: str) -> str:
    """The cache key of one file's extraction."""
    h = hashlib.sha256()
    # the entry format is named too: an entry of another format never meets this key
    h.update(f"{sink.FORMAT}\0{sink.BYTE_ORDER}\0{extractor_version()}\0{kind}\0{module}\0{schema}\0".encode("utf-8"))
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def has(digest: str) -> bool:
    """Whether an extraction for ``digest`` is stored (it is still verified on load)."""
    return FACTS.has(digest)


def load(digest: str) -> Optional[Sink]:
    """The cached extraction for ``digest``, or None (a bad entry is discarded)."""
    data = FACTS.get(digest)
    if data is None:
        return None
    try:
        # loads() on the bytes: load() on a file object reads piecemeal and is 4x slower
        found = Sink.from_plain(marshal.loads(data))
    except (EOFError, ValueError, TypeError):
        found = None
    if found is None:
        FACTS.discard(digest, "holds data of the wrong shape")
    return found


def bundle_key(path_keys) -> str:
    """The key of one entry holding the extractions of several files: their ``(path, facts
    key)`` pairs, in any order."""
    h = hashlib.sha256(b"bundle-1\0")
    for path, digest in sorted(path_keys):
        h.update(f"{path}\0{digest}\0".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class ProjectFiles:
    """The extractions of a project's files as read from disk (:func:`analyzer.project.loader.load_project`,
    the manifest aside), kept in one entry: a cold load wrote one entry per memory file, and
    creating ~28 entry files cost a 1,000-entry repository more than marshalling them
    (docs/performance.md, "Fleet workers"). The entry's key is the :func:`bundle_key` of
    the files' paths and facts keys, so a copy of the project elsewhere (a worktree) finds
    it; a small second entry, by where the project is (its real path and memory dir),
    names the last one written there, so that after an edit the unchanged files are taken
    from it. Which facts a file gets is decided by its own :func:`key` inside the entry,
    never by the entry's key, as in a :class:`Bundle`."""

    def __init__(self, root: str, memory_dir: str, path_keys) -> None:
        self.key = bundle_key(path_keys)
        where = f"project-files-1\0{extractor_version()}\0{os.path.realpath(root)}\0{memory_dir}"
        self.where = hashlib.sha256(where.encode("utf-8", "surrogatepass")).hexdigest()
        # the entry the project's place names (a copy found by its files names none yet)
        self.named = FACTS.get_marshal(self.where, lambda value: isinstance(value, str))
        found = load_bundle(self.key)
        self.whole = found is not None  # the entry of exactly these files
        if found is None and self.named:
            found = load_bundle(self.named)
        #: facts key -> extraction, of the entry found (taken out as the files are loaded)
        self.held: Dict[str, Sink] = found or {}

    def keep(self, extracted: Optional[Dict[str, Sink]]) -> None:
        """Write the entry of these files (``extracted``: facts key -> extraction; None: it is
        stored as it is), and name it at the project's place. Facts too large for one entry
        (:data:`~analyzer.core.cache.MAX_ENTRY_BYTES`, which is never read) are stored one
        entry per file, as before, each unless it is there."""
        if extracted is not None and not store_bundle(self.key, extracted):
            for digest, found in extracted.items():
                if not FACTS.has(digest):
                    store(digest, found)
            return
        if self.named != self.key:
            FACTS.put(self.where, marshal.dumps(self.key))


def load_bundle(digest: str) -> Optional[Dict[str, Sink]]:
    """facts key -> extraction of every file of a bundle (:func:`store_bundle`), or None
    (missing, or a bad entry, which is discarded)."""
    data = FACTS.get(digest)
    if data is None:
        return None
    try:
        plain = marshal.loads(data)
        found = {key: Sink.from_plain(value) for key, value in plain.items()} if isinstance(plain, dict) else None
    except (EOFError, ValueError, TypeError, AttributeError):
        found = None
    if found is None or not all(isinstance(key, str) and sink is not None for key, sink in found.items()):
        FACTS.discard(digest, "holds data of the wrong shape")
        return None
    return found


def store_bundle(digest: str, extracted: Dict[str, Sink], relations: Optional[Collection[str]] = None) -> bool:
    """Write the extractions of several files (facts key -> sink) as one entry: a history
    reading extracts 20,000 small snippet files, and one entry file each cost more to
    create than to extract (a bundle per snippet revision). ``relations``: only these
    relations' facts are kept (the entry is then for a reader that asks for no other).
    False when the entry was not written (too large to be read back, or the cache unwritable)."""
    plain = {key: sink.to_plain() for key, sink in extracted.items()}
    if relations is not None:
        wanted = set(relations)
        plain = {key: (*value[:2], {rel: cols for rel, cols in value[2].items() if rel in wanted}, *value[3:])
                 for key, value in plain.items()}
    try:
        payload = marshal.dumps(plain)
    except ValueError:  # a value marshal cannot write (never expected)
        return False
    return len(payload) < MAX_ENTRY_BYTES - 4096 and FACTS.put(digest, payload)


class Bundle:
    """One facts-cache entry holding the extractions of several loads' files (a chunk of a
    history reading's snippet revisions: :func:`analyzer.project.loader.load_texts` with
    ``bundled=`` this): read when the first load asks, written by :meth:`store` when a load
    extracted a file it did not hold. Each file is found by its own facts key, so the
    bundle's key only decides which entry is read, never which facts a file gets."""

    def __init__(self, digest: str, relations: Optional[Collection[str]] = None) -> None:
        self.digest = digest
        # only these relations' facts are stored (:func:`store_bundle`): a history reading's
        # snippets are read for a few relations, and unmarshalling the rest of 20,000 files'
        # extractions was a tenth of a first reading
        self.relations = relations
        self._unused: Optional[Dict[str, Sink]] = None  # stored extractions not yet handed out
        self.extracted: Dict[str, Sink] = {}  # facts key -> extraction, of every load so far
        # the facts keys of every load so far, recorded when the load starts: inside
        # extraction.judged_together() a load's extractions are kept only when the block ends,
        # and a later load of the block must still count them as held (else each warm reading
        # wrote its bundle again)
        self.seen: set = set()
        self.changed = False

    def unused(self) -> Dict[str, Sink]:
        """The stored extractions no load has taken yet (a load takes each one it uses)."""
        if self._unused is None:
            self._unused = load_bundle(self.digest) or {}
        return self._unused

    def keep(self, extracted: Dict[str, Sink], changed: bool) -> None:
        """Record one load's extractions (``changed``: some were not stored)."""
        self.extracted.update(extracted)
        self.changed = self.changed or changed

    def store(self) -> None:
        """Write the bundle when a load extracted anything it did not hold."""
        if self.changed and self.extracted:
            store_bundle(self.digest, self.extracted, self.relations)
            self.changed = False


def store(digest: str, extracted: Sink) -> None:
    """Write one extraction to the cache (atomically; a cache that cannot be written is skipped)."""
    try:
        payload = marshal.dumps(extracted.to_plain())
    except ValueError:  # a value marshal cannot write (never expected)
        return
    FACTS.put(digest, payload)
