"""Each vocabulary is written once, as facts in rules/ (issue 26 item 4).

The status ranks, finding severities and ``--fail-on`` thresholds, result levels, the
canonical task order, the autonomy levels and the change classes are facts of
rules/vocab/*.dl; the entry vocabulary is rules/entries/fields.dl. Python reads them from the
compiled programs (analyzer/project/vocab.py). This test walks the AST of every module of
analyzer/ and fails on a literal collection (tuple, list, set, dict keys, or the arguments of
one call such as a shape's ``Enum(...)``) that spells out a vocabulary again: three or more
of its words (all of them when it has fewer). A word used alone or in a pair (``"CLEAR"``
as a default, ``("CONFLICT", "REVIEW")`` as the statuses a merge finding may take) is not a
vocabulary.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, FrozenSet, Iterator, List, Set, Tuple

import pytest

import analyzer
from analyzer.project import vocab

PACKAGE = Path(analyzer.__file__).resolve().parent


def vocabularies() -> Dict[str, FrozenSet[str]]:
    """Every vocabulary of rules/vocab/vocab.dl (rules/vocab/*.dl and rules/entries/fields.dl):
    relation -> its words (first column)."""
    rows = {rel: vocab.facts(rel) for rel in vocab._program()}
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


# The entry vocabulary (rules/entries/fields.dl) still written in the extractors (their field
# readers and the validity checks of records and subjects, issue 26 item 5) and the catalogue's
# ID families: ``path:line: relation`` as the scan names them. May only shrink, to none.
ENTRY_VOCABULARY_LEFT: Set[str] = {
    "analyzer/contract/catalog.py:43: area_code",
    "analyzer/contract/catalog.py:43: structural_code",
    "analyzer/project/extract/entry_rules.py:19: typed_body",
    "analyzer/project/extract/entry_rules.py:22: relation_field",
    "analyzer/project/extract/entry_rules.py:23: scalar_field",
    "analyzer/project/extract/fields.py:14: typed_body",
}


def test_no_vocabulary_is_written_again_in_python():
    found = written_again()
    stale = sorted(ENTRY_VOCABULARY_LEFT - set(found))
    assert not stale, f"no longer written in Python, remove from ENTRY_VOCABULARY_LEFT: {stale}"
    found = [f for f in found if f not in ENTRY_VOCABULARY_LEFT]
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


def test_the_accessor_reads_the_rules():
    """What Python reads is what rules/vocab/ declares, in its order."""
    assert vocab.statuses() == ("CLEAR", "REVIEW", "CONFLICT", "INVALID")
    assert vocab.tasks()[0] == "general" and len(vocab.tasks()) == 7
    assert vocab.modes() == ("plan", "confirm", "full")
    assert vocab.change_classes() == tuple("ABCDE")
    assert vocab.fail_on()[-1] == "never"
    assert vocab.severities() == ("ERROR", "WARNING", "INFO")
    assert vocab.level_ranks() == {"error": 0, "warning": 1, "note": 2}
