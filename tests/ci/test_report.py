"""`analyze report`: golden Markdown and JSON on the example and on a project with an
unreachable entry, the Mermaid block checked structurally, the node budget, the glob column
from git ls-files or a walk, one evaluation, the 1 MiB limit, determinism."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from analyzer.contract.check_model import CheckResult
from analyzer.query.report import Report
from analyzer.render import mermaid
from analyzer.render.report_markdown import render_report_markdown
from analyzer.history.repofiles import list_files
from cihelp import REPO, check_golden, count_evaluations, copy_example, normalize, run_inproc, run_cli
from corpus_project import CORPUS, build_project

NODE = re.compile(r'^  ([a-z]\d+)(\(\[|\[)"([^"]*)"(\]\)|\])$')
EDGE = re.compile(r"^  ([a-z]\d+) --> ([a-z]\d+)$")
CLASSDEF = re.compile(r"^  classDef ([a-z]+) [a-z-]+:[^ ,]+( [^ ,]+)?(,[a-z-]+:[^ ,]+( [^ ,]+)?)*$")
CLASS = re.compile(r"^  class ([a-z]\d+(?:,[a-z]\d+)*) ([a-z]+)$")


def mermaid_blocks(markdown: str):
    return re.findall(r"^```mermaid\n(.*?)\n```$", markdown, flags=re.S | re.M)


def check_flowchart(block: str):
    """Structural check: a `flowchart LR`, every line a node, edge, classDef or class; ids
    defined once before use; edges and classes only on defined nodes and classes. Returns
    {id: label}, edges, {id: class}."""
    lines = block.split("\n")
    assert lines[0] == "flowchart LR"
    nodes, edges, classes, defined = {}, [], {}, set()
    for line in lines[1:]:
        if m := NODE.match(line):
            assert m.group(1) not in nodes, f"node {m.group(1)} defined twice"
            assert (m.group(2), m.group(4)) in (("([", "])"), ("[", "]"))
            nodes[m.group(1)] = m.group(3)
        elif m := EDGE.match(line):
            assert m.group(1) in nodes and m.group(2) in nodes, line
            edges.append((m.group(1), m.group(2)))
        elif m := CLASSDEF.match(line):
            defined.add(m.group(1))
        elif m := CLASS.match(line):
            assert m.group(2) in defined, line
            for nid in m.group(1).split(","):
                assert nid in nodes and nid not in classes, line
                classes[nid] = m.group(2)
        else:
            raise AssertionError(f"not a flowchart line: {line!r}")
    return nodes, edges, classes


@pytest.fixture()
def clean_env(monkeypatch, tmp_path):
    for key in ("GITHUB_STEP_SUMMARY", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _unreachable_project(tmp_path):
    return build_project(CORPUS / "MC-REACH-001" / "fires", tmp_path / "reach")


@pytest.mark.parametrize("fmt, suffix", [("markdown", "md"), ("json", "json")])
def test_example_report_golden(fmt, suffix, tmp_path, request, clean_env):
    root = copy_example(tmp_path)
    out, err, status = run_inproc(["report", "--format", fmt, "--project-root", str(root)])
    assert status == 1, err
    check_golden(f"report/example.{suffix}", normalize(out, root), request)


@pytest.mark.parametrize("fmt, suffix", [("markdown", "md"), ("json", "json")])
def test_unreachable_report_golden(fmt, suffix, tmp_path, request, clean_env):
    root = _unreachable_project(tmp_path)
    out, err, _ = run_inproc(["report", "--format", fmt, "--project-root", str(root)])
    check_golden(f"report/unreachable.{suffix}", normalize(out, root), request)


def test_marks_come_from_the_reachability_findings(tmp_path, clean_env):
    root = _unreachable_project(tmp_path)
    report = json.loads(run_inproc(["report", "--format", "json", "--project-root", str(root)])[0])
    check = json.loads(run_inproc(["check", "--reachability", "--format", "json", "--project-root", str(root)])[0])
    flagged = {e for f in check["findings"] if f["code"] == "MC-REACH-001" for e in f["entries"]}
    marked = {e["entry"] for e in report["entries"] if e["mark"] in ("unreachable", "outside")}
    assert flagged and marked == flagged
    assert report["findings"] == json.loads(run_inproc(["check", "--all", "--format", "json", "--project-root",
                                                       str(root)])[0])["findings"]
    markdown = run_inproc(["report", "--project-root", str(root)])[0]
    nodes, _, classes = check_flowchart(mermaid_blocks(markdown)[0])
    by_label = {label: nid for nid, label in nodes.items()}
    for entry in flagged:
        assert classes[by_label[entry]] in ("unreachable", "outside")


def test_example_mermaid_is_structurally_valid(tmp_path, clean_env):
    root = copy_example(tmp_path)
    markdown = run_inproc(["report", "--project-root", str(root)])[0]
    blocks = mermaid_blocks(markdown)
    assert len(blocks) == 1
    nodes, edges, classes = check_flowchart(blocks[0])
    document = json.loads(run_inproc(["report", "--format", "json", "--project-root", str(root)])[0])
    assert len(edges) == len(document["edges"]) + len(document["entries"])
    assert set(nodes.values()) >= {e["entry"] for e in document["entries"]}
    assert classes == {next(n for n, l in nodes.items() if l == "areas/payments.md"): "missing"}


def test_routing_matrix_agrees_with_read(tmp_path, clean_env):
    """The matrix's loaded cells for a task are the modules `read` loads for it as required route names."""
    root = copy_example(tmp_path)
    document = json.loads(run_inproc(["report", "--format", "json", "--project-root", str(root)])[0])
    loaded = {r["module"] for r in document["routes"] if r["task"] == "implementation" and r["state"] == "loaded"}
    read = json.loads(run_inproc(["read", "--task", "implementation", "--format", "json", "--no-local",
                                  "--project-root", str(root)])[0])
    routed = {m["path"] for m in read["modules"] if m["disposition"] == "loaded" and m["required"]
              and any(r in ("MC-ROUTE-ALWAYS", "MC-ROUTE-TASK") for r in m["reasons"])}
    assert loaded and loaded == routed


def _synthetic(modules: int, per_module: int, marked_every: int = 0):
    entries = [(f"MC-DEC-{m:03d}-{i:04d}", f"mod{m:03d}.md",
                "unreachable" if marked_every and i % marked_every == 0 else "reachable")
               for m in range(modules) for i in range(per_module)]
    edges = [("general", f"mod{m:03d}.md") for m in range(modules)]
    return edges, entries


def test_node_budget_collapses_entries_into_counts():
    edges, entries = _synthetic(5, 10)
    lines, mode = mermaid.flowchart(["general"], edges, entries, [], budget=100)
    assert mode == "entries"
    edges, entries = _synthetic(10, 40, marked_every=7)
    lines, mode = mermaid.flowchart(["general"], edges, entries, [], budget=100)
    nodes, _, classes = check_flowchart("\n".join(lines))
    assert mode == "counts" and len(nodes) <= 100
    assert "34 reachable" in nodes.values() and "6 unreachable" in nodes.values()
    edges, entries = _synthetic(60, 5, marked_every=2)
    lines, mode = mermaid.flowchart(["general"], edges, entries, [], budget=100)
    nodes, _, classes = check_flowchart("\n".join(lines))
    assert mode == "marked counts" and not any(label.endswith(" reachable") for label in nodes.values())


def test_labels_are_escaped():
    assert mermaid.label('a "b" <c>') == '"a #quot;b#quot; #lt;c#gt;"'


def test_report_markdown_stays_under_the_limit():
    from analyzer.contract.check_model import FamilyResult

    edges, entries = _synthetic(40, 400)
    report = Report(CheckResult([FamilyResult("routing", "quality", "OK", 0)], "OK", 0), ["general"],
                    {f"mod{m:03d}.md": {"general": "loaded"} for m in range(40)}, [], ("git", True, 10), edges, entries,
                    full=True)
    text = render_report_markdown(report, limit=200_000)
    assert len(text.encode("utf-8")) <= 200_000 and "**Truncated:**" in text
    check_flowchart(mermaid_blocks(text)[0])  # the graph comes before the long table, whole


def test_glob_column_from_git_and_from_a_walk(tmp_path):
    root = tmp_path / "p"
    (root / "api").mkdir(parents=True)
    (root / "api" / "x.py").write_text("", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("", encoding="utf-8")  # not a repository: walked, .git skipped
    os.symlink(str(REPO), str(root / "link"))
    paths, source, complete = list_files(str(root))
    assert (paths, source, complete) == (["api/x.py", "link"], "walk", True)
    assert list_files(str(root), cap=1)[2] is False
    repo = tmp_path / "r"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.md").write_text("", encoding="utf-8")
    (repo / "b.md").write_text("", encoding="utf-8")
    subprocess.run(["git", "-C", str(repo), "add", "a.md"], check=True)
    assert list_files(str(repo)) == (["a.md"], "git", True)


def test_report_is_one_evaluation(tmp_path, clean_env, monkeypatch):
    calls = count_evaluations(monkeypatch)
    root = copy_example(tmp_path)
    run_inproc(["report", "--no-cache", "--project-root", str(root)])
    assert len(calls) == 1 and "report_entry" in calls[0] and "check_conflict_status" in calls[0]


def test_official_mermaid_parser_accepts_the_graphs(tmp_path):
    """Where node and the mermaid package are installed (MERMAID_NODE_MODULES names the
    node_modules folder holding mermaid and jsdom; .ci/run installs them with npm through
    .ci/mermaid-modules), the official parser reads every graph, and refuses a broken one."""
    import shutil
    from pathlib import Path

    if not shutil.which("node"):
        pytest.skip("node is not installed (the official Mermaid parser runs under node)")
    modules = Path(os.environ.get("MERMAID_NODE_MODULES") or "/nonexistent")
    if not (modules / "mermaid").is_dir() or not (modules / "jsdom").is_dir():
        pytest.skip("mermaid and jsdom are not installed: MERMAID_NODE_MODULES=$(bash .ci/mermaid-modules)")
    work = tmp_path / "mermaid"
    work.mkdir()
    shutil.copy(Path(__file__).with_name("mermaid_parse.mjs"), work / "parse.mjs")
    (work / "node_modules").symlink_to(modules)
    blocks = [b for path in sorted((Path(__file__).parent / "golden" / "report").glob("*.md"))
              for b in mermaid_blocks(path.read_text(encoding="utf-8"))]
    for modules_count, per, every in ((10, 40, 7), (60, 5, 2)):
        edges, entries = _synthetic(modules_count, per, marked_every=every)
        blocks.append("\n".join(mermaid.flowchart(["general"], edges, entries, ["mod001.md"], budget=100)[0]))
    assert len(blocks) >= 4

    def parse(block: str) -> subprocess.CompletedProcess:
        return subprocess.run(["node", "parse.mjs"], input=block, capture_output=True, text=True, cwd=work,
                              timeout=120)

    broken = parse(blocks[0].replace("-->", "--=>>", 1) + '\n  x1["unclosed\n')  # the parser can say no
    assert broken.returncode != 0 and broken.stdout.startswith("error"), broken.stdout + broken.stderr
    for block in blocks:
        proc = parse(block)
        assert proc.returncode == 0 and proc.stdout.startswith("ok"), proc.stdout + proc.stderr


def test_same_bytes_across_hash_seeds(tmp_path):
    root = copy_example(tmp_path)
    outs = {run_cli(["report", "--no-cache", "--project-root", str(root)], tmp_path, seed=s).stdout
            for s in ("0", "5", "12345")}
    assert len(outs) == 1


def test_report_output_files_and_errors(tmp_path):
    root = copy_example(tmp_path)
    out = tmp_path / "r.json"
    proc = run_cli(["report", "--project-root", str(root), "--output", f"json:{out}"], tmp_path)
    assert proc.stdout.startswith("# memory-analyzer report:")
    assert json.loads(out.read_text())["schema"]["name"] == "report.result"
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = run_cli(["report", "--format", "json", "--project-root", str(empty)], tmp_path)
    assert missing.returncode == 1 and json.loads(missing.stdout)["schema"]["name"] == "report.error"
    # a check format the report does not write is an error, not a file named "sarif:…"
    wrong = run_cli(["report", "--project-root", str(root), "--output", f"sarif:{tmp_path / 'r.sarif'}"], tmp_path)
    assert wrong.returncode == 2 and "writes markdown or json or mermaid, not sarif" in wrong.stderr
    assert not list(tmp_path.glob("sarif:*")) and not (tmp_path / "r.sarif").exists()


def test_same_report_whatever_the_order_files_were_written(tmp_path, clean_env):
    """The walk (outside Git) and every table are sorted: files written in reverse order give
    the same bytes."""
    import shutil
    from pathlib import Path

    source = copy_example(tmp_path / "a")
    reverse = tmp_path / "b" / "acme"
    files = sorted(p for p in source.rglob("*") if p.is_file())
    for path in reversed(files):
        target = reverse / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    outs = [run_inproc(["report", "--no-cache", "--project-root", str(root)])[0].replace(str(root), "<root>")
            for root in (source, reverse)]
    assert outs[0] == outs[1] and Path(reverse).is_dir()


def test_outside_any_repository_no_git_process_starts(tmp_path, monkeypatch):
    """No `.git` in the root or above it: Git could only fail, so neither the listing nor the
    path prefix starts it (the answer is the one a failed Git call gives)."""
    from analyzer.history import git
    from analyzer.history.repofiles import repo_prefix
    from analyzer.history.repofiles import may_be_in_git

    root = tmp_path / "p"
    (root / "api").mkdir(parents=True)
    (root / "api" / "x.py").write_text("", encoding="utf-8")
    if may_be_in_git(str(tmp_path)):
        pytest.skip("the temporary folder is inside a Git work tree here")

    def no_git(*args, **kwargs):
        raise AssertionError("git was started")

    monkeypatch.setattr(git, "run_git", no_git)
    assert list_files(str(root)) == (["api/x.py"], "walk", True)
    assert repo_prefix(str(root)) == ""
    (root / ".git").mkdir()  # now Git is asked (and fails: not a repository)
    with pytest.raises(AssertionError, match="git was started"):
        list_files(str(root))


def _within_mermaid_limits(block: str) -> None:
    _, edges, _ = check_flowchart(block)
    assert len(edges) < 500 and len(block) < 50_000, (len(edges), len(block))


@pytest.mark.parametrize("modules_count", [240, 1000])
def test_many_modules_collapse_into_counted_groups_within_mermaids_limits(modules_count):
    """238 optional modules gave 502 edges (mermaid draws 500), 1,000 "Maximum text size"."""
    edges = [(s, f"areas/m{n:04d}.md") for n in range(modules_count) for s in ("path", "explicit")]
    entries = [(f"MC-AREA-{n:04d}", f"areas/m{n:04d}.md", "reachable" if n % 3 else "unreachable")
               for n in range(modules_count)]
    missing = [f"areas/m{n:04d}.md" for n in range(0, modules_count, 7)]
    lines, mode = mermaid.flowchart(["path", "explicit"], edges, entries, missing)
    _within_mermaid_limits("\n".join(lines))
    assert mode.endswith("modules grouped by folder")
    nodes, _, classes = check_flowchart("\n".join(lines))
    counted = sum(int(m.group(1)) for label in nodes.values() if (m := re.match(r'(\d+) modules? in areas/', label)))
    assert counted == modules_count  # every module is in one group
    assert set(classes.values()) >= {"missing", "unreachable"}
    # as many folders as modules, past the limit: grouped by mark alone, which always fits
    edges = [("path", f"f{n}/m.md") for n in range(modules_count * 3)]
    lines, mode = mermaid.flowchart(["path"], edges, [], [])
    _within_mermaid_limits("\n".join(lines))
    assert mode.endswith("modules grouped")


def test_a_project_with_240_optional_modules_and_the_full_graph_file(tmp_path, clean_env):
    root = copy_example(tmp_path)
    manifest = root / "docs" / "memory" / "manifest.md"
    extra = "".join(f"- `areas/x{n:03d}.md`\n  - activation: path\n  - paths: `x/{n}/**`\n"
                    f"  - description: Area {n}.\n" for n in range(240))
    text = manifest.read_text(encoding="utf-8").replace("### Enabled areas\n", "### Enabled areas\n" + extra, 1)
    manifest.write_text(text, encoding="utf-8")
    full = tmp_path / "graph.mmd"
    out, err, _ = run_inproc(["report", "--project-root", str(root), "--output", f"mermaid:{full}"])
    [block] = mermaid_blocks(out)
    _within_mermaid_limits(block)
    assert "`analyze report --output mermaid:FILE`" in out
    nodes, _, _ = check_flowchart(full.read_text(encoding="utf-8").rstrip("\n"))
    assert sum(1 for label in nodes.values() if label.startswith('areas/x')) == 240
