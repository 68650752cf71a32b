"""Each vocabulary is written once, as facts in rules/ (issue 26 item 4).

The status ranks, finding severities and ``--fail-on`` thresholds, result levels, the
canonical task order, the autonomy levels, the change classes and the ID families are facts
of rules/vocab/*.dl; the entry vocabulary is rules/entries/fields.dl. Python reads them from
the compiled programs (analyzer/project/vocab.py; the extractors read the entry vocabulary
from the entries program they judge with, analyzer/project/extract/judge.py). This test walks the AST of every module of
analyzer/ and fails on a literal collection (tuple, list, set, dict keys, or the arguments of
one call such as a shape's ``Enum(...)``) that spells out a vocabulary again: three or more
of its words (all of them when it has fewer). A word used alone or in a pair (``"CLEAR"``
as a default, ``("CONFLICT", "REVIEW")`` as the statuses a merge finding may take) is not a
vocabulary.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, FrozenSet, Iterator, List, Tuple

import pytest

import analyzer
from analyzer.project import vocab

PACKAGE = Path(analyzer.__file__).resolve().parent


def vocabularies() -> Dict[str, FrozenSet[str]]:
    """Every vocabulary of rules/vocab/vocab.dl (rules/vocab/*.dl and rules/entries/fields.dl):
    relation -> its words (first column)."""
    from analyzer.core.resources import data_file
    from analyzer.engine.cache import load_engine

    # the program's facts: the relations it derives from them (rules/entries/fields.dl's
    # known_field, ...) are not vocabularies of their own
    written = load_engine(data_file("rules", "vocab/vocab.dl")).facts
    rows = {rel: vocab.facts(rel) for rel in vocab._program() if rel in written}
    # a vocabulary is a set of words, with or without their rank; a relation whose second
    # column is a word too maps one vocabulary onto another (word_level, body_of)
    return {rel: frozenset(row[0] for row in found) for rel, found in rows.items()
            if len(found) > 1 and all(isinstance(row[0], str) for row in found)
            and not any(len(row) > 1 and isinstance(row[1], str) for row in found)}


def literal_groups(tree: ast.AST) -> Iterator[Tuple[int, List[str]]]:
    """(line, string constants) of every literal collection and every call's arguments."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        elif isinstance(node, ast.Call):
            items = [a for a in node.args if not isinstance(a, ast.Starred)]
        else:
            continue
        words = [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]
        if words:
            yield node.lineno, words


def spelled_out(words: List[str], known: Dict[str, FrozenSet[str]]) -> List[str]:
    """The vocabularies ``words`` writes again."""
    return sorted(rel for rel, vocabulary in known.items()
                  if len(vocabulary & set(words)) >= min(3, len(vocabulary)))


def written_again(root: Path = PACKAGE, known=None) -> List[str]:
    """``path:line: relation`` for every literal of analyzer/ that spells out a vocabulary;
    also a string that joins a vocabulary of one-letter words (``"ABCDE"``)."""
    known = vocabularies() if known is None else known
    joined = {"".join(sorted(words)): rel for rel, words in known.items() if all(len(w) == 1 for w in words)}
    found = []
    for path in sorted(root.rglob("*.py")):
        if "_data" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        where = path.relative_to(root.parent).as_posix()
        for line, words in literal_groups(tree):
            found += [f"{where}:{line}: {rel}" for rel in spelled_out(words, known)]
        found += [f"{where}:{node.lineno}: {joined[node.value]}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in joined]
    return found


def test_no_vocabulary_is_written_again_in_python():
    # none is left: the entry vocabulary the extractors write facts for is read from the
    # entries program (analyzer/project/extract/judge.py entry_vocabulary), the catalogue's
    # ID families from rules/vocab/ids.dl; no allowlist
    found = written_again()
    assert not found, "vocabularies written again in Python (read them from rules/ via analyzer.project.vocab):\n" + \
        "\n".join(found)


@pytest.mark.parametrize("source, expected", [
    ('RANK = {"OK": 0, "CLEAR": 0, "REVIEW": 1, "CONFLICT": 2}', ["status_rank"]),
    ('TASKS = ("general", "planning", "implementation")', ["task_order"]),
    ('x = Enum("plan", "confirm", "full")', ["autonomy_mode"]),
    ('LEVEL = {"error": 0, "warning": 1, "note": 2}', ["level_rank"]),
    ('for c in "ABCDE": pass', ["change_class"]),
    ('TYPED = ("Decision", "Constraint", "Rejected")', ["typed_body"]),
    ('status = "CLEAR" if ok else "REVIEW"', []),
    ('MERGE = Enum("CONFLICT", "REVIEW")', []),
])
def test_the_scan_sees_a_vocabulary_written_out(tmp_path, source, expected):
    """The scan is not blind: each vocabulary written as a literal is found, a word or a pair is not."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(source + "\n")
    found = written_again(tmp_path / "pkg")
    assert sorted(f.split(": ", 1)[1] for f in found) == expected, found


def test_the_entry_vocabulary_is_read_from_the_rules():
    """The extractors' field names are rules/entries/fields.dl's, in the schema's order; the
    catalogue tells an ID from a code by rules/vocab/ids.dl."""
    from analyzer.contract.catalog import codes_in
    from analyzer.project.extract.entry_rules import typed_bodies
    from analyzer.project.extract.fields import body_fields
    from analyzer.project.extract.judge import entry_vocabulary

    assert typed_bodies() == tuple(name for name, _ in sorted(vocab.facts("typed_body"), key=lambda row: row[1]))
    assert typed_bodies()[0] == "Decision" and len(typed_bodies()) == 7
    assert entry_vocabulary("relation_field")[-1] == "Exception-To"
    assert body_fields() == set(typed_bodies()) | set(vocab.names("other_body"))
    code = "MC-" + "CONFLICT-001"  # spelled apart: a code written here would list this file as its fixture
    assert codes_in(f"MC-SUBJ-20260729-A1B2C3D4, MC-REC-20260729-A1B2C3D4, {code}") == {code}


def test_the_accessor_reads_the_rules():
    """What Python reads is what rules/vocab/ declares, in its order."""
    assert vocab.statuses() == ("CLEAR", "REVIEW", "CONFLICT", "INVALID")
    assert vocab.tasks()[0] == "general" and len(vocab.tasks()) == 7
    assert vocab.modes() == ("plan", "confirm", "full")
    assert vocab.change_classes() == tuple("ABCDE")
    assert vocab.fail_on()[-1] == "never"
    assert vocab.severities() == ("ERROR", "WARNING", "INFO")
    assert vocab.level_ranks() == {"error": 0, "warning": 1, "note": 2}


def test_the_stored_vocabulary_is_keyed_by_the_engine_too(tmp_path, monkeypatch):
    """The store holds relations the engine evaluated (rules/entries/fields.dl's): an engine
    change with the rules unchanged must not be answered from the old entry."""
    import analyzer.engine.cache as program_cache
    import analyzer.engine.shipped as shipped

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(shipped, "load_shipped_facts", lambda entry: None)  # a checkout without shipped forms
    loads = []
    real = program_cache.load_engine
    monkeypatch.setattr(program_cache, "load_engine", lambda *a, **k: loads.append(1) or real(*a, **k))
    for digest in (b"engine one", b"engine one", b"engine two"):
        monkeypatch.setattr(vocab, "engine_digest", lambda digest=digest: digest)
        vocab._program.cache_clear()
        assert vocab._program()["status_rank"]
    vocab._program.cache_clear()
    vocab.facts.cache_clear()
    assert loads == [1, 1]  # stored under the first engine, read again under it, not under the second


@pytest.fixture
def fresh_vocab():
    """The vocabulary module's caches empty before and after the test (it loads on its own)."""
    def clear():
        for cached in (vocab.facts, vocab._program, vocab._derived, vocab.table, vocab.mapping, vocab.ranks):
            cached.cache_clear()

    clear()
    yield
    clear()


@pytest.mark.parametrize("wheel", [False, True], ids=["checkout", "wheel"])
def test_a_relation_the_program_does_not_declare_is_an_error(fresh_vocab, monkeypatch, wheel):
    """Asking for a relation rules/vocab/vocab.dl does not declare (a typo, a vocabulary
    removed) raises UnknownVocabulary, with either source of the tables: the checkout's
    (facts and derived tables read together) and an installed wheel's (facts read without the
    engine, tables derived on demand). It is never an empty vocabulary that gates nothing."""
    import analyzer.engine.shipped as shipped
    from analyzer.core.resources import data_file
    from analyzer.engine.cache import load_engine

    facts_only = load_engine(data_file("rules", "vocab/vocab.dl")).facts
    monkeypatch.setattr(shipped, "load_shipped_facts", lambda entry: facts_only if wheel else None)
    assert vocab.facts("status_rank") and vocab.table("known_field")  # a vocabulary and a derived table
    for name in ("status_rnak", "known_fields", ""):
        with pytest.raises(vocab.UnknownVocabulary, match="neither a vocabulary nor a decision table") as raised:
            vocab.facts(name)
        assert raised.value.relation == name
    with pytest.raises(vocab.UnknownVocabulary):
        vocab.names("no_such_vocabulary")
    with pytest.raises(vocab.UnknownVocabulary):
        vocab.table("no_such_table")


def test_a_declared_table_without_tuples_is_empty_not_an_error(tmp_path, fresh_vocab, monkeypatch):
    """A decision table the program declares and derives nothing into is ``()``: the derived
    tables are read whole (every relation the evaluation completed), not only those with
    tuples, so telling an unknown relation apart does not turn an empty one into an error."""
    from analyzer.engine.cache import load_engine

    program = tmp_path / "tables.dl"
    program.write_text('.decl word(w: symbol)\nword("a").\n'
                       '.decl loud(w: symbol)\nloud(W) :- word(W), W = "B".\n'
                       '.decl said(w: symbol)\nsaid(W) :- word(W).\n')
    derived = vocab._derived_of(load_engine(program, use_cache=False))
    assert derived == {"loud": (), "said": (("a",),)}
    monkeypatch.setattr(vocab, "_program", lambda: {"word": (("a",),)})
    monkeypatch.setattr(vocab, "_derived", lambda: derived)
    assert vocab.facts("loud") == () and vocab.names("said") == ("a",)
    with pytest.raises(vocab.UnknownVocabulary):
        vocab.facts("quiet")
