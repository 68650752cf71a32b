"""``analyze report``: the CI reachability report (Markdown or JSON) from one evaluation of
every check family and the report's relations (rules/check/report.dl), gated as ``check``
is (``--fail-on``, ``--select``, ``--ignore``, ``--baseline``: analyzer/commands/gating.py)."""

from __future__ import annotations

import argparse
import sys

from analyzer.core import exitcodes

FORMATS = ("markdown", "json", "mermaid")  # mermaid: the full graph, for a file artefact


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the report options."""
    from analyzer.project.root import add_root_arguments

    from analyzer.commands.bounds import add_max_file_bytes

    add_root_arguments(parser)
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the parse cache")
    add_max_file_bytes(parser)
    parser.add_argument("--format", choices=FORMATS, default=None, help="output format (default: markdown)")
    parser.add_argument("--output", action="append", default=None, metavar="[FORMAT:]FILE",
                        help="write the report to FILE instead of stdout; FORMAT:FILE writes that format to FILE "
                             "as well (repeatable)")
    from analyzer.commands import gating

    gating.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Build the report and print or write it."""
    from pathlib import Path

    from analyzer.commands.check import apply_config
    from analyzer.commands.read import usage_error
    from analyzer.query.report import run_report
    from analyzer.project.root import resolve_root

    args.project_root = resolve_root(args.project_root, args.memory_dir).path
    if not Path(args.project_root).is_dir():
        args.format = "json" if args.format == "json" else "text"
        return usage_error("report", args, f"project root is not a directory: {args.project_root}")
    failed = apply_config(args, "report", FORMATS)
    if failed is not None:
        return failed
    if args.format == "text":  # apply_config's default is check's
        args.format = "markdown"
    from analyzer.commands import gating

    gate = gating.make_gate(args, "report")
    if isinstance(gate, int):
        return gate
    report = run_report(Path(args.project_root), args.memory_dir, not args.no_cache, args.max_file_bytes)
    if report.check.failure is not None:
        print(report.check.failure.message, file=sys.stderr)
    report.check = gating.apply_gate(report.check, gate, "report")
    status = _write(args, report)
    return status or (report.check.exit_code if report.check.exit_code in (0, 1, 2) else exitcodes.INTERNAL)


def _render(fmt: str, report, prefix: str) -> tuple:
    if fmt == "json":
        from analyzer.contract.output import build_document, dumps
        from analyzer.render.check_json import error_payload
        from analyzer.render.report_json import report_payload

        shape = "error" if report.check.failure is not None else "result"
        payload = error_payload(report.check) if shape == "error" else report_payload(report)
        document, errors = build_document("report", shape, payload)
        if errors:
            print(f"analyze: internal error: report output does not match report.{shape}; nothing was written: "
                  f"{errors[0]}", file=sys.stderr)
            return "", exitcodes.INTERNAL
        return dumps(document), exitcodes.OK
    from analyzer.render.md import link_base
    from analyzer.render.report_markdown import full_graph, render_report_markdown

    if fmt == "mermaid":
        return full_graph(report), exitcodes.OK

    return render_report_markdown(report, prefix, link_base(), command="report"), exitcodes.OK


def _write(args: argparse.Namespace, report) -> int:
    from analyzer.commands.check import write_outputs

    prefix = report.repo_prefix(str(args.project_root))
    return write_outputs(args, lambda fmt: _render(fmt, report, prefix), FORMATS)
