"""The built-in world of ``analyze query --project-root``: a project's fact base, the read
request (if any) and every shipped rule program (rules/query.dl includes them all).

Relations that depend on the request (the task, touched paths, explicit rule/profile/area)
answer only when a request is given; without one, asking for them is an error that names
the options, never a quietly partial answer.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional

REQUEST_RELATIONS = ("req_task", "req_path", "req_explicit", "path_probe")
REQUEST_HINT = "give the read request: --task (and --path, --rule, --profile, --area as needed)"
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
    from analyzer.resources import data_file

    return load_engine(data_file("rules", "check/check.dl"), use_cache=use_cache)


def world_programs(use_cache: bool = True) -> list:
    """The programs of the built-in world, in priority order."""
    return [world_engine(use_cache).program, check_engine(use_cache).program]


@lru_cache(maxsize=None)
def world_engine(use_cache: bool = True):
    """The engine of rules/query.dl (every shipped relation), compiled once (and cached)."""
    from analyzer.engine.cache import load_engine
    from analyzer.resources import data_file

    return load_engine(data_file("rules", "query.dl"), use_cache=use_cache)


def project_session(request, project_root, memory_dir: str = "docs/memory", use_cache: bool = True,
                    project=None, limits=None, max_file_bytes: Optional[int] = None):
    """A :class:`~analyzer.query.adhoc.Session` over the project at ``project_root``.

    ``request`` is a :class:`~analyzer.query.read.ReadRequest`, or None when no request
    option was given. Raises :class:`~analyzer.query.read.UnknownTask` for an unknown task.
    """
    from analyzer.project import gc_paused, load_project
    from analyzer.query.adhoc import Session
    from analyzer.query.read import request_facts

    with gc_paused(freeze=True):
        if project is None:
            limit = {} if max_file_bytes is None else {"max_file_bytes": max_file_bytes}
            project = load_project(project_root, memory_dir=memory_dir, use_cache=use_cache, **limit)
        engine = world_engine(use_cache)
        facts = request_facts(engine, request, project)
    hints = dict(OTHER_REQUESTS)
    if request is None:
        hints.update({rel: REQUEST_HINT for rel in REQUEST_RELATIONS})
    check = Session(check_engine(use_cache), facts, spans=project.facts.spans, request_hints=hints, limits=limits)
    return Session(engine, facts, spans=project.facts.spans, request_hints=hints, limits=limits, others=[check])


def request_or_none(task: Optional[str], paths, rules, profiles, areas, **options):
    """A ReadRequest when any request option is given, else None (no request)."""
    from analyzer.query.read import ReadRequest

    if task is None and not (paths or rules or profiles or areas):
        return None
    return ReadRequest(task=task or "default", paths=paths, rules=rules, profiles=profiles, areas=areas,
                       **options)
