"""The rule-set fingerprint covers exactly the shipped files, by relative path and content."""

from __future__ import annotations

from analyzer.core.fingerprint import compute, shipped_files


def _tree(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return lambda kind: tmp_path / kind


BASE = {"rules/a.dl": "a.", "rules/read/b.dl": "b.", "facts/schema.dl": ".decl x(a: symbol)", "grammar/g.lark": "x"}


def test_only_shipped_files_count(tmp_path):
    locate = _tree(tmp_path, {**BASE, "rules/README.md": "notes", "grammar/notes.txt": "x"})
    assert [rel for rel, _ in shipped_files(locate)] == ["facts/schema.dl", "grammar/g.lark", "rules/a.dl", "rules/read/b.dl"]


def test_content_and_names_change_the_fingerprint(tmp_path):
    one = compute(_tree(tmp_path / "1", BASE))
    assert one == compute(_tree(tmp_path / "2", dict(reversed(list(BASE.items())))))
    assert one != compute(_tree(tmp_path / "3", {**BASE, "rules/a.dl": "a. "}))
    assert one != compute(_tree(tmp_path / "4", {**{k: v for k, v in BASE.items() if k != "rules/a.dl"}, "rules/c.dl": "a."}))
    assert len(one) == 64
