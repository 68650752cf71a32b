"""The memory dir of a Git revision as facts: blobs -> the work tree's extractors -> git_* facts.

A revision's managed files are listed with ``git ls-tree`` and read with one
``git cat-file --batch``; each file is decoded and parsed in memory by exactly the
extractors the work tree uses (:func:`analyzer.project.loader.load_texts`, entry grammar chosen by
that revision's own manifest, §4.2.1), so a unit means the same thing at every revision.
Nothing is decided here: the revision's facts are relabelled mechanically into the
``git_*`` relations of facts/schema.dl ("Git revisions"), and unit texts are digested so
that rules can tell which units changed.

Fail closed (spec §9.5 step 2): a managed file that exists at a revision but cannot be read
(a symlink, a submodule, over the size cap, not UTF-8) makes the whole review unavailable.
A missing file is simply absent (the rules then see what the extractors say about that).
"""

from __future__ import annotations

import bisect
import hashlib
from typing import Callable, Collection, Dict, Iterable, List, Optional, Tuple

from analyzer.project import files
from analyzer.history.git import REGULAR_MODES, FileError, GitError, Repo
from analyzer.history.decode import decode_or_refuse
from analyzer.project.loader import Project, file_kind, load_texts
from analyzer.history.unit_digests import UNIT_SOURCES, placed_units, relations, unit_rows

# relation of a revision's fact base (each in READ) -> (the git_* relation carrying it, revision first;
# the kind of unit its first column identifies)
RELABEL = {
    "entry": ("git_entry", "entry"),
    "entry_subject": ("git_entry_subject", "entry"),
    "entry_facet": ("git_entry_facet", "entry"),
    "entry_relation": ("git_entry_relation", "entry"),
    "evidence_source": ("git_evidence_source", "entry"),
    "subject": ("git_subject", "subject"),
    "subject_alias": ("git_subject_alias", "subject"),
    "subject_canonical_ref": ("git_subject_canonical_ref", "subject"),
    "rec_entry": ("git_rec_entry", "record"),
    "subject_merged_into": ("git_subject_merged_into", "subject"),
    "rec": ("git_rec", "record"),
}


class Revision:
    """One revision of a merge review: its name, commit, label and parsed memory dir.

    ``rev``: "base", "left", "right" (merge review), "head" (diff) or a commit id (history);
    ``sha``: "" for the work tree; ``label``: "merge base", "HEAD", "worktree" or the ref as
    given; ``blob_ids``: (module, blob id) of its managed files, sorted (equal iff the same
    files). ``project`` is parsed on first use when ``load`` is given instead of it.
    ``digests``: module -> blob id of each file, when ``project`` was parsed from parts of
    them (analyzer/history/narrow_files.py): :func:`file_digests` then gives those; ``line_maps``:
    module -> the ``(line in the part, line in the file)`` at which each part of a file
    starts, in order (:meth:`file_line`); ``reordered``: when ``project`` holds only some
    units of a changed file, the revision compared with it -> the ``(kind, id, module)`` of
    the units off the common subsequence of their file's order (analyzer/history/unit_order.py),
    found from every unit's stored order (which ``project`` alone no longer gives);
    ``sources``: module -> the bytes of each file ``project`` holds only parts of."""

    def __init__(self, rev: str, sha: str, label: str, project: Optional[Project],
                 blob_ids: Tuple[Tuple[str, str], ...], load: Optional[Callable[[], Project]] = None,
                 digests: Optional[Dict[str, str]] = None,
                 line_maps: Optional[Dict[str, List[Tuple[int, int]]]] = None,
                 reordered: Optional[Dict[str, frozenset]] = None,
                 sources: Optional[Dict[str, bytes]] = None) -> None:
        self.rev, self.sha, self.label, self.blob_ids = rev, sha, label, blob_ids
        self._project, self._load, self.digests = project, load, digests
        self.line_maps = line_maps or {}
        self.reordered = reordered
        self.sources = sources or {}
        self._relations: Optional[Dict[str, set]] = None
        self._placed: Optional[Dict[str, List[Tuple[str, str, int]]]] = None

    def relations(self) -> Dict[str, set]:
        """The relations of :data:`analyzer.history.unit_digests.READ` of :attr:`project`'s
        fact base, asked for once: a comparison reads them for the units, the files, the
        attributes, the parts and the issues of each revision (a first readiness reading
        asked 2,002 fact bases for them 10,000 times)."""
        if self._relations is None:
            self._relations = relations(self.project)
        return self._relations

    def placed(self) -> Dict[str, List[Tuple[str, str, int]]]:
        """:func:`analyzer.history.unit_digests.placed_units` of :meth:`relations`, built
        once (the units' digests and their parts both start from it)."""
        if self._placed is None:
            self._placed = placed_units(self.relations())
        return self._placed

    def whole_text(self, module: str) -> Optional[str]:
        """The whole text of ``module`` at the revision (None when it has no such file):
        a file ``project`` holds only parts of is decoded from its bytes (``sources``)."""
        if module in self.sources:
            data = self.sources[module]
            return data[len(files.BOM) if data.startswith(files.BOM) else 0:].decode("utf-8")
        return self.project.texts.get(module)

    def file_line(self, module: str, line: int) -> int:
        """The line of the whole file that ``line`` of the parsed ``module`` is."""
        parts = self.line_maps.get(module)
        if not parts:
            return line
        at = bisect.bisect_right(parts, (line, float("inf"))) - 1
        first, whole = parts[max(at, 0)]
        return whole + line - first

    @property
    def project(self) -> Project:
        """The revision's parsed memory dir (parsed now if it was not yet)."""
        if self._project is None:
            self._project = self._load()
        return self._project

    @property
    def loaded(self) -> bool:
        """Whether :attr:`project` is parsed already."""
        return self._project is not None

    def modules(self) -> List[str]:
        """Every managed file of the revision (``memory_file``), without parsing it."""
        if self.loaded:
            return [module for (module,) in self.relations().get("memory_file", ())]
        return [module for module, _ in self.blob_ids]


def list_files(repo: Repo, sha: str, memory_dir: str, label: str) -> Dict[str, str]:
    """module -> blob id of every managed ``*.md`` below the memory dir at ``sha``."""
    folder = repo.prefix + memory_dir.strip("/")
    found: Dict[str, str] = {}
    entries = repo.tree(sha, folder)
    if not entries:
        for part in _ancestors(folder):
            if repo.is_tree_symlink(sha, part):
                raise GitError(f"{label}: memory dir component {part!r} is a symlink")
    for entry in entries:
        module = entry.path[len(folder) + 1:]
        top = module.split("/", 1)[0]
        is_md = module.casefold().endswith(".md")
        if entry.mode == "120000" and (is_md or (top == module and top in files.MANAGED_DIR_NAMES)):
            raise FileError("MA-FILE-SYMLINK", f"{memory_dir}/{module}", "managed memory path is a symlink", where=label)
        if not is_md:
            continue
        if not files.name_is_utf8(module):  # as the work tree's inventory refuses it (analyzer/project/files.py)
            raise FileError("MA-FILE-NAME", files.shown_name(f"{memory_dir}/{module}"),
                            "file name is not valid UTF-8; not read", where=label)
        if entry.kind != "blob" or entry.mode not in REGULAR_MODES:
            raise FileError("MA-FILE-NOT-REGULAR", f"{memory_dir}/{module}", "managed memory path is not a regular file",
                            where=label)
        found[module] = entry.oid
    return found


def _ancestors(folder: str) -> List[str]:
    parts = folder.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def decode_files(listing: Dict[str, str], blobs: Dict[str, bytes], memory_dir: str, label: str,
                 decoded: Optional[Dict[Tuple[str, str], str]] = None, unread: Collection[str] = ()) -> Dict[str, str]:
    """module -> decoded text; any file that cannot be read makes the review unavailable.
    ``decoded``: texts of (module, blob id) decoded for another revision, reused (and added to).
    ``unread``: modules known to decode (analyzer/history/narrow_files.py), whose size alone is
    checked and which are left out."""
    texts = {}
    decoded = {} if decoded is None else decoded
    for module, oid in sorted(listing.items()):
        if (module, oid) in decoded:  # the same bytes at the same path decode the same
            texts[module] = decoded[module, oid]
            continue
        data = blobs[oid]
        path = f"{memory_dir}/{module}"
        if len(data) > files.SIZE_CAP:
            raise FileError("MA-FILE-UNREADABLE", path, f"file is {len(data)} bytes, over the {files.SIZE_CAP} byte limit",
                            where=label)
        if module in unread:
            continue
        texts[module] = decoded[module, oid] = decode_or_refuse(data, path, label)
    return texts


def read_revisions(repo: Repo, specs: List[Tuple[str, str, str]], memory_dir: str,
                   use_cache: bool, worktree: Optional[Project] = None, lazy: Iterable[str] = ()) -> List[Revision]:
    """Parse the memory dir of each ``(rev, sha, label)``; blobs shared by revisions are read
    once. A revision whose managed files are exactly the work tree's (``worktree``, already
    loaded) reuses its facts: the same texts through the same extractors give the same facts.
    The revisions ``lazy`` names are parsed on first use of their project (every file is
    decoded now all the same: one that cannot be makes the review unavailable)."""
    listings = {rev: list_files(repo, sha, memory_dir, label) for rev, sha, label in specs}
    blobs = repo.blobs(oid for listing in listings.values() for oid in listing.values())
    out = []
    parsed: Dict[Tuple[Tuple[str, str], ...], Project] = {}
    decoded: Dict[Tuple[Tuple[str, str], ...], Dict[str, str]] = {}
    by_blob: Dict[Tuple[str, str], str] = {}
    lazy = set(lazy)
    for rev, sha, label in specs:
        ids = tuple(sorted(listings[rev].items()))
        if ids not in decoded:  # two revisions with the same files parse the same
            texts = decoded[ids] = decode_files(listings[rev], blobs, memory_dir, label, by_blob)
            if worktree is not None and _same_files(worktree, texts):
                parsed[ids] = worktree

        def load(ids=ids) -> Project:
            if ids not in parsed:
                parsed[ids] = load_texts(repo.root, memory_dir, decoded[ids], use_cache=use_cache)
            return parsed[ids]

        out.append(Revision(rev, sha, label, parsed.get(ids) if rev in lazy else load(), ids, load))
    return out


def _same_files(worktree: Project, texts: Dict[str, str]) -> bool:
    """Whether the work tree holds exactly these managed files with these texts (READMEs,
    which are never extracted, aside)."""
    mine = {m: t for m, t in texts.items() if file_kind(m) != "readme"}
    listed = {m for (m,) in worktree.facts.relation_sets().get("memory_file", ()) if file_kind(m) != "readme"}
    return listed == set(mine) and all(worktree.texts.get(m) == t for m, t in mine.items())


def worktree_revision(rev: str, project: Project) -> Revision:
    """The work tree as a revision (no commit; its files are read from disk by ``project``)."""
    return Revision(rev, "", "worktree", project, ())


def file_digests(revision: Revision) -> List[tuple]:
    """``git_file_digest`` rows: a digest of each managed file's text at the revision (its
    blob id when the revision gives them: both revisions of a comparison then do)."""
    if revision.digests is not None:
        return [(revision.rev, module, digest) for module, digest in sorted(revision.digests.items())]
    return [(revision.rev, module, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
            for module, text in sorted(revision.project.texts.items())]


def unit_facts(revision: Revision, use_cache: bool = False, display: bool = True,
               common: Collection[str] = (), files: bool = True) -> Dict[str, List[tuple]]:
    """The facts naming a revision's files and units: (with ``files``) git_revision and
    git_file, git_unit and (with ``display``) git_unit_display (facts/schema.dl, "Git
    revisions"). ``use_cache``: unit digests stored per file are reused
    (analyzer/history/unit_digests.py); without ``display``, a revision whose files are all
    stored there is not even parsed. ``common``: modules whose units git_unit leaves out
    (listed in git_common_unit)."""
    rev = revision.rev
    out = {"git_revision": [(rev, revision.sha, revision.label)],
           "git_file": [(rev, module) for module in revision.modules()]} if files else {}
    out["git_unit"] = unit_rows(revision, use_cache, (lambda m: m not in common) if common else None)
    if revision.line_maps:
        out["git_unit"] = [(*row[:5], revision.file_line(row[3], row[5])) for row in out["git_unit"]]
    if display:
        out["git_unit_display"] = display_facts(revision)
    return out


def common_units(revisions: List[Revision], use_cache: bool = False) -> Tuple[set, List[tuple]]:
    """The managed files every revision holds as the same blob under the same manifest blob
    (so with the same units, as the facts cache's key says), and ``git_common_unit`` rows
    for their units; none when a revision is not a Git tree (the work tree)."""
    listings = [dict(revision.blob_ids) for revision in revisions]
    if not revisions or not all(listings) or len({listing.get("manifest.md") for listing in listings}) != 1:
        return set(), []
    common = {module for module, oid in listings[0].items() if all(other.get(module) == oid for other in listings[1:])}
    source = next((revision for revision in revisions if revision.loaded), revisions[0])  # parse none
    rows = unit_rows(source, use_cache, common.__contains__)
    return common, [row[1:] for row in rows]


def display_facts(revision: Revision, wanted: Optional[Dict[str, set]] = None) -> List[tuple]:
    """``git_unit_display`` rows: every ID of the revision as written in its heading, or
    only the IDs ``wanted`` lists per kind."""
    rel = revision.relations()
    return [(revision.rev, kind, *fact) for kind, (_placed, shown, _fixed) in UNIT_SOURCES.items()
            for ids in [None if wanted is None else wanted.get(kind, ())]
            for fact in rel.get(shown, ()) if ids is None or fact[0] in ids]


def attribute_facts(revision: Revision, wanted: Dict[str, set],
                    names: Optional[Collection[str]] = None) -> Dict[str, List[tuple]]:
    """The git_* copies of the revision's entry, Subject and record relations, for the units
    whose IDs ``wanted`` lists per kind ("entry", "subject", "record"); of the git_*
    relations ``names`` lists when given (the others are left out)."""
    rel = revision.relations()
    rev = revision.rev
    out: Dict[str, List[tuple]] = {}
    for source, (name, kind) in RELABEL.items():
        if names is not None and name not in names:
            continue
        ids = wanted.get(kind)
        out[name] = [(rev, *fact) for fact in rel.get(source, ()) if fact[0] in ids] if ids else []
    return out
