"""Hypothesis strategies that build near-valid files, one per grammar the analyzer reads.

Each strategy assembles a file from the grammar's own pieces (headings, IDs, fields, items,
routes, rules) and then, with some probability, bends a few of them: a wrong value, a
missing or repeated field, a stray character, a digit from another script, an odd line end.
Random bytes would almost never get past the first line; these reach the deep checks.
Used by tests/fuzz (a CI-sized run) and bench/fuzz_grammars.py (the long run).

Values are drawn whole from the prebuilt pools of tests/fuzz/pieces.py (one choice per
line, not one per character): Hypothesis' per-draw bookkeeping, not the analyzer, was most of
a run's time when values were built with ``st.text`` and per-value bending.
"""

from __future__ import annotations

from hypothesis import strategies as st

from . import pieces

_TEXT = pieces.text_pool()
words = st.one_of(st.sampled_from(_TEXT), st.sampled_from(_TEXT), st.sampled_from(_TEXT),
                  st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=8))
"""Free text (titles, prose, items): mostly from the pool, sometimes any few code points."""

entry_ids = st.sampled_from(pieces.ENTRY_IDS)
subject_ids = st.sampled_from(pieces.SUBJECT_IDS)
record_ids = st.sampled_from(pieces.RECORD_IDS)
evidence = st.sampled_from(pieces.EVIDENCE)


def _lines(*parts) -> st.SearchStrategy:
    """Concatenate line strategies (each drawing a list of lines) into one text."""
    return st.tuples(*parts).map(lambda groups: "\n".join(line for g in groups for line in g) + "\n")


def _field(name: str, values: list) -> st.SearchStrategy:
    """A one-line field ``Name: value`` (a list of lines), drawn whole: one choice."""
    return st.sampled_from([[line] for line in pieces.field(name, values)])


def _items(head: str, items: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(items, max_size=4).map(lambda xs: [f"{head}:"] + [f"- {x}" for x in xs])


@st.composite
def _shuffled(draw, groups):
    """The groups in order, a few left out, sometimes one repeated or all permuted (fields
    may come in any order): a handful of draws, not one per group."""
    left_out = draw(st.lists(st.integers(0, len(groups) - 1), max_size=3))
    chosen = [draw(g) for i, g in enumerate(groups) if i not in left_out]
    shape = draw(st.integers(0, 7))
    if chosen and shape in (1, 3):
        chosen.append(chosen[draw(st.integers(0, len(chosen) - 1))])
    if shape in (2, 3):
        chosen = draw(st.permutations(chosen))
    return [line for group in chosen for line in group]


def _unit(ids: st.SearchStrategy, fields: list, separators=(" — ",)) -> st.SearchStrategy:
    head = st.tuples(ids, st.sampled_from(separators), words).map(lambda t: [f"## {t[0]}{t[1]}{t[2] or 'x'}", ""])
    return st.tuples(head, _shuffled(fields)).map(lambda t: t[0] + t[1] + [""])


def _units(unit: st.SearchStrategy, most: int) -> st.SearchStrategy:
    return st.lists(unit, max_size=most).map(lambda us: [line for u in us for line in u])


def entry_unit(ids=entry_ids) -> st.SearchStrategy:
    """One formal entry unit (§5): heading, scalar fields, Evidence block, body fields."""
    fields = [
        _field("Status", pieces.bent(["active", "superseded", "retired", "merged", "draft"])),
        _field("Scope", pieces.bent(["project", "area:api", "area:web", "local-user", "local-machine"])),
        _field("Subject", pieces.SUBJECT_IDS), _field("Facet", pieces.bent(["data-model", "architecture", "x"])),
        _items("Evidence", evidence), _field("Supersedes", pieces.ENTRY_IDS), _field("Superseded-By", pieces.ENTRY_IDS),
        _field("Exception-To", pieces.ENTRY_IDS),
        st.tuples(st.sampled_from(["Decision", "Constraint", "Reason", "Rule", "Preference"]), words).map(
            lambda t: [f"{t[0]}:", t[1]]),
        st.sampled_from([["Decision:", "```memory-custodian-body-v1", "body", "```"], ["Reason:", "```", "open"]]),
    ]
    return _unit(ids, fields, (" — ", " — ", " - ", " —", "—"))


def entry_file() -> st.SearchStrategy:
    """An entry file (decisions.md and the like): a title, prose, entries, legacy bullets."""
    legacy = st.lists(words.map(lambda w: f"- {w}"), max_size=3)
    title = st.sampled_from([["# Decisions", ""], ["# Constraints", ""], [], ["Decisions", "==="]])
    return _lines(title, legacy, _units(entry_unit(), 6), legacy)


def subjects_file() -> st.SearchStrategy:
    """subjects.md (§6): subject units with Status, Kind, Canonical-Ref, Aliases, Merged-*."""
    fields = [
        _field("Status", pieces.bent(["active", "merged", "retired"])),
        _field("Kind", pieces.bent(["dependency", "component", "policy", "tool", "thing"])),
        _field("Canonical-Ref", pieces.bent(["dependency:pypi:library-x", "area:api", "api:orders", "x", "feature:Checkout"])),
        _items("Aliases", words), _items("Evidence", evidence), _field("Merged-Into", pieces.SUBJECT_IDS),
        _items("Merged-From", subject_ids),
    ]
    return _lines(st.just(["# Subject Registry", ""]), _units(_unit(subject_ids, fields), 6))


def reconciliations_file() -> st.SearchStrategy:
    """reconciliations.md (§7): records with Status, Resolution, Entries, Evidence."""
    fields = [
        _field("Status", pieces.bent(["active", "retired"])), _field("Resolution", pieces.bent(["distinct", "duplicate", "unknown"])),
        _items("Entries", entry_ids), _items("Evidence", evidence), _field("Subject", pieces.SUBJECT_IDS),
    ]
    return _lines(st.just(["# Reconciliations", ""]), _units(_unit(record_ids, fields), 5))


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
_MODULE_LINES = [f"- {m}" for m in pieces.bent(MODULES)]
_OPTIONAL_LINES = [f"- `{m}`" for m in pieces.bent(["rules/copy.md", "areas/api.md", "profiles/me.md", "x.md"])] + \
    ["- `rules/copy.md` — activation: always", "- rules/copy.md", "- `rules/copy.md` (legacy)"] * 40


def manifest_file() -> st.SearchStrategy:
    """manifest.md (§4): protocol block, routes by task, optional module index."""
    pairs = [f"- {k}: {v}" for k, values in PROTOCOL for v in values]
    protocol = st.lists(st.sampled_from(pairs), min_size=8, max_size=14, unique=True)
    protocol = st.one_of(st.just(["- " + f"{k}: {v[0]}" for k, v in PROTOCOL]), protocol)
    module = st.sampled_from(_MODULE_LINES)
    mode = st.sampled_from(["Load:", "Also load:", "Load if present:", "load:"])
    task = st.tuples(st.sampled_from(TASK_HEADINGS), st.lists(st.tuples(mode, st.lists(module, max_size=3)),
                                                               max_size=2)).map(
        lambda t: ["", f"### {t[0]}"] + [line for m, ms in t[1] for line in [m, *ms]])
    optional = st.tuples(st.sampled_from(_OPTIONAL_LINES),
                         st.lists(st.sampled_from(["  - activation: task-or-explicit", "  - tasks: artifact",
                                                   "  - paths: `api/**`, `web/*.ts`", "  - paths: `[x]`",
                                                   "  - description: x", "  - bogus: y"]), max_size=4)).map(
        lambda t: [t[0], *t[1]])
    index = st.tuples(st.sampled_from(["### Enabled rules", "### Enabled areas", "### Enabled profiles"]),
                      st.one_of(st.just([["- None enabled."]]), st.lists(optional, max_size=3))).map(
        lambda t: ["", t[0], *[line for o in t[1] for line in o]])
    return _lines(st.just(["# Memory Manifest", "", "## MemoryCustodian Protocol"]), protocol,
                  st.just(["", "## Always load"]), st.lists(module, max_size=3), st.just(["", "## Load by task"]),
                  st.lists(task, max_size=4).map(lambda ts: sum(ts, [])),
                  st.one_of(st.just([]), st.lists(index, max_size=3).map(lambda xs: ["", "## Optional module index",
                                                                                    *sum(xs, [])])))


_LOCAL_MODULES = [f"- {m}" for m in pieces.bent(["preferences.md", "profiles/me.md", "profiles/.x.md", "areas/a.md"])]


def local_manifest_file() -> st.SearchStrategy:
    """The local overlay manifest (§11.3): title, schema and project_id, two module sections."""
    meta = st.lists(st.sampled_from(["- local_overlay_schema_version: 1", "- local_overlay_schema_version: 2",
                                     "- project_id: 3f6c2a1e-9b47-4d2a-8c1e-5a7b9d0e4f12", "- project_id: x",
                                     "- other: 1"]), min_size=1, max_size=4)
    mods = st.lists(st.sampled_from(_LOCAL_MODULES), max_size=3)
    heads = st.permutations(["## Preferences", "## Profiles"])
    return st.tuples(st.sampled_from(["# Local Memory Overlay", "# local memory overlay", "# Overlay"]), meta, heads,
                     mods, mods).map(lambda t: "\n".join([t[0], "", *t[1], "", t[2][0], *t[3], "", t[2][1], *t[4]]) + "\n")


NAMES = ["p", "q", "edge", "path", "r_1", "Node"]
VARS = ["X", "Y", "Z", "_"]
CONSTS = ['"a"', '"b\\n"', "1", "0", "-3", "99999999999", '""']


def _terms(column_type: str) -> st.SearchStrategy:
    """A term for a column: mostly a variable or a constant of its type, sometimes (1 in 10)
    a constant of either type; one choice."""
    typed = [c for c in CONSTS if c.startswith('"') == (column_type == "symbol")]
    fitting = VARS + VARS + typed
    return st.sampled_from(fitting * (9 * len(CONSTS)) + CONSTS * len(fitting))


_TERMS = {"symbol": _terms("symbol"), "number": _terms("number")}


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
        return draw(_TERMS[column_type])

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
        out.insert(at, draw(st.sampled_from(pieces.ODD + [
            "/* open", ":-", ".decl", "p(X) :- .", ".include \"nope.dl\"", "// comment", "/// doc", ".output p",
            "p(X) :- q(X)"])))
    return "\n".join(out) + "\n"


GRAMMARS = {
    "manifest": manifest_file,
    "entries": entry_file,
    "subjects": subjects_file,
    "reconciliations": reconciliations_file,
    "local_manifest": local_manifest_file,
    "datalog": datalog_program,
}
