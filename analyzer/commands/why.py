"""``analyze why``: proof trees for read results, for auditors.

``analyze why MODULE [read options]`` explains one module's disposition; ``analyze why
--pattern 'skip_reason(_, _)' [read options]`` explains every matching derived tuple of the
read program (any relation of rules/read/*.dl or facts/schema.dl).
"""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes
from analyzer.commands import read as read_command
from analyzer.project.root import resolve_root

def add_arguments(parser: argparse.ArgumentParser) -> None:
    """MODULE or --pattern, --format, plus the read request options."""
    parser.add_argument("module", nargs="?",
                        help="module to explain, relative to the memory dir, e.g. areas/web.md; any module the project "
                             "has, also one the result does not list (inbox.md, an unrouted file)")
    parser.add_argument("--pattern", help="explain every tuple matching this pattern instead, e.g. 'skip_reason(_, _)'")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--verbose", action="store_true",
                        help="print the whole proof tree, internal bookkeeping (ordinals, arithmetic) included")
    read_command.add_request_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Evaluate the read request with provenance and print the proofs asked for."""
    from analyzer.core.diagnostics import DiagnosticError
    from analyzer.engine.errors import EngineError
    from analyzer.query.needed import UnusableInput
    from analyzer.query.read import UnknownTask, run_read
    from analyzer.query.why import module_proofs, pattern_proofs

    from pathlib import Path

    error = read_command.usage_error
    args.project_root = resolve_root(args.project_root, args.memory_dir).path
    if not Path(args.project_root).is_dir():
        return error("why", args, f"project root is not a directory: {args.project_root}")
    if bool(args.module) == bool(args.pattern):
        return error("why", args, "give either MODULE or --pattern")
    try:
        _, db, project = run_read(read_command.request_from(args), provenance=True)
        answer = module_proofs(db, args.module) if args.module else pattern_proofs(db, args.pattern)
    except UnknownTask as exc:
        return error("why", args, exc.message())
    except UnusableInput as exc:  # the read it would explain fails closed
        return exc.report("why", args.format)
    except DiagnosticError as exc:
        first = exc.diagnostics[0]
        return error("why", args, f"--pattern: {first.message}", first.code)
    except EngineError as exc:  # e.g. a pattern over a relation the read program does not declare
        from analyzer.engine.errors import EvaluationLimitError

        # a limit (the command's --timeout, memory) keeps its own code: DL902, as everywhere
        return error("why", args, str(exc), "DL902" if isinstance(exc, EvaluationLimitError) else "DL915")
    if answer.failure is not None:
        return error("why", args, answer.failure.message, answer.failure.code)
    for warning in getattr(answer, "warnings", ()):  # near-miss constants: said, exit status unchanged
        print(warning.render(), file=sys.stderr)
    if args.format == "json":
        from analyzer.contract.output import emit_json

        proofs = [answer.json_proof(p, answer.written) for p in answer.proofs]
        if args.module:
            return emit_json("why", "module", {
                "status": "PROVED", "task": args.task, "module": args.module,
                "disposition": answer.tuples[0][1], "primary_reason": _reason(answer), "proofs": proofs})
        return emit_json("why", "pattern", {
            "status": "PROVED" if proofs else "NO_MATCH", "task": args.task, "pattern": args.pattern,
            "relation": answer.relation, "proofs": proofs})
    if not answer.proofs:
        return _why_not(args, project)
    sys.stdout.write(answer.render(verbose=getattr(args, "verbose", False)))  # read --why has no --verbose
    return exitcodes.OK


def _why_not(args, project) -> int:
    """No tuple matches the pattern: say, per rule that could derive it, where it fails."""
    from analyzer.query.whynot import why_not
    from analyzer.query.world import project_session

    session = project_session(read_command.request_from(args), args.project_root, args.memory_dir,
                              use_cache=not args.no_cache, project=project)
    sys.stdout.write(f"no tuple of {args.pattern.split('(')[0].strip()} matches {args.pattern}\n")
    sys.stdout.write(why_not(session, args.pattern).render())
    return exitcodes.OK


def _reason(answer) -> str:
    if answer.relation == "outside_reason":  # a module outside the result: the kind of its first reason
        return answer.tuples[1][2]
    return answer.titles[1][len("Reason "):-1] if len(answer.titles) > 1 else ""
