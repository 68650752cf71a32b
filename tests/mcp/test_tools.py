"""The MCP tools are generated from the command registry and the argparse definitions (issue 28).

In process, without the MCP SDK: what a host is told (descriptions, input schemas) must follow
the CLI, and tool arguments must become exactly the command line they stand for.
"""

from __future__ import annotations

import argparse

import pytest

from analyzer.commands.cli import build_parser
from analyzer.commands.mcp_tools import TOOLS, ArgumentError, command_line, tool, tool_description, tool_schema
from analyzer.contract.registry import command


def _parser(name):
    return build_parser(name)._subparsers._group_actions[0].choices[name]


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_each_argument_is_an_option_of_the_command_with_its_help(spec):
    parser = _parser(spec.command)
    schema = tool_schema(spec, parser)
    assert set(schema["properties"]) == {p.name for p in spec.params}
    for param in spec.params:
        if param.kind != "option":
            continue
        action = next(a for a in parser._actions
                      if param.options[0] in a.option_strings or (not a.option_strings and a.dest == param.options[0]))
        assert schema["properties"][param.name]["description"] == (action.help or "")
        if action.choices:
            assert schema["properties"][param.name]["enum"] == list(action.choices)
    cmd = command(spec.command)
    assert cmd.summary in tool_description(spec) and cmd.description in tool_description(spec)


def test_a_changed_help_or_option_changes_the_tool(monkeypatch):
    spec = tool("memory_read")
    parser = _parser("read")
    task = next(a for a in parser._actions if "--task" in a.option_strings)
    monkeypatch.setattr(task, "help", "a new help text")
    assert tool_schema(spec, parser)["properties"]["task"]["description"] == "a new help text"
    monkeypatch.setattr(task, "option_strings", ["--work"])
    with pytest.raises(KeyError, match="--task"):
        tool_schema(spec, parser)  # a tool the command no longer accepts is never described


def test_families_are_the_check_flags():
    schema = tool_schema(tool("memory_check"), _parser("check"))
    assert schema["properties"]["families"]["items"]["enum"] == ["routing", "reachability", "freshness",
                                                                 "conflicts", "all"]


def _line(name, arguments):
    spec = tool(name)
    return command_line(spec, tool_schema(spec, _parser(spec.command)), arguments)


def test_arguments_become_the_command_line_they_stand_for():
    assert _line("memory_read", {"task": "review", "paths": ["a.py", "b"], "explicit": ["rule:x", "area:api"],
                                 "strict": True}) == [
        "--format", "json", "--task=review", "--path=a.py", "--path=b", "--rule=x", "--area=api",
        "--strict-routing"]
    assert _line("memory_query", {"goal": "-x(A)", "rules": ["p(1)."]}) == ["--format", "json", "-ep(1).", "--", "-x(A)"]
    assert _line("memory_check", {"families": ["routing"]}) == ["--format", "json", "--routing"]
    assert _line("memory_explain", {"code": "--help"}) == ["--", "--help"]


def test_a_value_is_never_read_as_an_option():
    parser = build_parser("read")
    args = parser.parse_args(["read", *_line("memory_read", {"task": "--all", "paths": ["--no-local"]})])
    assert args.task == "--all" and args.path == ["--no-local"] and not args.no_local
    parser = build_parser("explain")
    assert parser.parse_args(["explain", *_line("memory_explain", {"code": "--help"})]).code == "--help"


@pytest.mark.parametrize("arguments,message", [
    ({"task": "x"}, "missing required argument(s): paths"),
    ({"task": "x", "paths": "a.py"}, "'paths' must be an array"),
    ({"task": "x", "paths": [], "strict": "yes"}, "'strict' must be a boolean"),
    ({"task": "x", "paths": [], "explicit": ["x"]}, "does not match"),
    ({"task": "x", "paths": [], "verbose": True}, "unknown argument(s) 'verbose'"),
])
def test_arguments_outside_the_schema_are_refused(arguments, message):
    with pytest.raises(ArgumentError) as info:
        _line("memory_read", arguments)
    assert message in str(info.value)


def test_two_families_are_refused():
    with pytest.raises(ArgumentError, match="at most 1"):
        _line("memory_check", {"families": ["routing", "freshness"]})


def test_every_tool_runs_a_live_command():
    for spec in TOOLS:
        assert command(spec.command).status == "live"
        assert isinstance(_parser(spec.command), argparse.ArgumentParser)
