"""Hypothesis strategies that build near-valid files, one per grammar the analyzer reads.

Each strategy assembles a file from the grammar's own pieces (headings, IDs, fields, items,
routes, rules) and then, with some probability, bends a few of them: a wrong value, a
missing or repeated field, a stray character, a digit from another script, an odd line end.
Random bytes would almost never get past the first line; these reach the deep checks.
Used by tests/fuzz (a CI-sized run) and bench/fuzz_grammars.py (the long run).
"""

from __future__ import annotations

from hypothesis import strategies as st

HEX = "0123456789abcdef"
ODD = ["", " ", "\t", "\x00", "\r", "\u00b2", "\u0667", "\ufeff", "\u2028", "—", "`", "#", "\\", "..", "/",
       "9" * 30, "x" * 300]
KINDS = ["DEC", "CON", "DNU", "PREF", "AREA", "INBOX", "TOMB"]


def _bend(text: st.SearchStrategy) -> st.SearchStrategy:
    """A value as drawn, or (sometimes) with an odd piece inserted, replaced or appended."""
    bent = st.tuples(text, st.sampled_from(ODD), st.integers(0, 2)).map(lambda t: [t[0] + t[1], t[1] + t[0], t[1]][t[2]])
    return st.one_of(text, text, text, text, text, bent)


def ident(*prefixes: str) -> st.SearchStrategy:
    """An ID such as ``MC-DEC-20260101-0a1b2c3d`` (sometimes bent). No flatmap: building a
    strategy per draw made generation, not the analyzer, most of a run's time."""
    date = st.integers(20200101, 20291231).map(str)
    tail = st.text(HEX, min_size=8, max_size=8)
    return _bend(st.tuples(st.sampled_from(prefixes), date, tail).map(lambda t: f"{t[0]}-{t[1]}-{t[2]}"))


entry_ids = ident(*(f"MC-{k}" for k in KINDS))
subject_ids = ident("MC-SUBJ")
record_ids = ident("MC-REC")
paths = _bend(st.sampled_from(["api/orders.py", "src/a.py", "docs/x.md", "web", "a/../b", "../x", "/abs",
                               "C:/x", "a//b", "a\\b", "a b"]))
evidence = st.one_of(
    st.tuples(st.sampled_from(["repo", "doc", "test"]), paths, st.sampled_from(["", "@abc123", "@", "@x y"])).map(
        lambda t: f"{t[0]}:{t[1]}{t[2]}"),
    st.sampled_from(["user-confirmed", "issue:#42", "pr:#7", "issue:#", "issue:#\u0661", "url:https://x", "bogus"]),
)
words = st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=20)


def _lines(*parts) -> st.SearchStrategy:
    """Concatenate line strategies (each drawing a list of lines) into one text."""
    return st.tuples(*parts).map(lambda groups: "\n".join(line for g in groups for line in g) + "\n")


def _field(name: str, values: st.SearchStrategy) -> st.SearchStrategy:
    return st.tuples(st.sampled_from([name, name, name.lower(), name + " "]), values).map(lambda t: [f"{t[0]}: {t[1]}"])


def _items(head: str, items: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(items, max_size=4).map(lambda xs: [f"{head}:"] + [f"- {x}" for x in xs])


@st.composite
def _shuffled(draw, groups):
    """Some of the groups, in the drawn order, some repeated (fields may come in any order)."""
    chosen = [draw(g) for g in groups if draw(st.floats(0, 1)) < 0.85]
    if chosen and draw(st.integers(0, 3)) == 0:
        chosen.append(chosen[draw(st.integers(0, len(chosen) - 1))])
    if draw(st.integers(0, 3)) == 0:
        chosen = draw(st.permutations(chosen))
    return [line for group in chosen for line in group]


def entry_unit(ids=entry_ids) -> st.SearchStrategy:
    """One formal entry unit (§5): heading, scalar fields, Evidence block, body fields."""
    fields = [
        _field("Status", _bend(st.sampled_from(["active", "superseded", "retired", "merged", "draft"]))),
        _field("Scope", _bend(st.sampled_from(["project", "area:api", "area:web", "local-user", "local-machine"]))),
        _field("Subject", subject_ids), _field("Facet", _bend(st.sampled_from(["data-model", "architecture", "x"]))),
        _items("Evidence", evidence), _field("Supersedes", entry_ids), _field("Superseded-By", entry_ids),
        _field("Exception-To", entry_ids),
        st.tuples(st.sampled_from(["Decision", "Constraint", "Reason", "Rule", "Preference"]), words).map(
            lambda t: [f"{t[0]}:", t[1]]),
        st.sampled_from([["Decision:", "```memory-custodian-body-v1", "body", "```"], ["Reason:", "```", "open"]]),
    ]
    head = st.tuples(ids, st.sampled_from([" — ", " - ", " —", "—"]), words).map(lambda t: [f"## {t[0]}{t[1]}{t[2]}", ""])
    return st.tuples(head, _shuffled(fields)).map(lambda t: t[0] + t[1] + [""])


def entry_file() -> st.SearchStrategy:
    """An entry file (decisions.md and the like): a title, prose, entries, legacy bullets."""
    legacy = st.lists(words.map(lambda w: f"- {w}"), max_size=3)
    units = st.lists(entry_unit(), max_size=6).map(lambda us: [line for u in us for line in u])
    title = st.sampled_from([["# Decisions", ""], ["# Constraints", ""], [], ["Decisions", "==="]])
    return _lines(title, legacy, units, legacy)


def subjects_file() -> st.SearchStrategy:
    """subjects.md (§6): subject units with Status, Kind, Canonical-Ref, Aliases, Merged-*."""
    fields = [
        _field("Status", _bend(st.sampled_from(["active", "merged", "retired"]))),
        _field("Kind", _bend(st.sampled_from(["dependency", "component", "policy", "tool", "thing"]))),
        _field("Canonical-Ref", _bend(st.sampled_from(["dependency:pypi:library-x", "area:api", "api:orders",
                                                       "x", "feature:Checkout"]))),
        _items("Aliases", words), _items("Evidence", evidence), _field("Merged-Into", subject_ids),
        _items("Merged-From", subject_ids),
    ]
    head = st.tuples(subject_ids, words).map(lambda t: [f"## {t[0]} — {t[1] or 'x'}", ""])
    unit = st.tuples(head, _shuffled(fields)).map(lambda t: t[0] + t[1] + [""])
    return _lines(st.just(["# Subject Registry", ""]), st.lists(unit, max_size=6).map(lambda us: sum(us, [])))


def reconciliations_file() -> st.SearchStrategy:
    """reconciliations.md (§7): records with Status, Resolution, Entries, Evidence."""
    fields = [
        _field("Status", _bend(st.sampled_from(["active", "retired"]))),
        _field("Resolution", _bend(st.sampled_from(["distinct", "duplicate", "unknown"]))),
        _items("Entries", entry_ids), _items("Evidence", evidence), _field("Subject", subject_ids),
    ]
    head = st.tuples(record_ids, words).map(lambda t: [f"## {t[0]} — {t[1] or 'x'}", ""])
    unit = st.tuples(head, _shuffled(fields)).map(lambda t: t[0] + t[1] + [""])
    return _lines(st.just(["# Reconciliations", ""]), st.lists(unit, max_size=5).map(lambda us: sum(us, [])))


PROTOCOL = [("protocol_version", ["0.7", "0.6", "0.7.0", "00.7", "0.8", "1", "0.\u00b2", "\u0660.7", "0." + "7" * 60]),
            ("entry_schema_version", ["2", "1", "3", ""]), ("subject_schema_version", ["1", "2"]),
            ("subject_registry", ["subjects.md", "other.md"]), ("routing_schema_version", ["1", "01"]),
            ("conflict_schema_version", ["1"]), ("initialized_with", ["memory-custodian 0.11.0", ""]),
            ("last_migrated_with", ["memory-custodian 0.11.0"]),
            ("project_id", ["3f6c2a1e-9b47-4d2a-8c1e-5a7b9d0e4f12", "3F6C2A1E-9B47-4D2A-8C1E-5A7B9D0E4F12", "x"]),
            ("admission_policy", ["evidence-required"]), ("routing_policy", ["explicit-task-and-scope"]),
            ("conflict_policy", ["canonical-subject-and-review"])]
MODULES = ["brief.md", "constraints.md", "decisions.md", "do-not-use.md", "preferences.md", "changelog.md",
           "inbox.md", "areas/api.md", "rules/copy.md", "../x.md", "a\\b.md", "", "`decisions.md`"]
TASK_HEADINGS = ["Planning / architecture / refactoring", "Implementation / execution / debugging",
                 "User-facing artifact / output", "Preferences", "Change history / recap", "Memory maintenance",
                 "Unknown task"]


def manifest_file() -> st.SearchStrategy:
    """manifest.md (§4): protocol block, routes by task, optional module index."""
    pairs = [f"- {k}: {v}" for k, values in PROTOCOL for v in values]
    protocol = st.lists(st.sampled_from(pairs), min_size=8, max_size=14, unique=True)
    protocol = st.one_of(st.just(["- " + f"{k}: {v[0]}" for k, v in PROTOCOL]), protocol)
    module = _bend(st.sampled_from(MODULES)).map(lambda m: f"- {m}")
    mode = st.sampled_from(["Load:", "Also load:", "Load if present:", "load:"])
    task = st.tuples(st.sampled_from(TASK_HEADINGS), st.lists(st.tuples(mode, st.lists(module, max_size=3)),
                                                               max_size=2)).map(
        lambda t: ["", f"### {t[0]}"] + [line for m, ms in t[1] for line in [m, *ms]])
    optional = st.tuples(_bend(st.sampled_from(["rules/copy.md", "areas/api.md", "profiles/me.md", "x.md"])),
                         st.lists(st.sampled_from(["  - activation: task-or-explicit", "  - tasks: artifact",
                                                   "  - paths: `api/**`, `web/*.ts`", "  - paths: `[x]`",
                                                   "  - description: x", "  - bogus: y"]), max_size=4)).map(
        lambda t: [f"- `{t[0]}`", *t[1]])
    index = st.tuples(st.sampled_from(["### Enabled rules", "### Enabled areas", "### Enabled profiles"]),
                      st.one_of(st.just([["- None enabled."]]), st.lists(optional, max_size=3))).map(
        lambda t: ["", t[0], *[line for o in t[1] for line in o]])
    return _lines(st.just(["# Memory Manifest", "", "## MemoryCustodian Protocol"]), protocol,
                  st.just(["", "## Always load"]), st.lists(module, max_size=3), st.just(["", "## Load by task"]),
                  st.lists(task, max_size=4).map(lambda ts: sum(ts, [])),
                  st.one_of(st.just([]), st.lists(index, max_size=3).map(lambda xs: ["", "## Optional module index",
                                                                                    *sum(xs, [])])))


def local_manifest_file() -> st.SearchStrategy:
    """The local overlay manifest (§11.3): title, schema and project_id, two module sections."""
    meta = st.lists(st.sampled_from(["- local_overlay_schema_version: 1", "- local_overlay_schema_version: 2",
                                     "- project_id: 3f6c2a1e-9b47-4d2a-8c1e-5a7b9d0e4f12", "- project_id: x",
                                     "- other: 1"]), min_size=1, max_size=4)
    mods = st.lists(_bend(st.sampled_from(["preferences.md", "profiles/me.md", "profiles/.x.md", "areas/a.md"])).map(
        lambda m: f"- {m}"), max_size=3)
    heads = st.permutations(["## Preferences", "## Profiles"])
    return st.tuples(st.sampled_from(["# Local Memory Overlay", "# local memory overlay", "# Overlay"]), meta, heads,
                     mods, mods).map(lambda t: "\n".join([t[0], "", *t[1], "", t[2][0], *t[3], "", t[2][1], *t[4]]) + "\n")


NAMES = ["p", "q", "edge", "path", "r_1", "Node"]
VARS = ["X", "Y", "Z", "_"]
CONSTS = ['"a"', '"b\\n"', "1", "0", "-3", "99999999999", '""']


@st.composite
def datalog_program(draw):
    """A rule-language program (docs/rule-language.md): decls, facts, rules with negation,
    comparisons, arithmetic and aggregates, sometimes with a broken piece."""
    decls = {}
    out = []
    for name in draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True)):
        cols = draw(st.lists(st.sampled_from(["symbol", "number"]), min_size=1, max_size=3))
        decls[name] = cols
        out.append(f".decl {name}(" + ", ".join(f"c{i}: {t}" for i, t in enumerate(cols)) + ")")
    names = sorted(decls)

    def term(column_type):
        if draw(st.integers(0, 9)) == 0:  # sometimes any constant, of either type
            return draw(st.sampled_from(CONSTS))
        typed = [c for c in CONSTS if c.startswith('"') == (column_type == "symbol")]
        return draw(st.sampled_from(VARS + VARS + typed))

    def atom(name=None):
        name = name or draw(st.sampled_from(names))
        return f"{name}(" + ", ".join(term(t) for t in decls.get(name, ["symbol"])) + ")"

    for _ in range(draw(st.integers(0, 3))):
        out.append(atom() + ".")
    for _ in range(draw(st.integers(0, 4))):
        body = [atom() for _ in range(draw(st.integers(1, 4)))]
        if draw(st.booleans()):
            body.append("!" + atom())
        if draw(st.booleans()):
            body.append(draw(st.sampled_from(["X < Y", "X = Y + 1", "X != \"a\"", "Z = count : { " + atom() + " }",
                                              "Y = X * 2 - 1", "match(\"a.*\", X)", "X = cat(Y, Z)"])))
        out.append(f"{atom()} :- {', '.join(body)}.")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(out)))
        out.insert(at, draw(st.sampled_from(ODD + ["/* open", ":-", ".decl", "p(X) :- .", ".include \"nope.dl\"",
                                                   "// comment", "/// doc", ".output p", "p(X) :- q(X)"])))
    return "\n".join(out) + "\n"


GRAMMARS = {
    "manifest": manifest_file,
    "entries": entry_file,
    "subjects": subjects_file,
    "reconciliations": reconciliations_file,
    "local_manifest": local_manifest_file,
    "datalog": datalog_program,
}
