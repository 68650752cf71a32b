"""The built-in world of ``analyze query --project-root``: a project's fact base, the read
request (if any) and every shipped rule program (rules/query.dl includes them all).

Relations that depend on the request (the task, touched paths, explicit rule/profile/area)
answer only when a request is given; without one, asking for them is an error that names
the options, never a quietly partial answer.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator, List, Optional

from analyzer.core.lifetime import gc_paused

REQUEST_RELATIONS = ("req_task", "req_path", "req_explicit", "path_probe")
REQUEST_HINT = "give the read request: --task (and --path, --rule, --profile, --area as needed)"
SINCE_HINT = "give --since REV: the paths that changed between that revision and HEAD"
# request relations of other commands that a query never supplies (their absence is not a
# default, unlike the index flags and filters, whose absence means "all")
OTHER_REQUESTS = {
    "req_lookup": "it answers `analyze show ID`; ask index_row or entry instead",
    "req_merge": "it answers `analyze subject merge`",
}


@lru_cache(maxsize=None)
def check_engine(use_cache: bool = True):
    """The engine of rules/check/check.dl: the project-wide checks. Its relations that the read
    program does not declare (check_conflict_finding, reach_finding, fresh_finding, ...) are
    built in too; a relation both declare answers as the read program derives it."""
    from analyzer.engine.cache import load_engine
    from analyzer.core.resources import data_file

    return load_engine(data_file("rules", "check/check.dl"), use_cache=use_cache)


def world_programs(use_cache: bool = True) -> list:
    """The programs of the built-in world, in priority order."""
    return [world_engine(use_cache).program, check_engine(use_cache).program]


@lru_cache(maxsize=None)
def world_engine(use_cache: bool = True):
    """The engine of rules/query.dl (every shipped relation), compiled once (and cached)."""
    from analyzer.engine.cache import load_engine
    from analyzer.core.resources import data_file

    return load_engine(data_file("rules", "query.dl"), use_cache=use_cache)


def project_session(request, project_root, memory_dir: str = "docs/memory", use_cache: bool = True,
                    project=None, limits=None, max_file_bytes: Optional[int] = None, since: Optional[str] = None):
    """A :class:`~analyzer.query.adhoc.Session` over the project at ``project_root``.

    ``request`` is a :class:`~analyzer.query.read.ReadRequest`, or None when no request
    option was given. Raises :class:`~analyzer.query.read.UnknownTask` for an unknown task.
    ``since``: a revision whose differences with HEAD fill ``since_changed`` (raises
    :class:`analyzer.history.git.GitError` when Git cannot answer).
    """
    from analyzer.project.loader import load_project
    from analyzer.query.adhoc import Session
    from analyzer.query.read import request_facts

    with gc_paused(freeze=True):
        if project is None:
            limit = {} if max_file_bytes is None else {"max_file_bytes": max_file_bytes}
            project = load_project(project_root, memory_dir=memory_dir, use_cache=use_cache, **limit)
        engine = world_engine(use_cache)
        facts = request_facts(engine, request, project)
    facts = with_repository(facts, Path(project_root))
    from analyzer.query.scans import with_scans

    facts = with_scans(facts, project)  # gathered only for a goal that reads them
    hints = dict(OTHER_REQUESTS)
    if since is None:
        hints["since_changed"] = SINCE_HINT
    else:
        facts["since_changed"] = [(p,) for p in changed_since(Path(project_root), since)]
    if request is None:
        hints.update({rel: REQUEST_HINT for rel in REQUEST_RELATIONS})
    check = Session(check_engine(use_cache), facts, spans=project.facts.spans, request_hints=hints, limits=limits)
    from analyzer.query.scans import GATHERED

    gathered = frozenset({"repo_file", "repo_listing", *GATHERED} | ({"since_changed"} if since is not None else set()))
    return Session(engine, facts, spans=project.facts.spans, request_hints=hints, limits=limits, others=[check],
                   gathered=gathered)


def request_or_none(task: Optional[str], paths, rules, profiles, areas, **options):
    """A ReadRequest when any request option is given, else None (no request)."""
    from analyzer.query.read import ReadRequest

    if task is None and not (paths or rules or profiles or areas):
        return None
    return ReadRequest(task=task or "default", paths=paths, rules=rules, profiles=profiles, areas=areas,
                       **options)


class LazyRows:
    """The rows of a base relation, computed the first time an evaluation reads them: the
    repository's file list is gathered only for a goal that needs it (and once per session)."""

    def __init__(self, make: Callable[[], List[tuple]]) -> None:
        self._make, self._rows = make, None

    def rows(self) -> List[tuple]:
        """The rows (computed on first use)."""
        if self._rows is None:
            self._rows = self._make()
        return self._rows

    def __iter__(self) -> Iterator[tuple]:
        return iter(self.rows())

    def __len__(self) -> int:
        return len(self.rows())


def with_repository(facts: dict, root: Path) -> dict:
    """``facts`` plus ``repo_file`` and ``repo_listing`` (analyzer/history/repofiles.py: `git ls-files`,
    else a walk that follows no symlink), listed only when a goal reads them."""
    from functools import lru_cache

    @lru_cache(maxsize=1)
    def listing():
        from analyzer.history.repofiles import list_files

        return list_files(str(root))

    out = dict(facts)
    out["repo_file"] = LazyRows(lambda: [(p,) for p in listing()[0]])
    out["repo_listing"] = LazyRows(lambda: [(listing()[1], int(listing()[2]))])
    return out


def changed_since(root: Path, rev: str) -> List[str]:
    """Paths that differ between ``rev`` and HEAD, relative to the project root (read-only
    Git, analyzer/history/git.py); raises :class:`analyzer.history.git.GitError`."""
    from analyzer.history.git import Repo

    repo = Repo(str(root))
    return repo.changed_paths(repo.commit(rev), repo.commit("HEAD"))
