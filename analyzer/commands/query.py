"""``analyze query``: ask a goal of a project's memory, or of a datalog program.

``analyze query --project-root DIR 'GOAL'`` answers over the project's fact base and every
built-in relation (rules/query.dl), with the read request options for the relations that
depend on a request. ``analyze query PROGRAM.dl [--facts DIR] ['GOAL']`` answers over a
program of one's own (Soufflé's ``.input``/``.output``/``.printsize`` directives accepted;
without a goal the ``.output`` relations are printed). ``-e 'rule.'`` and ``--rules PACK.dl``
add rules in both forms. Bad input prints diagnostics to stderr and exits 2; so does a
resource limit, with a message naming it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys

from analyzer.core.lifetime import gc_paused
from analyzer.core import exitcodes
from analyzer.core.span import Span
from analyzer.commands.bounds import positive_int, seconds, size as _size
from analyzer.commands import read as read_command
from analyzer.engine.errors import EngineError, EvaluationLimitError
from analyzer.engine.limits import Limits, QUERY_TIMEOUT_S, Watchdog
from analyzer.project.root import paths_from_cwd, resolve_root


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Goal (and program), request options, added rules, output format, evaluation options."""
    parser.add_argument("inputs", nargs="*", metavar="[PROGRAM.dl] GOAL",
                        help="a goal, e.g. 'owner(I, M, Sc, S, F), !loaded(M), Sc != \"project\"'; "
                             "before it, a program file to query instead of the project")
    parser.add_argument("-e", dest="extra", action="append", default=[], metavar="RULE",
                        help="add a rule or declaration, e.g. -e 'big(M) :- budget(M, T), T > 900.' (repeatable)")
    parser.add_argument("--rules", dest="packs", action="append", default=[], metavar="PACK.dl",
                        help="add the rules of a rule file (repeatable)")
    parser.add_argument("--facts", metavar="DIR", help="with PROGRAM.dl: directory of Rel.facts files (tab-separated)")
    parser.add_argument("--since", metavar="REV", help="with --project-root: since_changed(P) holds the paths that "
                        "differ between REV and HEAD (read-only Git)")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table")
    parser.add_argument("--why", action="store_true", help="print a proof tree for each answer")
    parser.add_argument("--stats", action="store_true", help="print per-rule time, iterations, tuples")
    parser.add_argument("--max-tuples", type=positive_int, default=None, metavar="N",
                        help="stop when more than N tuples have been derived (default 50,000,000)")
    parser.add_argument("--timeout", type=seconds, default=QUERY_TIMEOUT_S, metavar="S",
                        help="stop after S seconds of evaluation, proof building and output "
                             "(default 60; 0 means no limit)")
    parser.add_argument("--max-memory", type=_size, default=None, metavar="SIZE",
                        help="stop when the process's resident memory exceeds SIZE, e.g. 2G or 500M "
                             "(default: half of the machine's memory; 0 means no limit)")
    read_command.add_request_arguments(parser)
    # no request unless one is given: request-dependent relations then refuse to answer
    parser.set_defaults(task=None, project_root=None, _intermixed="inputs")


def run(args: argparse.Namespace) -> int:
    """Answer and print; 0 on success (with or without answers), 2 on invalid input or a limit."""
    from analyzer.core.diagnostics import Diagnostic, DiagnosticError
    from analyzer.query.needed import UnusableInput
    from analyzer.query.read import UnknownTask

    program, goal = _split(args)
    where = program or "<goal>"
    if program is None and len(args.inputs) > 1:
        return read_command.usage_error("query", args, "give one GOAL (quote it), or PROGRAM.dl and a GOAL")
    if program is None and not goal:
        return read_command.usage_error("query", args, "give a GOAL, e.g. 'disposition(M, \"loaded\")'")
    out = io.StringIO()
    try:
        code = _answer(args, program, goal, out)
    except UnknownTask as exc:
        return read_command.usage_error("query", args, exc.message())
    except UnusableInput as exc:  # a read request over a file it cannot use fails closed, as read does
        return exc.report("query", args.format if args.format == "json" else "text")
    except _Usage as exc:
        return read_command.usage_error("query", args, str(exc))
    except DiagnosticError as exc:
        return _fail(args, exc.diagnostics, "INVALID")
    except EvaluationLimitError as exc:
        return _fail(args, [exc.diagnostic(where)], "LIMIT")
    except EngineError as exc:
        return _fail(args, [exc.diagnostic(where)], "INVALID")
    except RecursionError:
        return _fail(args, [Diagnostic(_span(where), "DL913", "program too deeply nested to evaluate")], "INVALID")
    sys.stdout.write(out.getvalue())
    return code


def _answer(args, program, goal, out) -> int:
    """Answer into ``out`` (what goes to stdout) under the request's limits: evaluation,
    proofs and rendering all count, and stdout gets the output only once it is complete
    (never half a document). What goes to stderr is written as it comes."""
    dog = _watchdog(args)
    with dog.watching(), contextlib.redirect_stdout(out):
        try:
            with dog.watching("loading the program and facts"):
                session = _session(args, program)
            session.watchdog = dog
            if goal is None:
                return _outputs(args, session)
            answer = session.ask(goal, provenance=args.why, profile=args.stats, max_proofs=WHY_MAX_PROOFS,
                                 written=True)
            for warning in answer.warnings:  # near-miss constants: said, exit status unchanged
                print(warning.render(), file=sys.stderr)
            with dog.watching("rendering the output"):
                return _emit(args, answer)
        except MemoryError:
            raise dog.out_of_memory() from None


class _Usage(Exception):
    """A command line that cannot be answered (printed like an argparse error)."""


def _split(args):
    inputs = list(args.inputs)
    if inputs and inputs[0].endswith(".dl") and args.project_root is None:
        return inputs[0], (inputs[1] if len(inputs) > 1 else None)
    return None, (inputs[0] if inputs else None)


def _limits(args):
    default = Limits()
    return Limits(max_tuples=args.max_tuples if args.max_tuples is not None else default.max_tuples,
                  timeout_s=args.timeout or None,
                  max_memory=default.max_memory if args.max_memory is None else (args.max_memory or None))


def _watchdog(args):
    dog = Watchdog(_limits(args))
    started = getattr(args, "_started", None)  # when the command started (analyzer/commands/bounds.py)
    if started is not None and dog.deadline is not None:
        dog.started, dog.deadline = started, started + dog.limits.timeout_s
    return dog


def _session(args, program):
    from pathlib import Path

    from analyzer.engine.sourcefile import read_text

    if program is not None:
        from analyzer.query.programs import program_session

        if args.since is not None:
            raise _Usage("--since needs --project-root, not a PROGRAM.dl")
        if args.task is not None or args.path or args.rule or args.profile or args.area:
            raise _Usage("the read request options (--task, --path, --rule, --profile, --area) need "
                         "--project-root, not a PROGRAM.dl")
        session = program_session(program, args.facts, use_cache=not args.no_cache, limits=_limits(args))
    else:
        from analyzer.query.world import project_session, request_or_none

        if args.facts:
            raise _Usage("--facts goes with a PROGRAM.dl; with --project-root the facts are the project's")
        root = resolve_root(args.project_root, args.memory_dir).path
        if not Path(root).is_dir():
            raise _Usage(f"project root is not a directory: {root}")
        request = request_or_none(args.task, paths_from_cwd(args.path, root), args.rule, args.profile, args.area,
                                  strict=args.strict_routing, no_local=args.no_local, project_root=Path(root),
                                  memory_dir=args.memory_dir, use_cache=not args.no_cache,
                                  max_file_bytes=args.max_file_bytes)
        from analyzer.history.git import GitError

        from analyzer.project.loader import load_project

        with gc_paused(freeze=True):  # as project_session loads it
            project = load_project(Path(root), memory_dir=args.memory_dir, use_cache=not args.no_cache,
                                   **({} if args.max_file_bytes is None else {"max_file_bytes": args.max_file_bytes}))
        try:
            session = project_session(request, Path(root), args.memory_dir, use_cache=not args.no_cache,
                                      project=project, limits=_limits(args), since=args.since)
        except GitError as exc:
            raise _Usage(f"--since {args.since}: Git cannot answer: {exc}") from None
        if request is None:  # a request fails closed (UnusableInput); the facts alone answer and say what is missing
            warn_unusable("query", project, not args.no_cache)
    added = []
    for pack in args.packs:
        try:
            text = read_text(pack)  # regular files only: a FIFO never blocks
        except (OSError, UnicodeDecodeError) as exc:
            from analyzer.core.diagnostics import Diagnostic, DiagnosticError

            raise DiagnosticError([Diagnostic(_span(pack), "DL017", f"cannot read {pack!r}: "
                                              f"{getattr(exc, 'strerror', None) or exc}")]) from None
        added.append((text, pack))
    added += [(text, f"<-e {i}>") for i, text in enumerate(args.extra, 1)]
    if added:
        session.add_all(added)  # one program: a rule may use what a later -e or pack defines
    return session


def warn_unusable(command: str, project, use_cache: bool = True) -> None:
    """stderr: one warning per memory file a read would need that could not be used, for a
    goal asked without a read request: its answers hold the facts of the other files only
    (as `analyze facts` shows them), and a silent empty answer would read as "nothing there"."""
    from analyzer.query.read import unusable_needed
    from analyzer.query.world import world_engine

    for diag in unusable_needed(world_engine(use_cache), project):
        print(f"analyze {command}: warning: {diag.render(caret=False)} (the answers lack this file's facts)",
              file=sys.stderr)


def _span(path):
    return Span(str(path), 1, 1)


def _fail(args, diagnostics, status: str) -> int:
    for diag in diagnostics:
        print(diag.render(), file=sys.stderr)
    if args.format == "json":
        from analyzer.contract.output import diagnostics_payload, emit_json

        code = emit_json("query", "error", diagnostics_payload(diagnostics, status))
        return exitcodes.INVALID if code == exitcodes.OK else code
    return exitcodes.INVALID


def _emit(args, answer) -> int:
    from analyzer.render.answer import answer_payload, render_table, write_csv

    texts, note = capped_proofs(answer)
    if args.format == "json":
        from analyzer.contract.output import emit_json

        payload = answer_payload(answer)
        if texts is not None:
            payload["proofs"] = payload["proofs"][:len(texts)]
            if note:
                payload["proofs_note"] = note
        return emit_json("query", "result", payload)
    if args.format == "csv":
        write_csv(sys.stdout, answer.columns, answer.rows)
    else:
        sys.stdout.write(render_table(answer.columns, answer.rows))
    out = sys.stderr if args.format == "csv" else sys.stdout
    for text in texts or ():
        print("", file=out)
        print(text, file=out)
    if note:
        print("", file=out)
        print(note, file=out)
    if answer.stats is not None:
        from analyzer.engine.database import render_profile

        print("", file=out)
        print(render_profile(answer.stats), file=out)
    return exitcodes.OK


#: --why proves at most this many answers, and prints at most this many proof lines in all
WHY_MAX_PROOFS = 100
WHY_MAX_LINES = 10_000


def capped_proofs(answer):
    """``(proof texts, note or None)``: whole proofs while they fit in WHY_MAX_LINES (the
    first one always, cut to the cap), and a note saying what was left out."""
    if answer.proofs is None:
        return None, None
    texts, lines = [], 0
    from analyzer.query.proof_ids import as_written

    for proof in answer.proofs:
        text = as_written(proof_text(proof), answer.written)
        count = text.count("\n") + 1
        if lines + count > WHY_MAX_LINES:
            if not texts:  # one proof bigger than the cap: its beginning
                texts.append("\n".join(text.split("\n")[:WHY_MAX_LINES]))
                lines = WHY_MAX_LINES
            break
        texts.append(text)
        lines += count
    shown, rows = len(texts), len(answer.rows)
    if shown == rows and lines < WHY_MAX_LINES:
        return texts, None
    cut = " (the last one cut short)" if lines >= WHY_MAX_LINES else ""
    return texts, (f"--why: proofs of {shown} of {rows} answer{'s' if rows != 1 else ''} shown{cut}; "
                   f"the output stops at {WHY_MAX_PROOFS} proofs and {WHY_MAX_LINES:,} lines: narrow the goal "
                   f"to see the others")


def proof_text(proof) -> str:
    """A goal proof as text: the answer's bindings, then the proof of each goal literal."""
    from analyzer.engine.astfmt import value_text
    from analyzer.query.why import shipped_relative

    lines = [shipped_relative(child.render()) for child in proof.children]
    extra = [f"absent: !{a}" for a in proof.absent] + [f"builtin: {b}" for b in proof.builtins]
    head = ", ".join(f"{k} = {value_text(v)}" for k, v in sorted(proof.bindings.items()) if not k.startswith("Col__"))
    return "\n".join([f"answer{(' ' + head) if head else ''}:"] + ["  " + e for e in extra]
                     + ["\n".join("  " + line for line in block.splitlines()) for block in lines])


def _outputs(args, session) -> int:
    from analyzer.render.answer import render_table, write_csv

    outputs, sizes = session.outputs()
    if args.format == "json":
        from analyzer.contract.output import emit_json

        return emit_json("query", "outputs", {
            "status": "OK",
            "relations": [{"name": name, "columns": cols, "tuples": [list(r) for r in rows]}
                          for name, cols, rows in outputs],
            "sizes": [{"name": name, "size": size} for name, size in sizes]})
    for i, (name, cols, rows) in enumerate(outputs):
        if args.format == "csv":
            write_csv(sys.stdout, cols, rows)
            continue
        print(("\n" if i else "") + f"{name}:")
        sys.stdout.write(render_table(cols, rows))
    for name, size in sizes:
        print(f"{name}\t{size}")
    return exitcodes.OK
