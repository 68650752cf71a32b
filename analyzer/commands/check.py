"""``analyze check``: the protocol's project checks (spec §9), one family or all of them.

Dispatch is the reference's: ``--conflicts`` wins, then ``--routing``, ``--reachability``,
``--freshness``; no flag runs the full legacy check; ``--all`` (ours) runs every family in
one evaluation and prints each family's block.

Its rule packs (``--rules PACK.dl``; the packs themselves are analyzer/query/packs.py) and, when
it cannot run, every artefact it was asked for are here too: a configuration, usage, rule-pack,
baseline or project-root error still writes each requested ``--output FORMAT:FILE`` (and the
``--format`` output on stdout) from a :func:`~analyzer.contract.check_model.failed_run` result
(:func:`write_errors`), so a CI upload step finds its file and shows the cause: SARIF with
``executionSuccessful: false`` and the error as a notification, a JUnit ``error`` case, a
``::error`` annotation and a line in ``$GITHUB_STEP_SUMMARY``, a Markdown summary.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from typing import List, Optional, Tuple

from analyzer.core import exitcodes
from analyzer.core.diagnostics import Diagnostic, DiagnosticError
from analyzer.core.span import Span

FLAGS = ("conflicts", "routing", "reachability", "freshness", "agents")  # dispatch priority (§9)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the check options (the reference's family flags, plus --all and --format)."""
    parser.add_argument("--routing", action="store_true", help="check every canonical route and optional module declaration")
    parser.add_argument("--reachability", action="store_true", help="find active memory no normal route can load")
    parser.add_argument("--freshness", action="store_true", help="check Evidence paths and revisions, and stale relations")
    parser.add_argument("--conflicts", action="store_true", help="project-wide conflict analysis of the current worktree")
    parser.add_argument("--agents", action="store_true",
                        help="check every agent tool's instruction files: memory reachable, dead globs, inert files, "
                             "budgets, frontmatter, imports, drifted copies (MA-AGENT-*)")
    parser.add_argument("--merge-base", metavar="REF", default=None,
                        help="with --conflicts: also review merging REF into HEAD (read-only Git, spec §9.5)")
    parser.add_argument("--security", action="store_true",
                        help="plain check only: list each security scan finding (redacted) and the total")
    parser.add_argument("--privacy", action="store_true",
                        help="plain check only: list each privacy scan finding (redacted) and the total")
    parser.add_argument("--all", action="store_true", help="run every family in one evaluation (one block each)")
    parser.add_argument("--introduced", action="store_true",
                        help="name, for each finding, the first-parent commit where it started and its age in commits "
                             "(like git blame for findings; memory commits of HEAD's history, newest first)")
    parser.add_argument("--introduced-depth", type=positive_int, default=None, metavar="N",
                        help="with --introduced: read at most N memory commits back (default 100); a finding still "
                             "present at the oldest is reported as present since it or earlier")
    from analyzer.commands.bounds import add_max_file_bytes
    from analyzer.project.root import add_root_arguments

    add_root_arguments(parser)
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the parse cache")
    add_max_file_bytes(parser)
    add_output_arguments(parser)
    from analyzer.commands import autonomy, gating

    gating.add_arguments(parser)
    add_pack_arguments(parser)
    autonomy.add_arguments(parser)


def positive_int(text: str) -> int:
    """The argparse type of a count that must be at least 1."""
    import argparse

    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a positive whole number: {text!r}")
    return int(text)


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """``--format`` and repeatable ``--output [FORMAT:]FILE`` (also set by the project config)."""
    from analyzer.commands.check_formats import RENDERERS

    parser.add_argument("--format", choices=tuple(RENDERERS), default=None,
                        help="output format (default: text, or the project configuration's `format`)")
    parser.add_argument("--output", action="append", default=None, metavar="[FORMAT:]FILE",
                        help="write the output to FILE instead of stdout; FORMAT:FILE writes that format to FILE "
                             "as well (repeatable, e.g. --output sarif:check.sarif --output junit:check.xml)")
    parser.add_argument("--sarif-category", default=None, metavar="CATEGORY",
                        help="SARIF automationDetails.id category (default memory-analyzer/check): give each "
                             "SARIF upload of one commit its own, as upload-sarif's `category`")
    parser.add_argument("--help-uri", default=None, metavar="URL",
                        help="absolute URL of the findings catalogue that SARIF rules link to (CODE anchors are added)")


def families_of(args: argparse.Namespace):
    """The families a command line runs, in block order (§9 dispatch)."""
    from analyzer.query.check_request import ORDER

    if args.all:
        return list(ORDER)
    for flag in FLAGS:
        if getattr(args, flag):
            return [flag]
    return ["legacy"]


def run(args: argparse.Namespace) -> int:
    """Run the chosen families and print their blocks (or the ``check.result`` document),
    writing each ``--output`` file from the same result."""
    from pathlib import Path

    # run_check imports the evaluation only when the result cache has no answer
    from analyzer.query.check_request import CheckRequest, run_check
    from analyzer.project.root import resolve_root

    args.project_root = resolve_root(args.project_root, args.memory_dir).path
    if not Path(args.project_root).is_dir():
        args.format = args.format or "text"
        return _usage(args, f"project root is not a directory: {args.project_root}")
    from analyzer.commands import autonomy

    judge_changes = autonomy.wanted(args)  # before the configuration fills --autonomy
    failed = apply_config(args, "check", trust_base=args.base if judge_changes else None)
    if failed is not None:
        return failed
    if getattr(args, "help_uri", None) and not args.help_uri.startswith(("https://", "http://")):
        message = f"--help-uri / help-uri {args.help_uri!r}: give an absolute http(s) URL " \
                  "(code scanning rejects a relative helpUri)"
        args.help_uri = None  # the artefacts link to the default
        return _usage(args, message)
    if judge_changes:
        if args.introduced or args.introduced_depth is not None:
            return autonomy.error(args, "MA-USAGE", "--introduced traces the findings of the check; it cannot be "
                                                    "combined with --base/--autonomy")
        return autonomy.run(args)
    args.format = args.format or "text"
    if args.introduced_depth is not None and not args.introduced:
        return autonomy.error(args, "MA-USAGE", "--introduced-depth needs --introduced")
    if args.introduced and args.merge_base is not None:
        return autonomy.error(args, "MA-USAGE", "--introduced cannot be combined with --merge-base (the merge "
                                                "review is judged between revisions, not traced through them)")
    options = {"merge_base": args.merge_base} if args.merge_base is not None else {}
    # §9.8: --security/--privacy act only on plain check (ignored with a family flag)
    options.update({flag: "1" for flag in ("security", "privacy") if getattr(args, flag, False)})
    packs, failed = load_packs(args)
    if failed is not None:
        return failed
    from analyzer.commands import gating

    gate = gating.make_gate(args, "check", [c.code for c in packs.codes()] if packs else (),
                            on_error=lambda code, message: write_errors(args, message, code))
    if isinstance(gate, int):
        return gate
    from analyzer.commands.check_formats import Context, parse_output, render, wants_report

    # the Markdown report (a format, or the step summary of github) needs the report's
    # relations: they are evaluated with the families, in the same evaluation
    report = wants_report([args.format] + [parse_output(spec, args.format)[0] for spec in args.output])
    families = families_of(args) + (["report"] if report else [])
    result = run_check(CheckRequest(families, Path(args.project_root), args.memory_dir, not args.no_cache,
                                  options, packs, args.with_proofs, max_file_bytes=args.max_file_bytes))
    if result.failure is not None:
        # §9: a missing memory dir is the check's outcome (stdout, exit 1); unusable input
        # escapes as `Error: …` on stderr (exit 2). Other formats than text carry it in
        # their document on stdout, so the message goes to stderr.
        text_out = result.exit_code == exitcodes.FAILED and args.format == "text" and not args.output
        print(result.failure.message, file=sys.stdout if text_out else sys.stderr)
    parts = None
    if report:
        from analyzer.query.report import report_of

        parts = report_of(result)  # the report family split out (an error result as it is)
        result = parts.check
    result = gating.apply_gate(result, gate)
    if args.introduced and result.failure is None:
        from analyzer.history.git import GitError
        from analyzer.query.introduced import DEPTH, attach, trace

        request = CheckRequest(families_of(args), Path(args.project_root), args.memory_dir, not args.no_cache,
                               options, packs, False, max_file_bytes=args.max_file_bytes)
        try:
            attach(result, trace(request, result, args.introduced_depth or DEPTH))
        except GitError as exc:
            return autonomy.error(args, "MA-GIT", f"--introduced: {exc}")
    ctx = Context(str(args.project_root), report=parts if parts is not None and parts.full else None, **sarif_options(args))
    status = write_outputs(args, lambda fmt: render(fmt, result, ctx))
    if status:
        return status
    return result.exit_code if result.exit_code in (0, 1, 2) else exitcodes.INTERNAL


def add_pack_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare ``--rules`` and ``--with-proofs``."""
    parser.add_argument("--rules", dest="packs", action="append", default=[], metavar="PACK.dl",
                        help="also report the findings of a rule pack (repeatable)")
    parser.add_argument("--with-proofs", action="store_true",
                        help="add a proof tree to every finding (JSON `proofs`, SARIF code flows)")


def load_packs(args: argparse.Namespace) -> Tuple[Optional[object], Optional[int]]:
    """``(PackSet or None, None)``, or ``(None, exit status)`` after reporting a bad pack on
    stderr (and the ``check.error`` document with ``--format json``): exit 2."""
    if not args.packs:
        return None, None
    from analyzer.query import packs

    try:
        return packs.load_packs(args.packs, use_cache=not args.no_cache), None
    except DiagnosticError as exc:
        for diag in exc.diagnostics:
            print(diag.render(), file=sys.stderr)
        first = exc.diagnostics[0]
        status = write_errors(args, "\n".join(d.render(caret=False) for d in exc.diagnostics), first.code,
                              first.span.path, first.span.line, first.span.col)
        if status != exitcodes.INVALID:
            return None, status
        if args.format == "json":
            from analyzer.contract.output import emit_json

            status = emit_json("check", "error", {"status": "INVALID", "exit_code": exitcodes.INVALID,
                                                  "diagnostics": [d.as_dict() for d in exc.diagnostics]})
            if status:
                return None, status
        return None, exitcodes.INVALID


def sarif_options(args: argparse.Namespace) -> dict:
    """The SARIF options of a command line as :class:`Context` fields."""
    return {"help_uri": getattr(args, "help_uri", None) or "", "memory_dir": getattr(args, "memory_dir", None)
            or "docs/memory", "sarif_category": getattr(args, "sarif_category", None) or ""}


def _usage(args: argparse.Namespace, message: str) -> int:
    """A ``check`` command line that cannot run (MA-USAGE, exit 2): see :func:`_refuse`."""
    return _refuse(args, "check", message, Diagnostic(Span("<command line>"), "MA-USAGE", message).as_dict())


def _refuse(args: argparse.Namespace, command: str, shown: str, diagnostic: dict) -> int:
    """A command that cannot run (exit 2): ``shown`` on stderr, the ``<command>.error`` document
    holding ``diagnostic`` on stdout in JSON, and for ``check`` every ``--output`` file carrying
    the error (at the diagnostic's file, none for the command line)."""
    print(f"analyze {command}: error: {shown}", file=sys.stderr)
    if args.format == "json":
        from analyzer.contract.output import emit_json

        emit_json(command, "error", {"status": "INVALID", "exit_code": exitcodes.INVALID, "diagnostics": [diagnostic]})
    if command != "check":
        return exitcodes.INVALID
    path = "" if diagnostic["path"] == "<command line>" else diagnostic["path"]
    return write_errors(args, diagnostic["message"], diagnostic["code"], path, diagnostic["line"], diagnostic["col"])


def apply_config(args: argparse.Namespace, command: str, names=None, trust_base=None):
    """Fill unset options from the project configuration; an unusable file is exit 2 with
    ``path:line:col`` (None when all is well). ``names``: the formats the command writes
    (as :func:`write_outputs`), so ``FORMAT:FILE`` targets are judged as the file they name.
    With ``trust_base`` (the ``--base`` of judged changes), :data:`analyzer.project.config.TRUST_KEYS`
    come from the configuration at that revision."""
    from analyzer.project import config

    try:
        current = config.load(args.project_root)
        if trust_base is not None:
            current = _trusted_from_base(args, command, current, trust_base)
        config.apply(args, command, current)
    except config.ConfigError as exc:
        args.format = args.format or "text"
        return _refuse(args, command, str(exc), exc.diagnostic())
    args.format = args.format or "text"
    args.output = args.output or []
    return refuse_targets(args, names)  # before any work: a refused target fails at once


def mistyped_format(spec: str, names=None):
    """Why ``--output FORMAT:FILE`` names no format when FORMAT is a near miss of one
    (``sarf:x`` would write a file named ``sarf:x``); None when it is a format or not close
    to one (a file name with a colon stays a file name, ``./sarf:x`` always does)."""
    import re

    from analyzer.core.hints import did_you_mean
    from analyzer.commands.check_formats import RENDERERS

    head, sep, tail = spec.partition(":")
    known = list(names or RENDERERS)
    if not sep or not tail or head in known or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]+", head):
        return None
    hint = did_you_mean(head, known)
    return f"{head!r} is not an output format{hint} (write ./{spec} for a file of that name)" if hint else None


def _trusted_from_base(args: argparse.Namespace, command: str, current, base: str):
    """Apply :data:`~analyzer.project.config.TRUST_KEYS` as the base revision's configuration and the
    current one together allow, and return the current configuration without them: the judged
    changes (a pull request, possibly an agent's) may tighten them, never loosen them. A
    reviewer counts only when the base's list names them too, an agent pattern of either
    counts, and the stricter autonomy level wins. A note on stderr names what was not taken.
    When Git cannot resolve the base, the base has no configuration (the autonomy check then
    fails on that base, exit 2)."""
    from analyzer.history.config_at import load_at
    from analyzer.history.git import GitError
    from analyzer.project import config, vocab

    try:
        at_base = load_at(str(args.project_root), base).values
    except GitError:
        at_base = {}
    now, merged, dropped = current.values, {}, []
    if "reviewers" in now or "reviewers" in at_base:
        allowed = at_base.get("reviewers", [])
        merged["reviewers"] = [r for r in now["reviewers"] if r in allowed] if "reviewers" in now else allowed
        dropped += [f"reviewer {r!r}" for r in now.get("reviewers", []) if r not in allowed]
    if "agent-authors" in now or "agent-authors" in at_base:
        patterns = at_base.get("agent-authors", [])
        merged["agent-authors"] = patterns + [p for p in now.get("agent-authors", []) if p not in patterns]
    if "autonomy" in now or "autonomy" in at_base:
        levels = vocab.modes()  # strictest first; unset means confirm
        merged["autonomy"] = min(now.get("autonomy", "confirm"), at_base.get("autonomy", "confirm"), key=levels.index)
        if merged["autonomy"] != now.get("autonomy", "confirm"):
            dropped.append(f"autonomy {now['autonomy']!r}")
    config.apply(args, command, config.Config(merged))
    if dropped:
        print(f"analyze {command}: note: not taken from the configuration the changes leave: {', '.join(dropped)} "
              f"(not so in the configuration at the base revision {base}; judged changes cannot loosen who "
              "confirms them: give --reviewer/--autonomy on the command line to choose otherwise)", file=sys.stderr)
    rest = {k: v for k, v in now.items() if k not in config.TRUST_KEYS}
    return config.Config(rest, current.path, current.lines)


def refuse_targets(args: argparse.Namespace, names=None):
    """Exit 2 after one ``MA-OUTPUT`` line when an ``--output`` target may not be written
    (analyzer/commands/outfiles.py: memory dir, .git, symlink, not a regular file) or is named by
    two ``--output`` options (the second write would silently replace the first); None when all
    may. Judged before the analysis runs and again just before writing."""
    from analyzer.commands.check_formats import parse_output

    root, memory_dir = str(getattr(args, "project_root", ".") or "."), getattr(args, "memory_dir", "docs/memory")
    named = set()  # the absolute paths of the targets so far: a second write would overwrite the first
    for spec in args.output:
        typo = mistyped_format(spec, names)
        if typo:
            print(f"analyze: error: MA-USAGE --output {spec}: {typo}", file=sys.stderr)
            return exitcodes.INVALID
        path = parse_output(spec, args.format, names)[1]
        if path is None:
            continue
        if os.path.abspath(path) in named:
            print(f"analyze: error: MA-OUTPUT refused to write {path} twice: two --output options name it "
                  "(one file per output)", file=sys.stderr)
            return exitcodes.INVALID
        named.add(os.path.abspath(path))
        from analyzer.commands.outfiles import refusal  # loaded only when a file is named

        reason = refusal(path, root, memory_dir)
        if reason:
            print(f"analyze: error: MA-OUTPUT refused to write {path}: {reason}", file=sys.stderr)
            return exitcodes.INVALID
    return None


def write_outputs(args: argparse.Namespace, render, names=None, stdout: bool = True) -> int:
    """Print the ``--format`` output (unless a plain ``--output FILE`` takes it, or ``stdout``
    is false: the caller printed it) and write every ``--output``; ``render(format)`` gives
    ``(text, status)``. 0, or the first failure's exit status."""
    from analyzer.commands.check_formats import foreign_format, parse_output

    for spec in args.output:
        head = foreign_format(spec, names)
        if head is not None:  # a check format this command does not write: not a file named "sarif:…"
            print(f"analyze: error: --output {spec}: this command writes {' or '.join(names)}, not {head}",
                  file=sys.stderr)
            return exitcodes.INVALID
    targets = [parse_output(spec, args.format, names) for spec in args.output]
    root, memory_dir = str(getattr(args, "project_root", ".") or "."), getattr(args, "memory_dir", "docs/memory")
    refused = refuse_targets(args, names)  # every target is judged before any is written
    if refused is not None:
        return refused
    if stdout and not any(plain for _, _, plain in targets):
        targets.insert(0, (args.format, None, False))
    done: dict = {}
    for fmt, path, _ in targets:
        if fmt not in done:
            done[fmt] = render(fmt)
        text, status = done[fmt]
        if status:
            return status
        if path is None:
            sys.stdout.write(text)
            continue
        from analyzer.commands.outfiles import OutputRefused, write_text  # loaded only when a file is named

        try:
            write_text(path, text, root, memory_dir)
        except OutputRefused as exc:
            print(f"analyze: error: MA-OUTPUT {exc}", file=sys.stderr)
            return exitcodes.INVALID
        except OSError as exc:
            print(f"analyze: error: MA-OUTPUT cannot write {path}: {exc.strerror}", file=sys.stderr)
            return exitcodes.INVALID
    return exitcodes.OK


#: formats whose error output the caller has written (stderr text, the JSON error document)
WRITTEN_BY_CALLER = ("text", "json")


def write_errors(args: argparse.Namespace, message: str, code: str, path: str = "", line: int = 1,
                 col: int = 1) -> int:
    """Write the error ``message`` (``code``, at ``path:line:col`` when a file is at fault) to
    every output the command line requested; ``exitcodes.INVALID`` (or the write's failure).
    Text and JSON are not written here (:data:`WRITTEN_BY_CALLER`): the caller has put the error
    on stderr and, for ``--format json``, printed the ``check.error`` document already."""
    from analyzer.contract.check_model import failed_run
    from analyzer.commands.check_formats import RENDERERS, Context, render

    fmt = getattr(args, "format", None)
    fmt = fmt if fmt in RENDERERS else "text"
    # the project root and memory dir go along: every file is written through analyzer/commands/outfiles.py,
    # which refuses a target in the memory dir or .git of this project
    shown = argparse.Namespace(format=fmt, output=list(getattr(args, "output", None) or []),
                               project_root=str(getattr(args, "project_root", None) or "."),
                               memory_dir=getattr(args, "memory_dir", None) or "docs/memory")
    result = failed_run(message, code, path, line, col)
    ctx = Context(str(getattr(args, "project_root", None) or "."), **sarif_options(args))
    status = write_outputs(shown, lambda f: render(f, result, ctx), stdout=fmt not in WRITTEN_BY_CALLER)
    return status or exitcodes.INVALID


def usage_words(words: List[str]) -> argparse.Namespace:
    """What a ``check`` command line argparse refused still says about its outputs: every
    ``--output``, ``--format``, ``--project-root``, ``--memory-dir`` and SARIF option given
    (read without argparse, which stopped at the error)."""
    found = argparse.Namespace(format=None, output=[], project_root=None, memory_dir=None, help_uri=None,
                               sarif_category=None)
    names = {"--output": "output", "--format": "format", "--project-root": "project_root",
             "--memory-dir": "memory_dir", "--help-uri": "help_uri", "--sarif-category": "sarif_category"}
    i = 0
    while i < len(words):
        word = words[i]
        key, sep, value = word.partition("=")
        if key in names and (sep or i + 1 < len(words)):
            if not sep:
                value, i = words[i + 1], i + 1
            if names[key] == "output":
                found.output.append(value)
            else:
                setattr(found, names[key], value)
        i += 1
    from analyzer.commands.check_formats import RENDERERS

    if found.format not in RENDERERS:
        found.format = None
    return found


def parse_or_report(parser: argparse.ArgumentParser, words: List[str]) -> tuple:
    """``parser.parse_known_args(words)`` for ``check``; on a usage error, argparse's message on
    stderr as usual, then the requested artefacts with it (MA-USAGE), and SystemExit(2)."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return parser.parse_known_args(words)
    except SystemExit as exc:
        sys.stderr.write(err.getvalue())
        if exc.code not in (0, None):
            lines = [l for l in err.getvalue().splitlines() if l.strip()]
            message = lines[-1] if lines else "invalid command line"
            write_errors(usage_words(words[1:]), message, "MA-USAGE")
        raise
