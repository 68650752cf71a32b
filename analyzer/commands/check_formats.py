"""Every output format of ``analyze check``, by name: one check result, many renderers.

:func:`render` returns the text of one format and an exit status of its own (0, or
``exitcodes.INTERNAL`` when a JSON document did not match its declared shape and nothing
may be printed). The renderers only translate the result; none decides a finding.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Mapping, Optional, Tuple

from analyzer.core import exitcodes
from analyzer.contract.check_model import CheckResult

FORMATS = ("text", "concise", "json", "sarif", "junit", "github", "markdown", "gitlab")


@dataclass
class Context:
    """What renderers need besides the result: the project root, where it sits in its Git
    work tree (``prefix`` of repository-relative paths), where warnings go, and the report's
    relations (an :class:`~analyzer.query.report.Report` from the same evaluation, when
    :func:`wants_report` asked for them) for the Markdown report."""

    project_root: str = "."
    prefix: Optional[str] = None
    warn: Callable[[str], None] = lambda message: print(message, file=sys.stderr)
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    report: Optional[object] = None
    #: SARIF: the base URL of built-in rules' ``helpUri``, the ``automationDetails`` category
    #: and the memory dir (where a finding without a line is placed, and never written: the step
    #: summary is refused there); "" = the defaults
    help_uri: str = ""
    sarif_category: str = ""
    memory_dir: str = "docs/memory"

    def repo_prefix(self) -> str:
        """The project root's path in its repository (asked of Git once)."""
        if self.prefix is None:
            from analyzer.history.repofiles import repo_prefix

            self.prefix = repo_prefix(self.project_root)
        return self.prefix


def _text(result: CheckResult, ctx: Context) -> Tuple[str, int]:
    from analyzer.render.check_text import render_check_text

    return render_check_text(result), exitcodes.OK


def _concise(result: CheckResult, ctx: Context) -> Tuple[str, int]:
    from analyzer.render.check_concise import render_concise

    return render_concise(result), exitcodes.OK


def _json(result: CheckResult, ctx: Context) -> Tuple[str, int]:
    from analyzer.contract.output import build_document, dumps
    from analyzer.render.check_json import check_payload, error_payload

    shape, payload = ("error", error_payload(result)) if result.failure is not None else ("result", check_payload(result))
    document, errors = build_document("check", shape, payload)
    if errors:
        ctx.warn(f"analyze: internal error: check output does not match its declared shape check.{shape}; "
                 f"nothing was written: {errors[0]}")
        return "", exitcodes.INTERNAL
    return dumps(document), exitcodes.OK


def _sarif(result: CheckResult, ctx: Context) -> Tuple[str, int]:
    from analyzer.render.check_sarif import render_sarif

    options = {"help_uri": ctx.help_uri, "category": ctx.sarif_category, "memory_dir": ctx.memory_dir}
    return render_sarif(result, ctx.repo_prefix(), ctx.warn, options), exitcodes.OK


def _junit(result: CheckResult, ctx: Context) -> Tuple[str, int]:
    from analyzer.render.check_junit import render_junit

    return render_junit(result, ctx.repo_prefix()), exitcodes.OK


def _gitlab(result: CheckResult, ctx: Context) -> Tuple[str, int]:
    from analyzer.render.check_gitlab import render_gitlab

    return render_gitlab(result, ctx.repo_prefix(), ctx.memory_dir), exitcodes.OK


def _markdown(result: CheckResult, ctx: Context, limit: Optional[int] = None) -> Tuple[str, int]:
    from analyzer.query.report import Report
    from analyzer.render.md import LIMIT, link_base
    from analyzer.render.report_markdown import render_report_markdown

    # the report's relations with this (gated) result's status and findings
    report = dataclasses.replace(ctx.report, check=result) if ctx.report is not None else Report(result)
    if ctx.prefix is None and ctx.report is not None:
        ctx.prefix = ctx.report.repo_prefix(ctx.project_root)
    return render_report_markdown(report, ctx.repo_prefix(), link_base(ctx.env), LIMIT if limit is None else limit,
                                  command="check"), exitcodes.OK


def _github(result: CheckResult, ctx: Context) -> Tuple[str, int]:
    from analyzer.render.check_github import render_github

    from analyzer.commands.outfiles import OutputRefused, write_text

    summary = ctx.env.get("GITHUB_STEP_SUMMARY")
    if summary:
        from analyzer.render.md import LIMIT

        try:  # GitHub's 1 MiB holds what earlier steps wrote too: ours fits in what is left
            room = LIMIT - os.stat(summary).st_size
        except OSError:
            room = LIMIT
        text, _ = _markdown(result, ctx, max(room, 0))
        try:
            write_text(summary, text, ctx.project_root, ctx.memory_dir, append=True)
        except OutputRefused as exc:  # the memory dir, .git, a symlink, a FIFO: never written
            ctx.warn(f"analyze: error: MA-OUTPUT $GITHUB_STEP_SUMMARY: {exc}")
            return "", exitcodes.INVALID
        except OSError as exc:
            ctx.warn(f"analyze: cannot append to $GITHUB_STEP_SUMMARY ({summary}): {exc.strerror}")
    return render_github(result, ctx.repo_prefix()), exitcodes.OK


RENDERERS: Dict[str, Callable[[CheckResult, Context], Tuple[str, int]]] = {
    "text": _text,
    "concise": _concise,
    "json": _json,
    "sarif": _sarif,
    "junit": _junit,
    "github": _github,
    "markdown": _markdown,
    "gitlab": _gitlab,
}


def wants_report(formats: Iterable[str], env: Optional[Mapping[str, str]] = None) -> bool:
    """Whether these output formats print the Markdown report, whose relations the check
    must then evaluate too: ``markdown``, or ``github`` with ``$GITHUB_STEP_SUMMARY`` set."""
    env = os.environ if env is None else env
    formats = set(formats)
    return "markdown" in formats or ("github" in formats and bool(env.get("GITHUB_STEP_SUMMARY")))


def render(fmt: str, result: CheckResult, ctx: Context) -> Tuple[str, int]:
    """The text of ``result`` in format ``fmt``, and 0 or ``exitcodes.INTERNAL``."""
    return RENDERERS[fmt](result, ctx)


def foreign_format(spec: str, names) -> Optional[str]:
    """The check format an ``--output FORMAT:FILE`` names when the command (writing only
    ``names``) does not write it; None otherwise (``FILE`` alone, or a format it writes)."""
    head, sep, tail = spec.partition(":")
    return head if names and sep and tail and head in RENDERERS and head not in names else None


def parse_output(spec: str, default_format: str, names=None) -> Tuple[str, str, bool]:
    """``--output`` value -> ``(format, file, plain)``: ``FORMAT:FILE`` when FORMAT is a format
    name (so ``C:\\out.sarif`` stays a file); else ``FILE`` takes the ``--format`` output in
    place of stdout (``plain``)."""
    head, sep, tail = spec.partition(":")
    if sep and head in (names or RENDERERS) and tail:
        return head, tail, False
    return default_format, spec, True


def write_as_check(fmt: str, result: CheckResult, project_root: str, exit_code: int) -> int:
    """Print a non-check result (diff, autonomy) in one of check's CI formats, already turned
    into a :class:`CheckResult`; returns the format's status, else ``exit_code``."""
    text, status = render(fmt, result, Context(project_root))
    sys.stdout.write(text)
    return status or exit_code
