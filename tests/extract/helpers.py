"""Shared helpers for the extraction tests: our own projects (the conformance corpus's, a
default manifest, a generated project), the reference material of ../shared for the
cross-checks (tests/shared_reference.py), and small project builders."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List

import pytest

from shared_reference import SHARED

TESTS = Path(__file__).resolve().parents[1]
SPEC = SHARED / "spec"
TEMPLATES = SPEC / "templates" / "docs" / "memory"
for _folder in ("conformance_corpus", "corpus"):  # their builders, by plain name (as their conftests do)
    if str(TESTS / _folder) not in sys.path:
        sys.path.insert(0, str(TESTS / _folder))

import corpus_project  # noqa: E402
import routing_cases  # noqa: E402,F401  (registers its cases in cases.CASES)
import conflict_cases  # noqa: E402,F401
import misc_cases  # noqa: E402,F401
from cases import CASES, INIT_ROUTES  # noqa: E402
from runner import build  # noqa: E402


def scenarios():
    """Every scenario of the spec's scenarios.jsonl (for the cross-checks; skips the test when absent)."""
    path = SPEC / "scenarios.jsonl"
    if not path.is_file():
        pytest.skip("../shared/spec/scenarios.jsonl is not available")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def template(name: str) -> str:
    """A default template file's text of ../shared (for the cross-checks; skips the test when absent)."""
    path = TEMPLATES / name
    if not path.is_file():
        pytest.skip(f"../shared's template {name} is not available")
    return path.read_text(encoding="utf-8")


def own_projects(tmp: Path) -> List[dict]:
    """Every project of our conformance corpus (tests/conformance_corpus, one per case), laid out
    under ``tmp`` and read back as ``{"name": case id, "files": {path: text}, "case": case, "root":
    the project's folder}``: the shape of a scenario of ../shared."""
    out = []
    for case in CASES:
        root = build(case, tmp / case["id"])
        files = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
                 for p in sorted(root.rglob("*")) if p.is_file()}
        out.append({"name": case["id"], "files": files, "case": case, "root": root})
    return out


def default_manifest(**protocol: str) -> str:
    """A valid 0.7 manifest of our own shaped as a fresh memory's (the init routes of the
    conformance corpus: implementation may use preferences.md, maintenance reads the inbox and
    the change log), with ``protocol`` keys changed."""
    return corpus_project.manifest_text({"routes": INIT_ROUTES, "protocol": protocol})


def generated_project(root: Path, n: int, areas: int = 20) -> Path:
    """A large valid project of ``n`` entries (for scale and fast-path tests): the corpus's base
    project, ``areas`` path areas, and entries spread over decisions.md, constraints.md,
    do-not-use.md and the area files, each with a Subject of its own (so nothing conflicts)."""
    names = [f"zone{i:02d}" for i in range(areas)]
    decls = [{"path": f"areas/{name}.md", "activation": "path-or-explicit", "paths": [f"src/{name}/**"]}
             for name in names]
    files = {"decisions.md": ("DEC", "Decision", "project"), "constraints.md": ("CON", "Constraint", "project"),
             "do-not-use.md": ("DNU", "Rejected", "project")}
    files.update({f"areas/{name}.md": ("CON", "Constraint", f"area:{name}") for name in names})
    bodies = {name: [] for name in files}
    subjects = []
    for i in range(n):
        name = sorted(files)[i % len(files)]
        code, label, scope = files[name]
        sid = f"MC-SUBJ-20270401-{i:08x}"
        subjects.append(f"## {sid} — Topic {i}\n\nStatus: active\nKind: concept\nEvidence:\n- user-confirmed\n\n"
                        f"Aliases:\n- topic {i}\n")
        bodies[name].append(f"## MC-{code}-20270401-{i:08x} — Item {i}\n\nStatus: active\nScope: {scope}\n"
                            f"Subject: {sid}\nFacet: behavior\nEvidence:\n- user-confirmed\n\n{label}:\n"
                            f"Kettle rule {i}, weight {(i * 7919) % 1000}.\n")
    memory = root / "docs" / "memory"
    (memory / "areas").mkdir(parents=True)
    (memory / "manifest.md").write_text(corpus_project.manifest_text({"areas": decls}), encoding="utf-8")
    (memory / "brief.md").write_text("# Brief\n\nKettle, generated at scale.\n", encoding="utf-8")
    for name, items in bodies.items():
        (memory / name).write_text(f"# {name[:-3].split('/')[-1].title()}\n\n" + "\n".join(items), encoding="utf-8")
    (memory / "subjects.md").write_text("# Subject Registry\n\n" + "\n".join(subjects), encoding="utf-8")
    return root


def write_project(root: Path, files: dict) -> Path:
    """Write ``{relative path: text or bytes}`` under ``root``; returns root."""
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


def relation(sink, name):
    """The values of one relation in a Sink, in emission order."""
    return [values for rel, values, _, _ in sink.facts if rel == name]
