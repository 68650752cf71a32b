"""``analyze check --autonomy plan|confirm|full --base REV [--head REV]`` (issue 12).

A part of ``check``: analyzer/commands/check.py declares these options through
:func:`add_arguments` and hands the command line here when ``--base`` or ``--autonomy`` is
given. Exit 0 (CLEAR, REVIEW), 1 (CONFLICT, INVALID findings), 2 (a blind spot, Git or plan
or configuration errors, an invalid level: the valid ones are listed).

The agent-author option and its check (:func:`add_agent_option`, :func:`history_options`)
are here too: ``analyze readiness`` asks the same question of history and imports them.
"""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes
from analyzer.project import vocab


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the autonomy options of ``check``."""
    group = parser.add_argument_group("autonomy (judge memory changes between revisions)")
    vocab.lazy_choices(group.add_argument(
        "--autonomy", default=None,
        help="the autonomy level the changes are judged by (default: the configuration's `autonomy`, "
             "else confirm); needs --base"), "autonomy_mode")
    group.add_argument("--base", default=None, metavar="REV",
                       help="judge the memory changes the head made since it left REV: compared from the merge base "
                            "of REV and the head (HEAD for the work tree), as `git diff REV...HEAD`, so that REV's "
                            "own later changes are not judged (the output names the merge base when it is not REV; "
                            "unrelated histories are an error). `analyze diff` and `restore` compare REV itself")
    from analyzer.commands.diff import head_revision

    group.add_argument("--head", default=None, type=head_revision, metavar="REV",
                       help="up to REV (default: the work tree)")
    group.add_argument("--reviewer", dest="reviewers", action="append", default=None, metavar="NAME",
                       help="a name a `Memory-Confirmed-By:` trailer may carry (repeatable; default: the "
                            "configuration's `reviewers`)")
    add_agent_option(group)


def add_agent_option(parser: argparse.ArgumentParser) -> None:
    """``--agent-author PATTERN`` (repeatable; also the configuration's `agent-authors`)."""
    parser.add_argument("--agent-author", dest="agent_authors", action="append", default=None, metavar="PATTERN",
                        help="a regular expression an agent's commit author (`Name <email>`) fully matches (Python's "
                             "syntax without lookaround or backreferences, matched in linear time); "
                             "commits with a `Memory-Agent:` trailer are agents' too (default: the configuration's "
                             "`agent-authors`)")


def history_options(args: argparse.Namespace, command: str, configured: bool = False):
    """Fill the options the configuration sets (unless ``configured``: the caller applied it,
    as check --base does with the base revision's trusted keys) and check the author
    patterns: None, or ``(code, message, path, line, col)`` of the first problem."""
    from analyzer.project import config
    from analyzer.engine.linear_re import pattern_problem

    try:
        if not configured:
            config.apply(args, command, config.load(args.project_root))
    except config.ConfigError as exc:
        return exc.code, exc.message, exc.path, exc.line, exc.col
    args.agent_authors = args.agent_authors or []
    for pattern in args.agent_authors:  # matched in linear time (analyzer/engine/linear_re.py)
        problem = pattern_problem(pattern)
        if problem:
            return ("MA-USAGE", f"agent author pattern {pattern!r} is not a regular expression: "
                    f"{problem.split(': ', 1)[1]}", "<command line>", 1, 1)
    return None


GATE_OPTIONS = (("--fail-on", "fail_on"), ("--select", "select"), ("--ignore", "ignore"), ("--baseline", "baseline"))


def wanted(args: argparse.Namespace) -> bool:
    """Whether the command line asks for an autonomy check (before the configuration is
    applied; the gating options given on the command line are noted then too, since the
    configuration may set them for the plain check)."""
    args._gate_flags = [flag for flag, dest in GATE_OPTIONS if getattr(args, dest, None)]
    # --head, --reviewer and --agent-author mean nothing to the plain check: given without
    # --base they are refused (run), never silently dropped
    args._autonomy_flags = autonomy_flags(args)  # before the configuration fills any of them
    return args.base is not None or bool(args._autonomy_flags)


def autonomy_flags(args: argparse.Namespace):
    """The options of this group besides --base that the command line gave."""
    return [flag for flag, dest in (("--autonomy", "autonomy"), ("--head", "head"), ("--reviewer", "reviewers"),
                                    ("--agent-author", "agent_authors")) if getattr(args, dest, None) is not None]


def run(args: argparse.Namespace) -> int:
    """Run the autonomy check (the configuration has been applied) and print it."""
    from pathlib import Path

    from analyzer.query.autonomy import run_autonomy

    args.format = args.format or "text"
    if args.base is None:
        given = ", ".join(getattr(args, "_autonomy_flags", None) or ["--autonomy"])
        return error(args, "MA-USAGE", f"{given} given without --base: judging memory changes needs --base REV "
                                       "(the revision the changes are judged from)")
    others = [flag for flag, on in (("--routing", args.routing), ("--reachability", args.reachability),
                                    ("--freshness", args.freshness), ("--conflicts", args.conflicts),
                                    ("--all", args.all), ("--merge-base", args.merge_base is not None),
                                    ("--rules", bool(getattr(args, "packs", None))),
                                    ("--with-proofs", getattr(args, "with_proofs", False))) if on]
    others += getattr(args, "_gate_flags", [])
    if others:  # never run one of them silently instead of the other
        return error(args, "MA-USAGE", f"--base/--autonomy judge memory changes; they cannot be combined with "
                                       f"{', '.join(others)}")
    failed = history_options(args, "check", configured=True)  # check.run applied it (base-trusted keys)
    if failed is not None:
        return error(args, *failed)
    if any(not name.strip() for name in args.reviewers or []):  # it would match an empty trailer value
        return error(args, "MA-USAGE", "--reviewer needs a name; an empty one would confirm an empty "
                                       "Memory-Confirmed-By trailer")
    mode = args.autonomy or "confirm"
    result = run_autonomy(Path(args.project_root), args.memory_dir, mode, args.base, args.head, args.reviewers or [],
                          args.agent_authors, not args.no_cache)
    if result.failure is not None:
        where = result.failure.span
        if where is None:  # no file is at fault: the command line
            return error(args, result.failure.code, result.failure.message)
        return error(args, result.failure.code, result.failure.message, where.path, where.line, where.col)
    from analyzer.commands.check import write_outputs

    # --format on stdout and every --output [FORMAT:]FILE, as check writes them
    status = write_outputs(args, lambda fmt: render(fmt, result, str(args.project_root)))
    if status:
        return status
    return result.exit_code if result.exit_code in (0, 1, 2) else exitcodes.INTERNAL


def render(fmt: str, result, project_root: str):
    """``(text, status)`` of the autonomy check in ``fmt``: its own text and ``check.autonomy``
    JSON, or one of check's CI formats through check's renderers (status 0, or
    ``exitcodes.INTERNAL`` when a document does not match its declared shape)."""
    if fmt == "text":
        from analyzer.render.autonomy_out import render_autonomy_text

        return render_autonomy_text(result), exitcodes.OK
    if fmt == "json":
        import io

        from analyzer.contract.output import emit_json
        from analyzer.render.autonomy_out import autonomy_payload

        out = io.StringIO()
        status = emit_json("check", "autonomy", autonomy_payload(result), stream=out)
        return out.getvalue(), status
    from analyzer.commands.check_formats import Context
    from analyzer.commands.check_formats import render as render_check
    from analyzer.contract.check_model import one_family
    from analyzer.render.autonomy_out import judged_line

    notes = [judged_line(result)] if result.merge_base else []  # the Markdown summary's (analyzer/render/md.py)
    checked = one_family("autonomy", result.status, result.exit_code, result.annotations, notes)
    return render_check(fmt, checked, Context(project_root))


def error(args: argparse.Namespace, code: str, message: str, path: str = "<command line>", line: int = 1,
          col: int = 1) -> int:
    """Report a check that cannot run: ``path:line:col: CODE message`` on stderr (the message
    alone when no file is at fault), and check's error document in every requested format
    other than text (``check.error`` JSON, SARIF, JUnit, annotations, Markdown); exit 2."""
    from analyzer.commands.check import write_outputs
    from analyzer.contract.check_model import failed_run

    where = "" if path == "<command line>" else f"{path}:{line}:{col}: {code} "
    print(f"analyze check: error: {where}{message}", file=sys.stderr)
    args.output = getattr(args, "output", None) or []
    result = failed_run(message, code, "" if path == "<command line>" else path, line, col)
    status = write_outputs(args, lambda fmt: ("", exitcodes.OK) if fmt == "text" else render_failed(fmt, result, args))
    return status or exitcodes.INVALID


def render_failed(fmt: str, result, args: argparse.Namespace):
    """``(text, status)`` of a run that could not happen in one of check's formats."""
    from analyzer.commands.check_formats import Context
    from analyzer.commands.check_formats import render as render_check

    if fmt == "json" and result.failure.span is None:  # the document names the command line, as before
        import dataclasses

        from analyzer.core.span import Span

        result = dataclasses.replace(result, failure=dataclasses.replace(result.failure, span=Span("<command line>")))
    return render_check(fmt, result, Context(str(getattr(args, "project_root", ".") or ".")))
