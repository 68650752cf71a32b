"""The vocabularies of the protocol and of our findings, read from rules/vocab/*.dl.

Each vocabulary (status ranks, severities and ``--fail-on`` thresholds, result levels, the
canonical task order, autonomy levels, change classes) is written once, as facts in
rules/vocab/; the rules that need one include its file, and Python reads them here from the
compiled program rules/vocab/vocab.dl (shipped in the wheel, else the program cache). The
program also derives relations from the vocabularies (rules/entries/fields.dl: which field
names are known, ...): it is evaluated
once, without input (well under a millisecond), when its store entry is made or, for the
wheel's shipped program, whose facts are read without its engine, when a table is first
asked; the derived relations are then read as the facts are. Loading is deferred to the first
question and done once per process, so a command that asks none (``read``) loads nothing
more than before. The facts are kept beside the compiled programs as plain values, keyed by
the rule-set fingerprint, so that a warm ``check`` (whose result comes from its own cache)
does not load the engine to learn its ``--fail-on`` choices (an installed wheel reads the
shipped program instead and writes no cache entry). The command line's options whose
choices are a vocabulary (``--fail-on``, ``--autonomy``) take a :class:`Choices`, read
only when such an option is given or help is printed. tests/contract/test_vocab.py
fails when a vocabulary is written again in Python. A relation the program does not declare
is :class:`UnknownVocabulary`, never an empty vocabulary (which would, say, gate nothing).
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Sequence
from functools import lru_cache
from types import MappingProxyType
from typing import Iterator, Mapping, Tuple

from analyzer.core.cache import Area
from analyzer.core.fingerprint import ruleset_fingerprint
from analyzer.core.resources import data_file
from analyzer.engine.keys import engine_digest

FORMAT = b"memory-analyzer-vocabulary-2\n"  # part of the key: a new layout is a new entry
STORE = Area("programs", ".pickle")  # beside the compiled programs, pruned with them


class UnknownVocabulary(LookupError):
    """A relation asked for that rules/vocab/vocab.dl does not declare: a misspelt or removed
    vocabulary, never an empty one (a declared relation without tuples is ``()``)."""

    def __init__(self, relation: str):
        super().__init__(f"{relation!r} is neither a vocabulary nor a decision table of rules/vocab/vocab.dl "
                         "(rules/vocab/*.dl, rules/entries/fields.dl)")
        self.relation = relation


@lru_cache(maxsize=None)
def facts(relation: str) -> Tuple[tuple, ...]:
    """The facts of ``relation`` in rules/vocab/vocab.dl, in source order (a derived
    relation's tuples in sorted order; a declared relation without any, ``()``), or
    :class:`UnknownVocabulary` when the program declares no such relation."""
    program = _program()
    if relation in program:
        return program[relation]
    derived = _derived()  # every relation the program derives, the empty ones too (_derived_of)
    if relation in derived:
        return derived[relation]
    raise UnknownVocabulary(relation)


@lru_cache(maxsize=None)
def _program() -> dict:
    """Relation -> its facts' values, from the store when the rule set is the one they were
    read from, else from the compiled program (and stored)."""
    # deferred: the configuration and the renderers import this module on every command,
    # and most of them (explain, list, --help) load no rule program at all
    from analyzer.engine.shipped import load_shipped_facts

    entry = data_file("rules", "vocab/vocab.dl")
    shipped = load_shipped_facts(entry)  # an installed wheel: its first run writes no cache (tests/packaging)
    if shipped is not None:
        return _values(shipped)  # its facts only: the derived tables on demand (_derived)
    # the entry holds tables the engine evaluated (_derived_of): its digest is part of the key
    key = hashlib.sha256(FORMAT + ruleset_fingerprint().encode() + engine_digest()).hexdigest()
    found = STORE.get_marshal(key, lambda value: isinstance(value, dict))  # verified, then decoded
    if found is not None:
        return found
    from analyzer.engine.cache import load_engine

    engine = load_engine(entry)
    facts = {**_values(engine.facts), **_derived_of(engine)}
    STORE.put(key, marshal.dumps(facts))
    return facts


def _values(facts: dict) -> dict:
    return {rel: tuple(values for values, _ in rows) for rel, rows in facts.items()}


@lru_cache(maxsize=None)
def _derived() -> dict:
    """The decision tables of an installed wheel's shipped vocabulary program, whose facts
    :func:`_program` reads without building its engine: built and evaluated only when a
    table is asked for (a ``check`` answered from its result cache asks none)."""
    from analyzer.engine.cache import load_engine

    return _derived_of(load_engine(data_file("rules", "vocab/vocab.dl")))


def _derived_of(engine) -> dict:
    """Every relation ``engine`` derives (its facts' relations aside) -> its sorted tuples,
    those without any included: evaluated without ``only``, each is complete (``known``)."""
    db = engine.evaluate({})  # no input: the decision tables derived from the vocabularies
    return {rel: tuple(sorted(db.relation(rel))) for rel in sorted(db.known()) if rel not in engine.facts}


def ordered(relation: str) -> Tuple[str, ...]:
    """The names of a ``(name, ord)`` vocabulary, by its order."""
    return tuple(name for name, _ in sorted(facts(relation), key=lambda row: row[1]))


class Choices(Sequence):
    """The names of an ordered vocabulary (:func:`ordered`) as argparse ``choices``, read on
    first use. argparse reads choices to check a given value and to print usage or help, so
    building the parser loads no program: a ``check`` answered from its result cache never
    loads the vocabulary (about 7 ms of its ~140 ms). Usage, help and error messages are
    those of the tuple: it iterates, tests membership and prints as one. Set it on the
    action after ``add_argument`` (:func:`lazy_choices`): add_argument formats an action's
    choices once, to check its metavar, which would read them."""

    def __init__(self, relation: str):
        self.relation = relation

    def _names(self) -> Tuple[str, ...]:
        return ordered(self.relation)

    def __getitem__(self, index):
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, value) -> bool:
        return value in self._names()

    def __repr__(self) -> str:
        return repr(self._names())


def lazy_choices(action, relation: str):
    """``action`` (an argparse action added without choices) with the names of the ordered
    vocabulary ``relation`` as its :class:`Choices`; returns it."""
    action.choices = Choices(relation)
    return action


@lru_cache(maxsize=None)
def ranks(*relations: str) -> Mapping[str, int]:
    """Name -> rank of one or more ``(name, rank)`` vocabularies (one scale; read-only)."""
    return MappingProxyType({name: rank for relation in relations for name, rank in facts(relation)})


@lru_cache(maxsize=None)
def table(relation: str) -> frozenset:
    """The tuples of a relation as a set, to ask whether a tuple is in it."""
    return frozenset(facts(relation))


def names(relation: str) -> Tuple[str, ...]:
    """The first column of a vocabulary, in source order."""
    return tuple(row[0] for row in facts(relation))


@lru_cache(maxsize=None)
def mapping(relation: str) -> Mapping[str, str]:
    """A two-column vocabulary as a mapping (first column -> second; read-only)."""
    return MappingProxyType(dict(facts(relation)))


def statuses() -> Tuple[str, ...]:
    """The conflict statuses, least to most severe: CLEAR, REVIEW, CONFLICT, INVALID (§9.4)."""
    return ordered("status_rank")


def tasks() -> Tuple[str, ...]:
    """The canonical tasks in the protocol's order, ``general`` first (§4.3)."""
    return ordered("task_order")


def modes() -> Tuple[str, ...]:
    """The autonomy levels, strictest first: plan, confirm, full."""
    return ordered("autonomy_mode")


def change_classes() -> Tuple[str, ...]:
    """The change classes of ``diff`` in report order: A, B, C, D, E."""
    return ordered("change_class")


def fail_on() -> Tuple[str, ...]:
    """The ``--fail-on`` thresholds, strictest first: review, conflict, error, never."""
    return ordered("fail_on")


def severities() -> Tuple[str, ...]:
    """The finding severities of a quality check or rule pack, most severe first: ERROR,
    WARNING, INFO."""
    return tuple(reversed(ordered("severity_rank")))


def level_ranks() -> Mapping[str, int]:
    """Result level -> rank, most severe (error) first."""
    return ranks("level_rank")


def word_levels() -> Mapping[str, str]:
    """Severity or status word -> its result level (error, warning, note)."""
    return mapping("word_level")
