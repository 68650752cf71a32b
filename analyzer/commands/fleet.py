"""``analyze fleet check|report|query|export``: many repositories, the rules evaluated once in
SQL on DuckDB or Apache Spark (``--engine spark``); docs/fleet.md.

Exit status: ``check`` the worst of the repositories' ``check --all`` exits (:func:`worst_exit`:
2 beats 1 beats 0, an unknown code counts as 2);
``report``, ``query`` and ``export`` 0; any command 2 for an unusable source, a missing
optional extra (MA-FLEET-EXTRA) or a rule the SQL back end cannot run (DL940, DL941).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import sys

from analyzer.core import exitcodes

# numpy: DuckDB registers Python functions (our builtins in SQL) only with it installed
EXTRAS = {"duckdb": ("fleet", ("duckdb", "pyarrow", "numpy")), "spark": ("spark", ("pyspark", "sqlglot"))}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the fleet subcommands and their options."""
    subs = parser.add_subparsers(dest="fleet_command", metavar="check|report|query|export", required=True)
    for name, help_text in (("check", "check --all in every repository, evaluated once"),
                            ("report", "status per repository, the most common findings, unreached memory"),
                            ("query", "a datalog goal or plain SQL over the fleet's tables"),
                            ("export", "every base relation (and with --derived every derived one) as Parquet")):
        sub = subs.add_parser(name, help=help_text)
        sub.add_argument("sources", nargs="+", metavar="SOURCE",
                         help="a directory of checkouts, one repository, or a file listing repository paths")
        sub.add_argument("--engine", choices=("duckdb", "spark"), default="duckdb",
                         help="the SQL engine: DuckDB (embedded) or Spark ([spark] extra)")
        sub.add_argument("--spark-master", default="local[*]", metavar="URL",
                         help="the Spark master with --engine spark (local[*], spark://HOST:7077, yarn)")
        sub.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="extraction processes")
        sub.add_argument("--memory-limit", default=None, metavar="SIZE", help="DuckDB memory limit, e.g. 4GB")
        sub.add_argument("--no-cache", action="store_true", help="do not read or write the facts cache")
        if name == "check":
            sub.add_argument("--format", choices=("text", "json"), default="text")
            sub.add_argument("--sarif-dir", default=None, metavar="DIR",
                             help="also write one SARIF log per repository into DIR (NNNN-<name>.sarif)")
        elif name == "report":
            sub.add_argument("--format", choices=("markdown", "json"), default="markdown")
        elif name == "query":
            sub.add_argument("--goal", default=None, help='a datalog goal, e.g. check_conflict_status(S, _)')
            sub.add_argument("--sql", default=None, help="plain SQL over the tables (`repos` maps repo to path)")
            sub.add_argument("--format", choices=("text", "json"), default="text")
        else:
            sub.add_argument("--format", choices=("text", "json"), default="text",
                             help="how the written files are listed (the files are Parquet)")
            sub.add_argument("--out", required=True, metavar="DIR", help="directory for the .parquet files")
            sub.add_argument("--derived", action="store_true", help="also write the check program's derived relations")


def _error(code: str, message: str) -> int:
    print(f"analyze fleet: error: {code}: {message}", file=sys.stderr)
    return exitcodes.INVALID


def missing_extra(engine: str):
    """``(extra, modules)`` when a module ``engine`` needs is not installed, else None."""
    extra, modules = EXTRAS[engine]
    absent = [m for m in modules if importlib.util.find_spec(m) is None]
    return (extra, absent) if absent else None


def run(args: argparse.Namespace) -> int:
    """Resolve the fleet and run the subcommand."""
    from analyzer.engine.errors import EngineError, EvaluationLimitError
    from analyzer.project.config import ConfigError
    from analyzer.project.fleet_repos import FleetError, resolve

    missing = missing_extra(args.engine)
    if missing:
        extra, absent = missing
        return _error("MA-FLEET-EXTRA", f"{', '.join(absent)} not installed: "
                                        f"pip install 'memory-custodian-analyzer[{extra}]'")
    try:
        paths = resolve(args.sources)
    except (FleetError, OSError, UnicodeDecodeError) as exc:
        return _error("MA-FLEET-INPUT", str(exc))
    from analyzer.commands.fleet_query import RepositoryStopped

    try:
        with _terminated_cleanly():
            return _COMMANDS[args.fleet_command](args, paths)
    except RepositoryStopped as exc:  # query and export answer over every repository, or not at all
        for path, message in exc.stopped:
            print(f"analyze fleet: error: {path}: {message}", file=sys.stderr)
        return exitcodes.INVALID
    except ConfigError as exc:  # a repository's unusable configuration file: path:line:col, exit 2
        print(f"analyze fleet: error: {exc}", file=sys.stderr)
        return exitcodes.INVALID
    except EvaluationLimitError:
        raise  # a limit (--timeout) is every command's DL902 line and exit 2 (analyzer/commands/cli.py)
    except EngineError as exc:
        return _error(exc.code or "DL941", exc.message if hasattr(exc, "message") else str(exc))


@contextlib.contextmanager
def _terminated_cleanly():
    """SIGTERM (a CI job cancelled, a timeout) ends the command as SystemExit(143) instead of
    at once: the fleet's worker processes are ended and its private temporary directory,
    which may hold a group's facts (megabytes), is removed on the way out, as on Ctrl-C."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _check(args, paths) -> int:
    from analyzer.commands.fleet_check import fleet_results

    formats = (("json",) if args.format == "json" else ()) + (("sarif",) if args.sarif_dir else ())
    # each repository's Outcome, not its result: what is printed is rendered in the workers
    checked = fleet_results(paths, args.engine, not args.no_cache, args.jobs, args.memory_limit,
                            getattr(args, "spark_master", "local[*]"), formats, results=False)
    outcomes = [(path, outcome) for path, outcome, _ in checked]
    if args.sarif_dir:
        _write_sarif(args.sarif_dir, [(path, texts["sarif"]) for path, _, texts in checked])
    if args.format == "json":
        code = _emit_documents(_status(outcomes), [(path, texts["json"]) for path, _, texts in checked])
        if code:
            return code
    else:
        for path, outcome in outcomes:
            found = outcome.findings
            print(f"{path}: {outcome.status} (exit {outcome.exit_code}, {found} finding{'s' * (found != 1)})")
            if outcome.failure is not None:  # why that check stopped, as `analyze check` there says it
                print(f"  {outcome.failure}")
    return worst_exit(o.exit_code for _, o in outcomes)


def worst_exit(codes) -> int:
    """The fleet's exit status from its repositories' exit statuses: the worst, where 2
    (invalid input) beats 1 (a failed check) beats 0, and any other code (3, the tool's own
    failure, or one it never gives) counts as 2: fail closed, a repository whose result cannot
    be trusted never passes the fleet. 0 for no repository. The exit ``fleet check`` returns
    and the status its JSON document names (:func:`_status`) are both this one."""
    known = (exitcodes.OK, exitcodes.FAILED, exitcodes.INVALID)
    return max((code if code in known else exitcodes.INVALID for code in codes), default=exitcodes.OK)


def _emit_documents(status: str, documents) -> int:
    """Print the ``fleet.result`` document whose ``repositories`` hold ``(path, text)``: each
    repository's ``check --all --format json`` text, already rendered and shape-checked, is
    placed into the printed document as it is (indented to its depth) instead of being parsed
    and encoded again: the same bytes as encoding the parsed documents (tests/fleet)."""
    import re

    from analyzer.contract.output import build_document, dumps

    if not all(text for _, text in documents):  # a repository's document failed its shape (said on stderr)
        return exitcodes.INTERNAL
    marks = [f"@@fleet-result-{i}@@" for i in range(len(documents))]
    payload = {"status": status, "repositories": [{"path": path, "result": mark}
                                                  for (path, _), mark in zip(documents, marks)]}
    document, errors = build_document("fleet", "result", payload)
    if errors:  # emit_json prints the violations and prints no document
        from analyzer.contract.output import emit_json

        return emit_json("fleet", "result", payload)
    # a repository's document sits at depth 3 (document, repositories, item): 6 more spaces a line
    texts = {json.dumps(mark): text.rstrip("\n").replace("\n", "\n      ") for mark, (_, text) in zip(marks, documents)}
    # a quoted mark cannot occur inside an encoded string (its quotes would be escaped)
    out = re.sub('"@@fleet-result-[0-9]+@@"', lambda m: texts[m.group(0)], dumps(document))
    sys.stdout.write(out)
    return exitcodes.OK


def _results(args, paths):
    from analyzer.commands.fleet_check import fleet_check

    return fleet_check(paths, args.engine, not args.no_cache, args.jobs, args.memory_limit,
                       getattr(args, "spark_master", "local[*]"))


def _status(results) -> str:
    """The ``fleet.result`` status of ``(path, result)`` pairs (a result or its Outcome): that
    of their :func:`worst_exit`."""
    return {exitcodes.OK: "CLEAN", exitcodes.FAILED: "FINDINGS",
            exitcodes.INVALID: "FAILED"}[worst_exit(r.exit_code for _, r in results)]


def _write_sarif(directory: str, logs) -> None:
    """One SARIF log per repository (``(path, text)`` pairs), numbered in fleet order."""
    os.makedirs(directory, exist_ok=True)
    for number, (path, text) in enumerate(logs, 1):
        name = os.path.basename(os.path.normpath(path)) or "repo"
        with open(os.path.join(directory, f"{number:04d}-{name}.sarif"), "w", encoding="utf-8") as handle:
            handle.write(text)


def _report(args, paths) -> int:
    from analyzer.query.fleet_report import markdown, summary

    report = summary(_results(args, paths))
    if args.format == "json":
        from analyzer.contract.output import emit_json

        return emit_json("fleet", "report", {"status": "OK", **report})
    sys.stdout.write(markdown(report))
    return exitcodes.OK


def _query(args, paths) -> int:
    from analyzer.commands.fleet_query import goal_rows, sql_rows

    if (args.goal is None) == (args.sql is None):
        return _error("MA-USAGE", "give a datalog goal or --sql, not both or neither")
    columns, rows = (sql_rows if args.sql else goal_rows)(args, paths)
    if args.format == "json":
        print(json.dumps({"columns": columns, "rows": [list(r) for r in rows]}, indent=2, ensure_ascii=True))
    else:
        print("\t".join(columns))
        for row in rows:
            print("\t".join(str(v) for v in row))
    return exitcodes.OK


def _export(args, paths) -> int:
    from analyzer.commands.fleet_query import export

    files = export(args, paths)
    if args.format == "json":
        from analyzer.contract.output import emit_json

        return emit_json("fleet", "export", {"status": "OK", "files": files})
    for path in files:
        print(path)
    return exitcodes.OK


_COMMANDS = {"check": _check, "report": _report, "query": _query, "export": _export}
