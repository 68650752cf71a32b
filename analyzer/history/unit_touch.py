"""Which units a commit changed, by their text: the ``git_commit_touch`` rows of ``analyze diff``.

A commit touches a unit only when the unit's text differs between the commit's first parent
and the commit, as the unit model (analyzer/project/markdown.py, §3.1) cuts it: outer blank lines
are not part of a unit. Git's hunks are no measure of that: the ``-U0`` hunk of a deletion
of entry Y starts on the blank line that ends the entry X before it, and its function
context names X, so X used to be blamed for a commit that only deleted Y (and for the
revert of that commit).

The texts compared are the commit's unit snippets (analyzer/history/unit_hunks.py, kept per commit
by analyzer/history/commit_cache.py, shared with readiness): each changed file's units that Git's
changed lines reach, whole, on both sides. Both sides are cut by the unit model, and an ID's
unit texts compared: a unit the snippets hold on both sides with the same text is one the
commit left as it was. A side whose Markdown the lexer cannot read (a fence or comment opened
outside the snippet) is not cut: every ID its headings name is taken as touched, as the
hunks said before (never fewer units than changed). The work tree is compared with HEAD file
by file, whole. Nothing is decided here: the rules attribute changes (rules/diff/report.dl).

Free-form (legacy, §5.11) units (:func:`freeform_touches`, the ``git_commit_touch_free`` rows)
have no identity but their text, and a free-form unit's name (``<file>#unit-<n>``) depends
on the comparison, so a commit cannot name the free-form units it changed as it names IDs.
It says which texts it changed: the file's free-form units at the commit's first parent and
at the commit, aligned as ``diff`` aligns two revisions (analyzer/history/freeform.py), give
one row per changed unit, the digests of its text before and after ("" where the commit
added or removed it); rules/diff/report.dl follows a changed unit's texts through them to
its commits. Those files are read whole (one ``git cat-file --batch``), only for a
comparison with a free-form change and only at the commits the commit cache marks as
having changed that file's free-form units (:data:`FILE_MARK`): a history without such
changes costs nothing more.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

from analyzer.history.freeform import aligned, changed, digest, freeform_units
from analyzer.history.git import _one_line_names, unit_heading_ids
from analyzer.project.files import BOM
from analyzer.history.unit_cuts import cut, shared


def unit_texts(text: Optional[str]) -> Optional[List[Tuple[str, str]]]:
    """The (casefolded ID, unit text) of every unit of ``text`` whose heading names an ID,
    in order; None when ``text`` has a Markdown problem (its units cannot be trusted)."""
    if text is None:
        return []
    found = cut(text)[0]
    return None if found is None else list(found)


def changed_ids(before: Optional[str], after: Optional[str]) -> Set[str]:
    """The casefolded IDs whose unit texts differ between two texts of one file (None: the
    file is absent on that side): a unit one side holds and the other does not, or holds
    with another text."""
    sides = unit_texts(before), unit_texts(after)
    if sides[0] is None or sides[1] is None:  # unreadable: every ID named is touched
        return {ident for text in (before, after) if text for ident in unit_heading_ids(text)}
    if sides[0] == sides[1]:
        return set()
    old, new = Counter(sides[0]), Counter(sides[1])  # a second copy of a unit is a change too
    return {ident for ident, _text in (old - new) + (new - old)}


FILE_MARK = "#"  # before a module path among a commit's touched IDs: its free-form units changed


def patch_touches(patches: Dict[str, Dict[str, Tuple[Optional[str], Optional[str]]]]) -> Dict[str, Set[str]]:
    """sha -> the IDs each commit changed, from its unit snippets (path -> (before, after)),
    and :data:`FILE_MARK` + the path of each file whose free-form units it changed."""
    out: Dict[str, Set[str]] = {}
    for sha, files in patches.items():
        ids = file_touches(files.items())
        if ids:
            out[sha] = ids
    return out


def file_touches(files: Iterable[Tuple[str, Tuple[Optional[str], Optional[str]]]]) -> Set[str]:
    """The IDs whose units differ between the ``(before, after)`` texts of each ``(module,
    texts)``, and :data:`FILE_MARK` + each module whose free-form units differ
    (analyzer/history/freeform.py: a free-form unit's name depends on the comparison, so the
    commit cache marks the file, and :func:`freeform_touches` later says which of its texts the
    commit changed)."""
    from analyzer.project.loader import file_kind

    ids: Set[str] = set()
    with shared():  # each text is cut once for its ID units and its free-form units
        for module, (before, after) in files:
            ids |= changed_ids(before, after)
            if module.casefold().endswith(".md") and file_kind(module) == "entries" and changed(before, after):
                ids.add(FILE_MARK + module)
    return ids


def worktree_touches(history, current: Optional[Dict[str, bytes]]) -> Dict[str, Set[str]]:
    """``{"worktree": IDs}``: the units whose texts differ between HEAD and the work tree,
    each changed managed file compared whole. ``current``: module -> bytes of every managed
    file of the work tree, as the comparison read them; None when the memory dir is not
    plain (analyzer/history/worktree_blobs.py: the comparison reads it whole and reports what is
    wrong), which is attributed by Git's hunks, as before."""
    from analyzer.history.revisions import list_files
    from analyzer.history.worktree_blobs import blob_id, object_format

    if current is None:
        return history.touched_ids(["diff", "HEAD"])
    repo = history.repo
    head = repo.commit("HEAD")
    committed = list_files(repo, head, history.folder[len(repo.prefix):], "HEAD")
    listing = {module: blob_id(data, object_format(head)) for module, data in current.items()}
    changed = sorted(m for m in set(committed) | set(listing) if committed.get(m) != listing.get(m))
    blobs = repo.blobs(committed[m] for m in changed if m in committed)

    return {"worktree": file_touches((m, (_decode(blobs.get(committed.get(m, ""))), _decode(current.get(m))))
                                     for m in changed)}


def moved_touches(history, shas: List[str], worktree: bool, moved: Set[str]) -> Dict[str, Set[str]]:
    """sha (or "worktree") -> the IDs of ``moved`` (units the comparison finds at another
    place among their file's units, with the same text: E/order) whose units Git's hunks of
    each commit touch (:meth:`analyzer.history.git.History.touched_ids`). A move leaves a unit's
    text as it was, and a commit's snippets do not say where in the file each unit is, so
    the commits that moved a unit are the ones whose changed lines reach it; asked of Git
    only when a comparison has such a unit."""
    found: Dict[str, Set[str]] = {}
    if shas:
        stdin = ("\n".join(reversed(shas)) + "\n").encode("ascii")
        found = history.touched_ids(["log", "--no-walk=unsorted", "--stdin"], stdin=stdin)
    if worktree:
        found.update(history.touched_ids(["diff", "HEAD"]))
    return {sha: ids & moved for sha, ids in found.items() if ids & moved}


def touch_rows(sha: str, module: str, before: Optional[str], after: Optional[str]) -> List[tuple]:
    """``(sha, module, digest before, digest after)`` of each free-form unit of ``module``
    whose text differs between two of its texts (None: the file is absent on that side)."""
    return [(sha, module, digest(a[1]) if a else "", digest(b[1]) if b else "")
            for a, b in aligned(freeform_units(before), freeform_units(after))]


def _decode(raw: Optional[bytes]) -> Optional[str]:
    # what cannot be decoded, the diff refuses
    return None if raw is None else raw[len(BOM) if raw.startswith(BOM) else 0:].decode("utf-8", "replace")


def read_texts(repo, names: Iterable[str]) -> Dict[str, Optional[bytes]]:
    """name (``<commit>:<path>``) -> the bytes Git holds there, None when it has no such file
    (a file the commit added or removed, a root commit's missing parent): one
    ``git cat-file --batch`` call."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    _one_line_names(wanted)  # a name with a line break would shift every later answer
    # a partial clone's missing blob is Git's error (exit 128, GitError): never taken as absent
    out = repo._run(repo.top, ["cat-file", "--batch"],
                    stdin=("\n".join(wanted) + "\n").encode("utf-8", "surrogateescape"))
    found: Dict[str, Optional[bytes]] = {}
    pos = 0
    for name in wanted:
        end = out.index(b"\n", pos)
        header = out[pos:end].decode("utf-8", "replace")
        fields = header.split(" ")
        if len(fields) == 3 and fields[1] == "blob" and fields[2].isdigit():
            size = int(fields[2])
            found[name] = out[end + 1:end + 1 + size]
            pos = end + 1 + size + 1
        else:  # "<name> missing" (or not a blob): no such file on that side
            found[name] = None
            pos = end + 1
    return found


def freeform_touches(history, touched: Dict[str, Set[str]], modules: Set[str],
                     worktree: Optional[Callable[[str], Optional[str]]] = None) -> List[tuple]:
    """``git_commit_touch_free`` rows of the commits of ``touched`` (sha -> what the commit
    cache says each changed) that changed the free-form units of one of ``modules``; with
    ``worktree`` (module -> its text in the work tree, None when absent, as the comparison read
    it), the work tree ("worktree") against HEAD too, every module compared (the work tree's
    touches may come from Git's hunks, which do not name files whose free-form units changed)."""
    folder = history.folder
    jobs: List[Tuple[str, str, str, str]] = []  # (sha, module, name before, name after)
    for sha, ids in touched.items():
        if sha != "worktree":
            jobs += [(sha, m, f"{sha}^:{folder}/{m}", f"{sha}:{folder}/{m}") for m in sorted(modules) if FILE_MARK + m in ids]
    if worktree is not None:
        jobs += [("worktree", m, f"HEAD:{folder}/{m}", "") for m in sorted(modules)]
    texts = read_texts(history.repo, [name for job in jobs for name in job[2:] if name])
    rows: List[tuple] = []
    with shared():  # a version of a file is the after of one commit and the before of the next
        for sha, module, before, after in jobs:
            new = worktree(module) if sha == "worktree" else _decode(texts[after])
            rows += touch_rows(sha, module, _decode(texts[before]), new)
    return sorted(set(rows))
