"""Which project a command works on: ``--project-root``, or the nearest ancestor that holds
the memory manifest, as git and ruff find their roots.

Every command that takes ``--project-root`` declares it with :func:`add_root_arguments` and
resolves it with :func:`resolve_root`; an explicit ``--project-root`` is never second-guessed.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


def add_root_arguments(parser: argparse.ArgumentParser) -> None:
    """``--project-root DIR`` and ``--memory-dir DIR``, with the same help everywhere."""
    parser.add_argument("--project-root", default=None, metavar="DIR",
                        help="project root (default: the nearest of the current directory and its parents that "
                             "holds MEMORY-DIR/manifest.md, else the current directory)")
    parser.add_argument("--memory-dir", default="docs/memory", metavar="DIR",
                        help="memory directory, relative to the project root and inside its docs/ "
                             "(default: docs/memory); an absolute path or one outside docs/ is refused")


@dataclass(frozen=True)
class Root:
    """The project root a command uses, and how it was chosen."""

    path: str
    how: str  # "given" (--project-root), "found" (an ancestor holds the manifest), "cwd" (none does)
    memory_dir: str

    def describe(self) -> str:
        """One line for people: which root, and why that one."""
        from analyzer.project.files import memory_dir_name

        name = memory_dir_name(self.memory_dir)
        manifest = f"{name}/manifest.md"
        searched = not _outside(name)
        why = {"given": "given by --project-root",
               "found": f"the nearest directory holding {manifest}",
               "cwd": f"the current directory; neither it nor a parent holds {manifest}" if searched else
                      f"the current directory; --memory-dir {name} is not inside a project, so no parent was searched",
               }[self.how]
        return f"Project root: {os.path.abspath(self.path)} ({why})"


def find_root(start: str, memory_dir: str = "docs/memory") -> Optional[str]:
    """The nearest of ``start`` and its parents holding ``<memory_dir>/manifest.md``, or None."""
    from analyzer.project.files import memory_dir_name

    current = Path(os.path.abspath(start))
    relative = memory_dir_name(memory_dir)
    if _outside(relative):
        return None  # not a directory inside a project: nothing to search for (refused later)
    for candidate in (current, *current.parents):
        if os.path.isfile(candidate / relative / "manifest.md"):
            return str(candidate)
    return None


def resolve_root(project_root: Optional[str], memory_dir: str = "docs/memory", cwd: Optional[str] = None) -> Root:
    """The root a command uses: ``project_root`` as given, else :func:`find_root` from ``cwd``."""
    if project_root is not None:
        return Root(project_root, "given", memory_dir)
    start = cwd or os.getcwd()
    found = find_root(start, memory_dir)
    return Root(found, "found", memory_dir) if found else Root(start, "cwd", memory_dir)


def _outside(memory_dir: str) -> bool:
    """Whether ``memory_dir`` (as :func:`~analyzer.project.files.memory_dir_name` gives it) can name
    nothing inside a project: absolute, a drive, or climbing out with ``..``."""
    return memory_dir.startswith("/") or memory_dir[1:2] == ":" or ".." in memory_dir.split("/")


def paths_from_cwd(paths, root: str, cwd: Optional[str] = None) -> list:
    """Touched paths read the way git reads them: run from a directory strictly inside the
    project, a relative path is taken from that directory (``cart.ts`` in ``web/src`` is
    ``web/src/cart.ts``). Paths the protocol refuses (absolute, a drive, a ``.`` or ``..``
    segment, a backslash) are passed on as typed, so the read still reports them INVALID;
    so is every path when the command runs at the root or outside the project."""
    here = os.path.realpath(cwd or _cwd_or_root(root))
    top = os.path.realpath(root)
    if here == top or not here.startswith(top.rstrip(os.sep) + os.sep):
        return list(paths)
    prefix = os.path.relpath(here, top).replace(os.sep, "/")
    out = []
    for path in paths:
        rest = path[2:] if path.startswith("./") else path
        typed_as_protocol = (not rest or rest.startswith("/") or "\\" in rest or rest[1:2] == ":"
                             or any(seg in ("", ".", "..") for seg in rest.split("/")))
        out.append(path if typed_as_protocol else f"{prefix}/{rest}")
    return out


def absolute_path_hint(path: str, root: str, cwd: Optional[str] = None) -> Optional[str]:
    """For a ``path`` the protocol refuses that names a place inside ``root`` (absolute, or
    with a ``..`` segment, taken from the directory the command runs in when that is inside
    the project, else from the root), the project-relative form to type instead."""
    top = os.path.realpath(root)
    if os.path.isabs(path):
        full = os.path.realpath(path)
    elif ".." in path.split("/"):
        here = os.path.realpath(cwd or _cwd_or_root(root))
        inside = here == top or here.startswith(top.rstrip(os.sep) + os.sep)
        full = os.path.realpath(os.path.join(here if inside else top, path))
    else:
        return None
    if not full.startswith(top.rstrip(os.sep) + os.sep):
        return None
    return os.path.relpath(full, top).replace(os.sep, "/")


def _cwd_or_root(root: str) -> str:
    try:
        return os.getcwd()
    except OSError:  # the working directory was deleted: nothing to be relative to
        return root
