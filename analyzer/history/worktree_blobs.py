"""The work tree's managed memory files named as Git names them: by blob id.

``analyze diff --base REV`` compares a commit with the work tree (the default head). Between
two commits, files and units are keyed by blob id, so only what differs is extracted
(analyzer/history/diff_narrow.py, analyzer/history/narrow_files.py); the work tree has no blob ids, so it
used to be read and extracted whole, and the diff grew with the project. Its managed files
are read for the comparison anyway: hashing their bytes as Git hashes a blob (SHA-1 of
``b"blob <size>\\0"`` and the bytes) names them exactly as a commit holding the same bytes
names them, whatever Git's index or file times say (which are never trusted here: a file
with the same bytes is the same blob, and no other is).

Only a plain memory dir is named this way: every managed ``*.md`` a regular file that reads
within the size cap (and a README, which a commit's files must but the work tree's need
not, decodes), no symlink, no directory named ``*.md``, nothing the inventory warns
about. Anything else answers None, and the caller reads the work tree whole as before, which
reports what is wrong (fail closed: a file that cannot be read is never taken as absent).
Uncommitted, untracked and deleted files need nothing special: the listing is what is on
disk. Nothing is decided here.
"""

from __future__ import annotations

import hashlib
import os
from typing import Dict, Optional, Tuple

from analyzer.project import files
from analyzer.project.loader import file_kind


def blob_id(data: bytes, algorithm: str = "sha1") -> str:
    """The id Git gives a blob with these bytes (``algorithm``: the repository's object
    format, sha1 or sha256)."""
    digest = hashlib.new(algorithm, b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def object_format(oid: str) -> str:
    """The object format (hash algorithm) of the repository that named an object ``oid``."""
    return "sha256" if len(oid) == 64 else "sha1"


def text_id(oid: str, data: bytes) -> str:
    """A digest of the text of the blob ``oid`` with bytes ``data``: its blob id, or that of
    its bytes without a byte order mark (decoding drops it), so that two files have the same
    digest exactly when they decode to the same text."""
    if not data.startswith(files.BOM):
        return oid
    return blob_id(data[len(files.BOM):], object_format(oid))


def worktree_files(root: str, memory_dir: str, algorithm: str = "sha1"
                   ) -> Optional[Tuple[Dict[str, str], Dict[str, bytes]]]:
    """(module -> blob id, blob id -> bytes) of every managed ``*.md`` of the work tree's
    memory dir, as :func:`analyzer.history.revisions.list_files` and :meth:`analyzer.history.git.Repo.blobs`
    give a commit's; None when the memory dir is not plain (see the module docstring)."""
    if files.memory_dir_name(memory_dir) != memory_dir or files.check_memory_dir(root, memory_dir) is not None:
        return None
    folder = os.path.join(root, memory_dir)
    inventory = files.inventory(folder, root)
    if inventory.problems or inventory.not_files:
        return None
    listing: Dict[str, str] = {}
    blobs: Dict[str, bytes] = {}
    for module in inventory.modules:
        data, _error = files.read_bytes(os.path.join(folder, module))
        if data is None or (file_kind(module) == "readme" and files.decode(module, data)[0] is None):
            return None  # a README is never extracted from the work tree, so it may be undecodable
        oid = listing[module] = blob_id(data, algorithm)
        blobs[oid] = data
    return listing, blobs
