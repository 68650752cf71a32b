"""Generate the docs that must never drift: docs/schemas/, docs/findings.md, parts of docs/cli.md,
the table of current figures at the top of docs/performance.md (analyzer/dev/perf_table.py).

``python -m analyzer.dev.gendocs`` rewrites them from their sources of truth (the command
registry, ``analyzer.core.exitcodes.TABLE``, the conformance checks, the ``@code`` blocks of
rules/*.dl); ``python -m analyzer.dev.gendocs --check`` only reports stale files (exit 1). The
tests in tests/contract/ and ``analyze conformance`` run the same comparison, so CI fails
when a committed file is stale.

docs/cli.md is hand-written except between ``<!-- generated:NAME -->`` and
``<!-- end generated:NAME -->`` markers, whose contents are replaced.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional

from analyzer.core import exitcodes
from analyzer.contract.shapes import describe, document_type, json_schema
from analyzer.contract.registry import COMMANDS, LIVE, CommandSpec, schema_name
from analyzer.core.resources import data_dir, source_root
from analyzer.dev import perf_table

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_documents(commands=COMMANDS) -> Dict[str, str]:
    """docs/schemas/<command>.<shape>.json for every declared shape, by relative path."""
    out = {}
    for spec in commands:
        for shape in spec.shapes:
            name = schema_name(spec.name, shape.name)
            schema = {
                "$schema": SCHEMA_DIALECT,
                "title": f"analyze {spec.name}: {shape.name} (version {shape.version})",
                "description": f"Printed when {shape.when}. {shape.doc}".strip(),
                **json_schema(document_type(name, shape)),
            }
            out[f"docs/schemas/{name}.json"] = json.dumps(schema, indent=2, ensure_ascii=True) + "\n"
    return out


def exit_code_table() -> str:
    """The exit-code table of docs/cli.md, from ``exitcodes.TABLE``."""
    names = {v: k for k, v in vars(exitcodes).items() if k.isupper() and isinstance(v, int)}
    rows = ["| exit | name | meaning |", "| --- | --- | --- |"]
    rows += [f"| {code} | `{names.get(code, '?')}` | {meaning} |" for code, meaning in exitcodes.TABLE]
    return "\n".join(rows)


def command_exits(spec: CommandSpec) -> Dict[int, List[str]]:
    """Every exit status a command can end with, and when (from its shapes and its own list)."""
    exits: Dict[int, List[str]] = {}
    shapes_by_exit: Dict[int, List[str]] = {}
    for shape in spec.shapes:
        for code in shape.exits:
            shapes_by_exit.setdefault(code, []).append(shape)
    for code, meaning in spec.exits:
        exits.setdefault(code, []).append(meaning)
    for code, shapes in shapes_by_exit.items():
        if code in exits:  # the command explains this exit itself; the shapes' conditions would only repeat
            exits[code][-1] += " (JSON: " + ", ".join(f"`{s.name}`" for s in shapes) + ")"
        else:
            exits[code] = [f"`{s.name}` printed: {s.when}" for s in shapes]
    exits.setdefault(exitcodes.INVALID, []).append("usage error (unknown option or missing argument)")
    exits.setdefault(exitcodes.INTERNAL, []).append("internal error, including an output that does not match its shape")
    return dict(sorted(exits.items()))


def command_sections(commands=COMMANDS) -> str:
    """One section per declared command: status, what it does, its shapes and exit codes."""
    out = []
    for spec in commands:
        out += [f"### analyze {spec.name}", "", f"Status: **{spec.status}**. {spec.summary}."]
        if spec.description:
            out += ["", spec.description]
        if spec.status != LIVE:
            out += ["", f"Not offered by the CLI yet. Instead: {spec.instead or '(nothing declared)'}."]
        if spec.shapes:
            out += ["", "| JSON shape | version | printed when | ok | status | exit | schema |",
                    "| --- | --- | --- | --- | --- | --- | --- |"]
            for shape in spec.shapes:
                name = schema_name(spec.name, shape.name)
                out.append(f"| `{shape.name}` | {shape.version} | {shape.when} | {str(shape.ok).lower()} | "
                           f"{', '.join(shape.statuses)} | {', '.join(map(str, shape.exits))} | "
                           f"[{name}.json](schemas/{name}.json) |")
            for shape in spec.shapes:
                keys = ", ".join(f"`{k}` {describe(t)}" for k, t in shape.body.required)
                optional = ", ".join(f"`{k}` {describe(t)}" for k, t in shape.body.optional)
                out += ["", f"`{shape.name}` keys after the envelope: {keys or '(none)'}."
                        + (f" Optional: {optional}." if optional else "") + (f" {shape.doc}" if shape.doc else "")]
        else:
            out += ["", "No JSON output."]
        out += ["", "Exit codes:", ""]
        out += [f"- {code}: {'; '.join(why)}" for code, why in command_exits(spec).items()]
        out.append("")
    return "\n".join(out).rstrip("\n")


def conformance_table() -> str:
    """The table of conformance checks, from the checks themselves."""
    from analyzer.dev.conformance import CHECKS

    rows = ["| id | check | needs the source tree |", "| --- | --- | --- |"]
    rows += [f"| {c.id} | {c.title} | {'yes' if c.needs_source else 'no'} |" for c in CHECKS]
    return "\n".join(rows)


def fill_sections(text: str, commands=COMMANDS) -> str:
    """``text`` (docs/cli.md) with every generated section replaced by its current content."""
    sections: Dict[str, Callable[[], str]] = {
        "exit-codes": exit_code_table,
        "commands": lambda: command_sections(commands),
        "conformance-checks": conformance_table,
    }

    def replace(match: "re.Match[str]") -> str:
        name = match.group(1)
        if name not in sections:
            raise KeyError(f"unknown generated section {name!r} in docs/cli.md")
        return f"<!-- generated:{name} -->\n{sections[name]()}\n<!-- end generated:{name} -->"

    return re.sub(r"<!-- generated:([\w-]+) -->.*?<!-- end generated:\1 -->", replace, text, flags=re.S)


def facts_catalogue(locate: Callable[[str], Path] = data_dir) -> str:
    """docs/facts.md: every base relation of facts/*.dl with its columns, parsed by our engine."""
    from analyzer.engine.syntax import parse_program

    out = ["# Base relations (the fact schema)", "",
           "<!-- generated by `python -m analyzer.dev.gendocs` from the `///` comments of facts/*.dl;"
           " do not edit by hand -->", "",
           "The contract between the extractors, the rules and anyone auditing a fact dump",
           "(`analyze facts`). Symbols are strings, numbers are integers.", ""]
    base = locate("facts")
    files = sorted(base.glob("*.dl")) if base.is_dir() else []
    for path in files:
        rel = f"facts/{path.name}"
        out += [f"## {rel}", ""]
        for decl in parse_program(path.read_text(encoding="utf-8"), rel).all_decls:
            columns = ", ".join(f"{c.name}: {c.type}" for c in decl.columns)
            out += [f"### `{decl.name}({columns})`", "", " ".join(decl.doc.split()) or "(undocumented)", ""]
            out += [f"- `{c.name}` ({c.type}): {' '.join(c.doc.split()) or '(undocumented)'}" for c in decl.columns]
            out.append("")
    if not files:
        out += ["No fact schema is declared yet.", ""]
    return "\n".join(out)


def relations_catalogue(locate: Callable[[str], Path] = data_dir) -> str:
    """docs/relations.md: every derived relation of the shipped programs (rules/query.dl, then
    rules/check/check.dl)."""
    from analyzer.engine.check import load_program
    from analyzer.query.relations import relations_doc

    rules = locate("rules")
    return relations_doc([load_program(rules / "query.dl"), load_program(rules / "check" / "check.dl")])


def expected_files(root: Path, commands=COMMANDS, locate: Callable[[str], Path] = data_dir) -> Dict[str, str]:
    """Every generated file's expected content under ``root``, by relative path."""
    from analyzer.contract import catalog

    files = dict(schema_documents(commands))
    files["docs/findings.md"] = catalog.render_findings(catalog.load(locate, root=root))
    files["docs/facts.md"] = facts_catalogue(locate)
    files["docs/relations.md"] = relations_catalogue(locate)
    cli = root / "docs" / "cli.md"
    if cli.is_file():
        files["docs/cli.md"] = fill_sections(cli.read_text(encoding="utf-8"), commands)
    files.update(perf_table.expected(root))  # docs/performance.md's table of current figures
    return files


def stale_files(root: Path, expected: Optional[Dict[str, str]] = None) -> List[str]:
    """Generated files under ``root`` that are missing, differ, or (schemas) are no longer declared."""
    expected = expected_files(root) if expected is None else expected
    problems = []
    for rel, content in sorted(expected.items()):
        path = root / rel
        if not path.is_file():
            problems.append(f"{rel}: missing")
        elif path.read_text(encoding="utf-8") != content:
            problems.append(f"{rel}: stale")
    schemas = root / "docs" / "schemas"
    for path in sorted(schemas.glob("*.json")) if schemas.is_dir() else ():
        rel = f"docs/schemas/{path.name}"
        if rel not in expected:
            problems.append(f"{rel}: no declared shape generates it")
    return problems


def main(argv: Optional[List[str]] = None) -> int:
    """Regenerate (or with --check, verify) the generated docs of the source tree."""
    parser = argparse.ArgumentParser(prog="python -m analyzer.dev.gendocs", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report stale files and exit 1 instead of writing")
    args = parser.parse_args(argv)
    root = source_root()
    if root is None:
        print("gendocs: source tree not found (installed package); nothing to generate", file=sys.stderr)
        return exitcodes.INVALID
    try:
        expected = expected_files(root)
    except perf_table.FigureError as exc:
        print(f"gendocs: {exc}", file=sys.stderr)
        return exitcodes.INVALID
    problems = stale_files(root, expected)
    if args.check:
        for problem in problems:
            print(problem)
        return exitcodes.FAILED if problems else exitcodes.OK
    for rel, content in expected.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != content:
            path.write_text(content, encoding="utf-8")
            print(f"wrote {rel}")
    for problem in problems:
        if problem.endswith("no declared shape generates it"):
            (root / problem.split(":")[0]).unlink()
            print(f"removed {problem.split(':')[0]}")
    return exitcodes.OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
