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

import random

from hypothesis import strategies as st

from . import pieces

_TEXT = pieces.text_pool()
SEED = st.integers(0, 2**32 - 1)


def _seeded(make) -> st.SearchStrategy:
    """``make(rng)`` for a ``random.Random`` seeded by one drawn integer.

    A unit (an entry, a subject, a record, a route, a rule) is built this way: one draw per
    unit instead of one per field and value. Hypothesis' bookkeeping per draw, not the
    analyzer, was most of a long run's time. Files stay lists of units, so Hypothesis still
    shrinks a failure to the few units that cause it.
    """
    return SEED.map(lambda seed: make(random.Random(seed)))


def _code_points(rng: random.Random) -> str:
    """Up to 8 code points of any plane (no surrogate, no ``\n``): what ``st.text`` would give."""
    out = []
    for _ in range(rng.randrange(9)):
        plane = rng.random()
        high = 0x80 if plane < 0.5 else 0x10000 if plane < 0.8 else 0x110000
        point = rng.randrange(high)
        out.append("?" if point == 10 or 0xD800 <= point < 0xE000 else chr(point))
    return "".join(out)


def _word(rng: random.Random) -> str:
    """Free text (titles, prose, items): mostly from the pool, 1 in 4 any few code points."""
    return rng.choice(_TEXT) if rng.random() < 0.75 else _code_points(rng)


words = _seeded(_word)


def _lines(*parts) -> st.SearchStrategy:
    """Concatenate line strategies (each drawing a list of lines) into one text."""
    return st.tuples(*parts).map(lambda groups: "\n".join(line for g in groups for line in g) + "\n")


def _field(name: str, values: list):
    """A one-line field ``Name: value`` (a list of lines)."""
    lines = [[line] for line in pieces.field(name, values)]
    return lambda rng: rng.choice(lines)


def _items(head: str, item):
    """A list field: ``Head:`` and 0-4 items, each ``item(rng)`` (or one of a pool)."""
    if isinstance(item, list):
        pool, item = item, (lambda rng: rng.choice(pool))
    return lambda rng: [f"{head}:"] + [f"- {item(rng)}" for _ in range(rng.randrange(5))]


def _shuffled(rng: random.Random, groups: list) -> list:
    """The groups in order, a few left out, sometimes one repeated or all permuted (fields
    may come in any order)."""
    left_out = {rng.randrange(len(groups)) for _ in range(rng.choice((0, 0, 0, 1, 1, 2, 3)))}
    chosen = [group(rng) for i, group in enumerate(groups) if i not in left_out]
    shape = rng.randrange(8)
    if chosen and shape in (1, 3):
        chosen.append(rng.choice(chosen))
    if shape in (2, 3):
        rng.shuffle(chosen)
    return [line for group in chosen for line in group]


def _unit(ids: list, fields: list, separators=(" — ",)) -> st.SearchStrategy:
    """A unit: ``## <ID><sep><title>``, a blank line, the fields, a blank line."""
    def make(rng):
        title = _word(rng) or "x"
        return [f"## {rng.choice(ids)}{rng.choice(separators)}{title}", ""] + _shuffled(rng, fields) + [""]
    return _seeded(make)


def _units(unit: st.SearchStrategy, most: int) -> st.SearchStrategy:
    return st.lists(unit, max_size=most).map(lambda us: [line for u in us for line in u])


def entry_unit(ids=pieces.ENTRY_IDS) -> st.SearchStrategy:
    """One formal entry unit (§5): heading, scalar fields, Evidence block, body fields."""
    bodies = [["Decision:", "```memory-custodian-body-v1", "body", "```"], ["Reason:", "```", "open"]]
    kinds = ["Decision", "Constraint", "Reason", "Rule", "Preference"]
    fields = [
        _field("Status", pieces.bent(["active", "superseded", "retired", "merged", "draft"])),
        _field("Scope", pieces.bent(["project", "area:api", "area:web", "local-user", "local-machine"])),
        _field("Subject", pieces.SUBJECT_IDS), _field("Facet", pieces.bent(["data-model", "architecture", "x"])),
        _items("Evidence", pieces.EVIDENCE), _field("Supersedes", pieces.ENTRY_IDS),
        _field("Superseded-By", pieces.ENTRY_IDS), _field("Exception-To", pieces.ENTRY_IDS),
        lambda rng: [f"{rng.choice(kinds)}:", _word(rng)],
        lambda rng: rng.choice(bodies),
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
        _field("Canonical-Ref", pieces.bent(["dependency:pypi:library-x", "area:api", "api:orders", "x",
                                             "feature:Checkout"])),
        _items("Aliases", _word), _items("Evidence", pieces.EVIDENCE), _field("Merged-Into", pieces.SUBJECT_IDS),
        _items("Merged-From", pieces.SUBJECT_IDS),
    ]
    return _lines(st.just(["# Subject Registry", ""]), _units(_unit(pieces.SUBJECT_IDS, fields), 6))


def reconciliations_file() -> st.SearchStrategy:
    """reconciliations.md (§7): records with Status, Resolution, Entries, Evidence."""
    fields = [
        _field("Status", pieces.bent(["active", "retired"])),
        _field("Resolution", pieces.bent(["distinct", "duplicate", "unknown"])),
        _items("Entries", pieces.ENTRY_IDS), _items("Evidence", pieces.EVIDENCE),
        _field("Subject", pieces.SUBJECT_IDS),
    ]
    return _lines(st.just(["# Reconciliations", ""]), _units(_unit(pieces.RECORD_IDS, fields), 5))


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


_MODES = ["Load:", "Also load:", "Load if present:", "load:"]
_INDEX_HEADS = ["### Enabled rules", "### Enabled areas", "### Enabled profiles"]
_INDEX_META = ["  - activation: task-or-explicit", "  - tasks: artifact", "  - paths: `api/**`, `web/*.ts`",
               "  - paths: `[x]`", "  - description: x", "  - bogus: y"]


def _task(rng: random.Random) -> list:
    """A ``### <task>`` route: up to two load lines, each with up to three modules."""
    out = ["", f"### {rng.choice(TASK_HEADINGS)}"]
    for _ in range(rng.randrange(3)):
        out += [rng.choice(_MODES)] + [rng.choice(_MODULE_LINES) for _ in range(rng.randrange(4))]
    return out


def _index(rng: random.Random) -> list:
    """An optional-index section: ``None enabled.`` or up to three modules with metadata lines."""
    out = ["", rng.choice(_INDEX_HEADS)]
    if rng.random() < 0.5:
        return out + ["- None enabled."]
    for _ in range(rng.randrange(4)):
        out += [rng.choice(_OPTIONAL_LINES)] + [rng.choice(_INDEX_META) for _ in range(rng.randrange(5))]
    return out


def manifest_file() -> st.SearchStrategy:
    """manifest.md (§4): protocol block, routes by task, optional module index."""
    pairs = [f"- {k}: {v}" for k, values in PROTOCOL for v in values]
    protocol = st.one_of(st.just(["- " + f"{k}: {v[0]}" for k, v in PROTOCOL]),
                         _seeded(lambda rng: rng.sample(pairs, rng.randint(8, 14))))
    return _lines(st.just(["# Memory Manifest", "", "## MemoryCustodian Protocol"]), protocol,
                  st.just(["", "## Always load"]), st.lists(st.sampled_from(_MODULE_LINES), max_size=3),
                  st.just(["", "## Load by task"]), _units(_seeded(_task), 4),
                  st.one_of(st.just([]), _units(_seeded(_index), 3).map(lambda xs: ["", "## Optional module index",
                                                                                   *xs])))


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


def _terms(column_type: str) -> list:
    """A term for a column: mostly a variable or a constant of its type, sometimes (1 in 10)
    a constant of either type."""
    typed = [c for c in CONSTS if c.startswith('"') == (column_type == "symbol")]
    fitting = VARS + VARS + typed
    return fitting * (9 * len(CONSTS)) + CONSTS * len(fitting)


_TERMS = {"symbol": _terms("symbol"), "number": _terms("number")}


_CONDITIONS = ["X < Y", "X = Y + 1", "X != \"a\"", "Y = X * 2 - 1", "match(\"a.*\", X)", "X = cat(Y, Z)"]
_BROKEN = pieces.ODD + ["/* open", ":-", ".decl", "p(X) :- .", ".include \"nope.dl\"", "// comment", "/// doc",
                        ".output p", "p(X) :- q(X)"]


def _statement(decls: dict, rng: random.Random) -> str:
    """A fact or a rule over the declared relations: atoms, negation, a comparison, arithmetic
    or an aggregate."""
    names = sorted(decls)

    def atom():
        name = rng.choice(names)
        return f"{name}(" + ", ".join(rng.choice(_TERMS[t]) for t in decls[name]) + ")"

    if rng.random() < 0.4:
        return atom() + "."
    body = [atom() for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.5:
        body.append("!" + atom())
    if rng.random() < 0.5:
        body.append(rng.choice(_CONDITIONS + ["Z = count : { " + atom() + " }"]))
    return f"{atom()} :- {', '.join(body)}."


@st.composite
def datalog_program(draw):
    """A rule-language program (docs/rule-language.md): decls, facts, rules with negation,
    comparisons, arithmetic and aggregates, sometimes with a broken piece. Each statement is
    built from one drawn seed; the program is a list of them, so a failure shrinks to the
    statements that cause it."""
    decls = {}
    out = []
    for name in draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True)):
        cols = draw(st.lists(st.sampled_from(["symbol", "number"]), min_size=1, max_size=3))
        decls[name] = cols
        out.append(f".decl {name}(" + ", ".join(f"c{i}: {t}" for i, t in enumerate(cols)) + ")")
    out += [_statement(decls, random.Random(seed)) for seed in draw(st.lists(SEED, max_size=7))]
    if draw(st.booleans()):
        out.insert(draw(st.integers(0, len(out))), draw(st.sampled_from(_BROKEN)))
    return "\n".join(out) + "\n"


GRAMMARS = {
    "manifest": manifest_file,
    "entries": entry_file,
    "subjects": subjects_file,
    "reconciliations": reconciliations_file,
    "local_manifest": local_manifest_file,
    "datalog": datalog_program,
}
