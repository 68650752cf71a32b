"""The interactive session behind ``analyze shell``: one line in, its answer out.

The project is read once; a line is a goal (answered like ``analyze query``) or a rule
(a line with ``:-`` or a ``.decl``, added to the session); dot commands show the schema,
prove answers, explain missing ones, load rule packs and change the read request. Changing
the request re-evaluates the rules over the facts already read, never the files.

It sits with the commands: a line's answer is text, rendered as ``analyze query`` renders it
(analyzer/render/answer.py, the proof caps of analyzer/commands/query.py).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Callable, List, Optional

from analyzer.core.span import Span
from analyzer.engine.errors import EngineError
from analyzer.engine.limits import Limits, QUERY_TIMEOUT_S, Watchdog

HELP = """\
A line is a goal, e.g.  owner(I, M, Sc, S, F), Sc != "project"
or a rule (a line with `:-`, or a .decl), e.g.  big(M) :- budget(M, T), T > 900.
  .schema [REL]       list relations, or describe REL (columns, docs, defining file:line)
  .why GOAL           answer GOAL with a proof of each answer
  .whynot GOAL        for a goal without answers: per rule, the first body atom that fails
  .load PACK.dl       add the rules of a rule file
  .task [TASK]        set the read request's task (no argument: no request)
  .path [P ...]       set the touched paths (no argument: none)
  .rule/.profile/.area [NAME ...]   set the explicitly opened modules
  .request            show the current request
  .help               this text;  .quit (or Ctrl-D) leaves
"""

COMMANDS = (".schema", ".why", ".whynot", ".load", ".task", ".path", ".rule", ".profile", ".area",
            ".request", ".help", ".quit", ".exit")


class Shell:
    """A project session that answers lines; ``reads`` counts project reads (one per shell)."""

    def __init__(self, project_root: Path, memory_dir: str = "docs/memory", use_cache: bool = True,
                 load: Optional[Callable] = None):
        from analyzer.project.loader import load_project

        self.root, self.memory_dir, self.use_cache = Path(project_root), memory_dir, use_cache
        self.project = (load or load_project)(self.root, memory_dir=memory_dir, use_cache=use_cache)
        self.reads = 1
        self.task: Optional[str] = None
        self.request = {"paths": [], "rules": [], "profiles": [], "areas": []}
        self.packs: List[tuple] = []  # (text, name) of every added rule, re-added on a request change
        self.session = self._session()

    # ---- session ------------------------------------------------------------------------

    def _session(self):
        from analyzer.query.world import project_session, request_or_none

        request = request_or_none(self.task, project_root=self.root, memory_dir=self.memory_dir,
                                  use_cache=self.use_cache, **self.request)
        session = project_session(request, self.root, self.memory_dir, use_cache=self.use_cache,
                                  project=self.project)
        for text, name in self.packs:
            session.add(text, name)
        return session

    def completions(self) -> List[str]:
        """Words the prompt completes: relation names, builtins and dot commands."""
        from analyzer.engine.builtins import BUILTINS

        return sorted({*self.session.relations(), *BUILTINS, *COMMANDS})

    # ---- one line -----------------------------------------------------------------------

    #: seconds one line may take (evaluation, proofs, rendering); None or 0: no limit.
    #: ``analyze shell --timeout S`` sets it; the default is query's (analyzer/commands/bounds.py)
    timeout: Optional[float] = QUERY_TIMEOUT_S

    def handle(self, line: str) -> str:
        """The text to print for ``line`` (errors included: a shell line never raises), within
        :attr:`timeout` seconds (a line past it answers DL902, as ``query`` does)."""
        dog = Watchdog(Limits(timeout_s=self.timeout or None))
        self.session.watchdog = dog
        try:
            with dog.watching():
                return self._handle(line)
        except EngineError as exc:  # the limit reached after the line's own handlers
            return exc.diagnostic("<shell>").render() + "\n"
        finally:
            self.session.watchdog = None

    def _handle(self, line: str) -> str:
        from analyzer.core.diagnostics import DiagnosticError
        from analyzer.query.needed import UnusableInput, error_line
        from analyzer.query.read import UnknownTask

        line = line.strip()
        if not line or line.startswith("//"):
            return ""
        try:
            if line.startswith("."):
                return self._command(line)
            if ":-" in line or line.startswith(".decl"):
                defined = self.session.add(line, f"<line {len(self.packs) + 1}>")
                self.packs.append((line, f"<line {len(self.packs) + 1}>"))
                return f"added: {', '.join(defined)}\n"
            return self._answer(line, proofs=False)
        except DiagnosticError as exc:
            return "".join(d.render() + "\n" for d in exc.diagnostics)
        except UnknownTask as exc:
            return f"unknown task: {exc.message()}\n"
        except UnusableInput as exc:  # a request over a file it cannot use fails closed, as read does
            return "".join(error_line(d) + "\n" for d in exc.diagnostics)
        except EngineError as exc:
            return exc.diagnostic("<shell>").render() + "\n"

    def _answer(self, goal: str, proofs: bool) -> str:
        from analyzer.commands.query import WHY_MAX_PROOFS, capped_proofs
        from analyzer.render.answer import render_table

        # .why is bounded as `query --why` is: at most WHY_MAX_PROOFS proofs and
        # WHY_MAX_LINES lines, and a note saying what was left out
        answer = self.session.ask(goal, provenance=proofs, max_proofs=WHY_MAX_PROOFS if proofs else None,
                                  written=True)
        out = "".join(warning.render() + "\n" for warning in answer.warnings)
        out += render_table(answer.columns, answer.rows)
        texts, note = capped_proofs(answer)
        for text in texts or ():
            out += "\n" + text + "\n"
        if note:
            out += "\n" + note.replace("--why:", ".why:", 1) + "\n"
        return out

    def _command(self, line: str) -> str:
        name, _, rest = line.partition(" ")
        rest = rest.strip()
        if name in (".quit", ".exit"):
            raise EOFError
        if name == ".help":
            return HELP
        if name == ".schema":
            return self._schema(rest)
        if name == ".why":
            return self._answer(rest, proofs=True)
        if name == ".whynot":
            from analyzer.query.whynot import why_not

            return why_not(self.session, rest).render()
        if name == ".load":
            text = _program_text(rest)
            defined = self.session.add(text, rest)
            self.packs.append((text, rest))
            return f"loaded {rest}: {', '.join(defined)}\n"
        if name in (".task", ".path", ".rule", ".profile", ".area"):
            return self._set(name, shlex.split(rest))
        if name == ".request":
            return self._describe()
        return f"unknown command {name}; .help lists the commands\n"

    def _schema(self, rel: str) -> str:
        from analyzer.query.relations import catalogue, nearest_relation, render_list, render_relation, select

        relations = catalogue([self.session.engine.program, *(o.engine.program for o in self.session.others)])
        if not rel:
            return render_list(select(relations))
        if rel in relations:
            return render_relation(relations[rel])
        decl = self.session.decl(rel)
        if decl is not None:  # a relation added in this session
            return f"{rel}({', '.join(f'{c.name}: {c.type}' for c in decl.columns)})  (added)\n"
        near = nearest_relation(rel, self.session.relations())
        return f"unknown relation {rel!r}" + (f"; the nearest known relation is {near}" if near else "") + "\n"

    def _set(self, name: str, values: List[str]) -> str:
        previous = (self.task, {k: list(v) for k, v in self.request.items()})
        if name == ".task":
            self.task = values[0] if values else None
        else:
            self.request[{".path": "paths", ".rule": "rules", ".profile": "profiles", ".area": "areas"}[name]] = values
        try:
            self.session = self._session()  # the facts already read; only the request changes
        except Exception:
            self.task, self.request = previous
            raise
        return self._describe()

    def _describe(self) -> str:
        if self.task is None and not any(self.request.values()):
            return "request: none (request-dependent relations will not answer; set .task)\n"
        parts = [f"task {self.task or 'default'}"]
        parts += [f"{k} {' '.join(v)}" for k, v in self.request.items() if v]
        return "request: " + "; ".join(parts) + "\n"


def _program_text(path: str) -> str:
    """The text of a rule file for ``.load``: a regular UTF-8 file (never a FIFO, which would
    block the shell), else DL914 naming why, as ``analyze query PROGRAM.dl`` reports it."""
    from analyzer.core.diagnostics import Diagnostic, DiagnosticError
    from analyzer.engine.sourcefile import read_text

    try:
        return read_text(path)
    except OSError as exc:
        why = exc.strerror or str(exc)
    except UnicodeDecodeError as exc:
        why = f"not UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
    raise DiagnosticError([Diagnostic(Span(path or "<empty>", 1, 1), "DL914", f"cannot read program: {why}")])
