"""The tools ``analyze mcp`` offers: each one a CLI command, described from the command registry.

A :class:`ToolSpec` names the command a tool runs, the output it returns (the command's
``--format json`` document, or its text where the command has no JSON) and which of the
command's argparse options each tool argument sets. Everything a host sees is generated from
those two sources and nothing else: the tool description is the registry's summary and
description plus the declared output shapes, and each argument's JSON Schema (type, choices,
help) is read off the argparse action it maps to. A renamed option or a changed help text
therefore changes the tool with it, and an option that disappears makes :func:`tool_schema`
raise instead of describing a tool the command no longer accepts (tests/mcp/test_tools.py).

This module needs no MCP SDK: the server (analyzer/commands/mcp_server.py) and the tests read it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

#: the prefixes of ``explicit`` values and the read options they stand for
EXPLICIT = (("rule", "--rule"), ("profile", "--profile"), ("area", "--area"))


@dataclass(frozen=True)
class Param:
    """One tool argument and the command-line option(s) it sets.

    ``kind``: ``option`` (one argparse option or positional, by option string or dest),
    ``flags`` (a list of names, each a ``--NAME`` switch), ``explicit`` (``rule:X``,
    ``profile:X``, ``area:X`` values for --rule/--profile/--area)."""

    name: str
    options: Tuple[str, ...]
    kind: str = "option"
    required: bool = False


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: the command it runs, its arguments, the fixed options, the output kind."""

    name: str
    command: str
    params: Tuple[Param, ...]
    fixed: Tuple[str, ...] = ()  # always on the command line, e.g. ("--format", "json")
    output: str = "json"  # "json": the command's JSON document; "text": its text output
    project: bool = True  # runs against the server's project (--project-root, --memory-dir)
    cacheable: bool = True  # its answer depends only on what the project fingerprint covers
    lead: str = ""  # one sentence put before the command's description

    def param(self, name: str) -> Param:
        """The declared argument ``name``; ``KeyError`` when undeclared."""
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(f"tool {self.name!r} has no argument {name!r}")


_TASK = Param("task", ("--task",))
_PATHS = Param("paths", ("--path",))
_EXPLICIT = Param("explicit", tuple(option for _, option in EXPLICIT), kind="explicit")
_JSON = ("--format", "json")

TOOLS: Tuple[ToolSpec, ...] = (
    ToolSpec("memory_read", "read",
             (Param("task", ("--task",), required=True), Param("paths", ("--path",), required=True), _EXPLICIT,
              Param("strict", ("--strict-routing",))), _JSON,
             lead="Which memory modules to load for a task and the paths it touches, and why every other "
                  "module is not loaded."),
    ToolSpec("memory_why", "why",
             (Param("module", ("module",)), Param("pattern", ("--pattern",)), _TASK, _PATHS, _EXPLICIT), _JSON,
             lead="The proof of one module's disposition (give module), or of every tuple matching a pattern "
                  "(give pattern); exactly one of the two."),
    ToolSpec("memory_whynot", "why",
             (Param("pattern", ("--pattern",), required=True), _TASK, _PATHS, _EXPLICIT),
             output="text",
             lead="Why a pattern has no tuples: per rule that could derive it, the first body literal that "
                  "fails and the closest facts (the text `analyze why --pattern` prints; proofs when it holds)."),
    ToolSpec("memory_check", "check", (Param("families", ("--routing", "--reachability", "--freshness",
                                                          "--conflicts", "--all"), kind="flags"),),
             _JSON, cacheable=False,
             lead="Run the project checks: one family, `all`, or (no family) the full legacy check."),
    ToolSpec("memory_query", "query",
             (Param("goal", ("inputs",), required=True), Param("rules", ("-e",)), _TASK, _PATHS, _EXPLICIT),
             _JSON, lead="Answer a datalog goal over the project's memory facts and the shipped rules."),
    ToolSpec("memory_schema", "schema", (Param("relation", ("relation",)), Param("derived", ("--derived",))),
             _JSON, project=False, lead="The relations memory_query can ask, with columns and docs."),
    ToolSpec("memory_diff", "diff", (Param("base", ("--base",), required=True), Param("head", ("--head",))),
             _JSON, cacheable=False,
             lead="Classify the memory changes between two Git revisions (head: default the work tree)."),
    ToolSpec("memory_explain", "explain", (Param("code", ("code",), required=True),), output="text",
             project=False, lead="What a finding, reason or tool code (MC-, MA-, DL) means and what to do."),
)


def tool(name: str) -> ToolSpec:
    """The tool ``name``; ``KeyError`` for a name no tool has."""
    for spec in TOOLS:
        if spec.name == name:
            return spec
    raise KeyError(f"unknown tool {name!r} (tools: {', '.join(t.name for t in TOOLS)})")


# ---- descriptions and schemas, from the registry and the argparse actions ------------------

def _action(parser: argparse.ArgumentParser, option: str) -> argparse.Action:
    """The action of ``option`` (an option string, or a positional's dest); KeyError if none."""
    for action in parser._actions:
        if option in action.option_strings or (not action.option_strings and action.dest == option):
            return action
    raise KeyError(f"analyze {parser.prog.split()[-1]} has no option {option!r}")


def _help(action: argparse.Action) -> str:
    """The action's help text as ``--help`` prints it (``%(default)s`` filled in)."""
    text = action.help or ""
    try:
        return text % {"default": action.default, "prog": "analyze", "choices": action.choices}
    except (KeyError, TypeError, ValueError):
        return text


def _value_schema(action: argparse.Action) -> Dict[str, Any]:
    """The JSON Schema of one value of ``action``: its choices, or the type its parser takes."""
    from analyzer.commands.bounds import positive_int, seconds

    if action.choices is not None:
        return {"type": "string", "enum": list(action.choices)}
    if action.type is positive_int:
        return {"type": "integer", "minimum": 1}
    if action.type is seconds:
        return {"type": "number", "minimum": 0}
    return {"type": "string"}


def _param_schema(param: Param, parser: argparse.ArgumentParser) -> Dict[str, Any]:
    actions = [_action(parser, option) for option in param.options]
    if param.kind == "flags":
        names = [option.lstrip("-") for option in param.options]
        helps = "; ".join(f"{name}: {_help(a)}" for name, a in zip(names, actions))
        return {"type": "array", "items": {"type": "string", "enum": names}, "maxItems": 1,
                "description": f"the family to run (none: the full legacy check). {helps}"}
    if param.kind == "explicit":
        helps = "; ".join(f"{prefix}:NAME: {_help(a)}" for (prefix, _), a in zip(EXPLICIT, actions))
        return {"type": "array", "items": {"type": "string", "pattern": "^(rule|profile|area):.+$"},
                "description": f"modules opened explicitly, as `rule:NAME`, `profile:NAME` or `area:NAME`. {helps}"}
    (action,) = actions
    if isinstance(action, argparse._StoreTrueAction):
        schema: Dict[str, Any] = {"type": "boolean"}
    elif isinstance(action, argparse._AppendAction):
        schema = {"type": "array", "items": _value_schema(action)}
    else:
        schema = _value_schema(action)
    schema["description"] = _help(action)
    if action.default not in (None, [], False) and not param.required:
        schema["default"] = action.default
    return schema


def tool_schema(spec: ToolSpec, parser: argparse.ArgumentParser) -> Dict[str, Any]:
    """The input JSON Schema of ``spec`` from ``parser``, the argparse parser of its command."""
    properties = {param.name: _param_schema(param, parser) for param in spec.params}
    required = [param.name for param in spec.params if param.required]
    schema: Dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def tool_description(spec: ToolSpec) -> str:
    """The tool's description: its lead, the registry's summary and description of the
    command, and what it returns (the registry's declared shapes, or the text output)."""
    from analyzer.contract.registry import command, schema_name

    cmd = command(spec.command)
    if spec.output == "json":
        shapes = ", ".join(f"`{schema_name(cmd.name, s.name)}`" for s in cmd.shapes)
        returns = (f"Returns the JSON document `analyze {cmd.name} --format json` prints (one of {shapes}); "
                   "an `error` document or a failed run comes back as a tool error carrying its code.")
    else:
        returns = (f"Returns the text `analyze {cmd.name}` prints; a refused request comes back as a tool error "
                   "carrying its code.")
    return f"{spec.lead} (`analyze {cmd.name}`: {cmd.summary}.) {cmd.description} {returns}"


# ---- arguments to a command line -----------------------------------------------------------

class ArgumentError(ValueError):
    """Tool arguments that do not fit the tool's schema (reported as MA-USAGE)."""


def _check_type(name: str, value: Any, schema: Mapping[str, Any]) -> None:
    kind = schema.get("type")
    ok = {"string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool),
          "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
          "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
          "array": lambda v: isinstance(v, list)}[kind]
    if not ok(value):
        raise ArgumentError(f"argument {name!r} must be {'an' if kind == 'array' else 'a'} {kind}, not {type(value).__name__}")
    if kind == "array":
        for item in value:
            _check_type(name + "[]", item, schema["items"])
    if "enum" in schema and value not in schema["enum"]:
        raise ArgumentError(f"argument {name!r}: {value!r} is not one of {', '.join(map(str, schema['enum']))}")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        raise ArgumentError(f"argument {name!r} takes at most {schema['maxItems']} value(s)")
    if "pattern" in schema:
        import re

        if not re.match(schema["pattern"], value):
            raise ArgumentError(f"argument {name!r}: {value!r} does not match {schema['pattern']}")


def command_line(spec: ToolSpec, schema: Mapping[str, Any], arguments: Optional[Mapping[str, Any]]) -> List[str]:
    """The command's arguments (after its name) for a call of ``spec`` with ``arguments``,
    checked against ``schema`` (:func:`tool_schema`); raises :class:`ArgumentError`.

    Option values are written ``--option=VALUE`` and positionals after ``--``, so no value
    (a task called ``--all``, a goal starting with ``-``) is ever read as an option."""
    arguments = dict(arguments or {})
    properties = schema["properties"]
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        raise ArgumentError(f"unknown argument(s) {', '.join(map(repr, unknown))} "
                            f"(arguments: {', '.join(properties)})")
    missing = [name for name in schema.get("required", ()) if name not in arguments]
    if missing:
        raise ArgumentError(f"missing required argument(s): {', '.join(missing)}")
    words: List[str] = list(spec.fixed)
    positionals: List[str] = []
    for param in spec.params:
        if param.name not in arguments or arguments[param.name] is None:
            continue
        value = arguments[param.name]
        _check_type(param.name, value, properties[param.name])
        words += _words(param, value, positionals)
    return words + (["--", *positionals] if positionals else [])


def _words(param: Param, value: Any, positionals: List[str]) -> Sequence[str]:
    if param.kind == "flags":
        return [f"--{name}" for name in value]
    if param.kind == "explicit":
        options = dict(EXPLICIT)
        return [f"{options[v.split(':', 1)[0]]}={v.split(':', 1)[1]}" for v in value]
    (option,) = param.options
    if not option.startswith("-"):
        positionals.extend(value if isinstance(value, list) else [str(value)])
        return []
    if isinstance(value, bool):
        return [option] if value else []
    values = value if isinstance(value, list) else [value]
    return [f"{option}={v}" if option.startswith("--") else f"{option}{v}" for v in values]
