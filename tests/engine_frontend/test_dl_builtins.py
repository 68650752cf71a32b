"""Builtins: registry shape, each implementation, graph builtins against networkx, docs."""

from pathlib import Path

import networkx as nx
import pytest

from analyzer.engine.builtins import ANY, BUILTINS, markdown_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "rule-language.md"


class Ctx:
    """A minimal BuiltinContext over in-memory relations."""

    def __init__(self, **relations):
        self.relations = relations
        self.graphs = {}

    def relation(self, name):
        return set(self.relations[name])

    def graph(self, name):
        if name not in self.graphs:
            g = nx.DiGraph()
            g.add_edges_from(self.relations[name])
            self.graphs[name] = g
        return self.graphs[name]


def call(name, *args, ctx=None):
    return list(BUILTINS[name].fn(ctx or Ctx(), tuple(args)))


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_registry_entries_are_well_formed(name):
    b = BUILTINS[name]
    assert b.name == name and b.doc and b.modes
    assert all(t in ("symbol", "number", ANY) for t in b.types)
    assert all(len(m) == len(b.types) and set(m) <= {"b", "f"} for m in b.modes)
    if b.relation_arg is not None:
        assert all(m[b.relation_arg] == "b" for m in b.modes)


@pytest.mark.parametrize("name,args,expected", [
    ("glob_match", ("docs/**", "docs/a.md"), [("docs/**", "docs/a.md")]),
    ("glob_match", ("docs/**", "docs"), []),
    ("glob_invalid", ("a//b", None), [("a//b", "empty path segment")]),
    ("glob_invalid", ("a/b", None), []),
    ("path_invalid", ("/x", None), [("/x", "absolute path (must be relative to the project root)")]),
    ("re_match", ("[a-z]+", "abc"), [("[a-z]+", "abc")]),
    ("re_match", ("[a-z]+", "abc1"), []),
    ("re_match", ("(", "("), []),
    ("concat", ("a", "b", None), [("a", "b", "ab")]),
    ("concat", ("a", "b", "ab"), [("a", "b", "ab")]),
    ("concat", ("a", "b", "x"), []),
    ("concat", (None, None, "ab"), [("", "ab", "ab"), ("a", "b", "ab"), ("ab", "", "ab")]),
    ("concat", ("a", None, "ab"), [("a", "b", "ab")]),
    ("concat3", ("a", "b", "c", None), [("a", "b", "c", "abc")]),
    ("replace", ("a\\b\\c", "\\", "/", None), [("a\\b\\c", "\\", "/", "a/b/c")]),
    ("starts_with", ("docs/x", "docs/"), [("docs/x", "docs/")]),
    ("starts_with", ("x", "docs/"), []),
    ("ends_with", ("a.md", ".md"), [("a.md", ".md")]),
    ("contains", ("abc", "b"), [("abc", "b")]),
    ("contains", ("abc", "d"), []),
    ("casefold", ("Straße", None), [("Straße", "strasse")]),
    ("lower", ("AbC", None), [("AbC", "abc")]),
    ("lower", ("AbC", "abc"), [("AbC", "abc")]),
    ("lower", ("AbC", "x"), []),
    ("upper", ("ab", None), [("ab", "AB")]),
    ("trim", ("  a ", None), [("  a ", "a")]),
    ("split", ("a/b/c", "/", None, None), [("a/b/c", "/", "a", 0), ("a/b/c", "/", "b", 1),
                                           ("a/b/c", "/", "c", 2)]),
    ("split", ("a/b", "/", None, 1), [("a/b", "/", "b", 1)]),
    ("split", ("a/b", "", None, None), []),
    ("strlen", ("abc", None), [("abc", 3)]),
    ("substr", ("abcdef", 2, 3, None), [("abcdef", 2, 3, "cde")]),
    ("substr", ("abc", 2, 3, None), []),
    ("substr", ("abc", -1, 1, None), []),
    ("to_number", ("-42", None), [("-42", -42)]),
    ("to_number", ("4x", None), []),
    ("to_string", (7, None), [(7, "7")]),
    ("strlen", (3, None), []),  # wrong runtime type: no result, no exception
])
def test_builtin_results(name, args, expected):
    assert call(name, *args) == expected


EDGES = [("a", "b"), ("b", "c"), ("c", "b"), ("d", "d"), ("c", "e")]


def test_reaches_agrees_with_networkx():
    ctx = Ctx(edge=EDGES)
    g = ctx.graph("edge")
    everything = set(call("reaches", "edge", None, None, ctx=ctx))
    # reflexive=False: a self-pair only for nodes on a cycle (paths of one or more edges)
    expected = {("edge", s, t) for s, t in nx.transitive_closure(g, reflexive=False).edges}
    assert everything == expected
    assert call("reaches", "edge", "a", None, ctx=ctx) == [("edge", "a", t) for t in "bce"]
    assert call("reaches", "edge", None, "a", ctx=ctx) == []
    assert call("reaches", "edge", "b", "b", ctx=ctx) == [("edge", "b", "b")]
    assert call("reaches", "edge", "zz", None, ctx=ctx) == []


def test_on_cycle_and_scc_of():
    ctx = Ctx(edge=EDGES)
    assert call("on_cycle", "edge", None, ctx=ctx) == [("edge", n) for n in "bcd"]
    assert call("on_cycle", "edge", "a", ctx=ctx) == []
    assert call("scc_of", "edge", "c", None, ctx=ctx) == [("edge", "c", "b")]
    assert call("scc_of", "edge", None, None, ctx=ctx)[0] == ("edge", "a", "a")


def test_graph_builtins_on_number_nodes():
    ctx = Ctx(edge=[(1, 2), (2, 1), (2, 3)])
    assert call("reaches", "edge", 1, None, ctx=ctx) == [("edge", 1, t) for t in (1, 2, 3)]
    assert call("scc_of", "edge", 2, None, ctx=ctx) == [("edge", 2, 1)]


def test_doc_lists_every_builtin_exactly_as_generated():
    if not DOC.is_file():
        pytest.fail("docs/rule-language.md is missing")
    text = DOC.read_text(encoding="utf-8")
    assert markdown_table() in text, "regenerate the builtins table: builtins.markdown_table()"
    for name in BUILTINS:
        assert f"`{name}(" in text


def test_doc_lists_every_diagnostic_code_as_generated():
    from analyzer.engine.check import markdown_code_table

    assert markdown_code_table() in DOC.read_text(encoding="utf-8"), \
        "regenerate the code table: check.markdown_code_table()"
