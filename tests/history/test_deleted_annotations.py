"""Annotations of deleted units point at the head revision (issue 24 item 4): the file, at the
line where the unit was, clamped to the head's length, or the file itself (no line) when the
head has no such file. A base line in a shorter head file (`line=109` in a 107-line file) is a
place no reviewer can open."""

import json

import inprocess
from histrepo import MEM, Repo

from analyzer.history.head_places import anchor_deleted, head_lengths
from analyzer.contract.check_model import one_family
from analyzer.query.diff import Change, DiffResult, Place, run_diff
from analyzer.commands.check_formats import Context, render

LAST = "MC-DEC-20260905-2c3d4e5f"  # decisions.md:22, the last of its 33 lines


def cli(root, *args):
    return inprocess.run([*args, "--project-root", str(root), "--no-cache"],
                         capture_output=True, text=True)


def deleted_last(tmp_path):
    repo = Repo(tmp_path / "p")
    text = repo.read("decisions.md")
    repo.write("decisions.md", text[:text.index(f"## {LAST}")].rstrip("\n") + "\n")
    sha = repo.commit("delete the last decision", trailers=("Memory-Confirmed-By: alice",))
    return repo, sha, len(repo.read("decisions.md").splitlines())


def test_github_annotation_of_a_deleted_unit_is_clamped_to_the_head(tmp_path):
    repo, sha, length = deleted_last(tmp_path)
    assert length < 22
    for head in (["--head", sha], []):  # a commit, and the work tree
        out = cli(repo.root, "diff", "--base", f"{sha}~1", *head, "--format", "github")
        assert out.returncode == 0, out.stderr
        [line] = [l for l in out.stdout.splitlines() if "title=MA-DIFF-D" in l]
        assert line.startswith(f"::notice file={MEM}/decisions.md,line={length},col=1,")
        # the message still says where the unit was in the base
        assert f"{MEM}/decisions.md:22 -> -" in line
    # the autonomy check's annotation of the same deletion, and its SARIF location
    out = cli(repo.root, "check", "--autonomy", "confirm", "--base", f"{sha}~1", "--head", sha, "--format", "github")
    [line] = [l for l in out.stdout.splitlines() if "title=MA-AUTONOMY-001" in l]
    assert line.startswith(f"::error file={MEM}/decisions.md,line={length},col=1,")
    out = cli(repo.root, "check", "--autonomy", "confirm", "--base", f"{sha}~1", "--head", sha, "--format", "sarif")
    [result] = json.loads(out.stdout)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == length
    # text and JSON keep the unit's own place (in the base)
    doc = json.loads(cli(repo.root, "diff", "--base", f"{sha}~1", "--head", sha, "--format", "json").stdout)
    [change] = doc["changes"]
    assert change["before"]["line"] == 22 and change["after"] is None


def test_a_file_the_head_no_longer_has_is_annotated_at_file_level(tmp_path):
    repo = Repo(tmp_path / "p")
    repo.write("preferences.md", None)
    sha = repo.commit("drop the preferences file")
    path = f"{MEM}/preferences.md"
    assert head_lengths(repo.root, sha, [path, f"{MEM}/decisions.md"]) == {path: None, f"{MEM}/decisions.md": 33}
    assert head_lengths(repo.root, "", [path]) == {path: None}
    result = DiffResult(f"{sha}~1", sha, head=sha, status="CHANGES", exit_code=0,
                        changes=[Change("entry", "MC-PREF-20260901-00000001", "D", "hard", Place(path, 5), None)])
    anchor_deleted(repo.root, result)
    assert result.changes[0].anchor == Place(path, 0)
    # the diff's own findings (rules/diff/findings.dl) are at the anchor
    ran = run_diff(repo.root, MEM, f"{sha}~1", sha, use_cache=False)
    assert [c.anchor for c in ran.changes if c.cls == "D"] and all(c.anchor == Place(path, 0) for c in ran.changes)
    checked = one_family("diff", ran.status, ran.exit_code, ran.findings)
    github, _ = render("github", checked, Context(str(repo.root)))
    assert f"::notice file={path},title=MA-DIFF-D::" in github
    sarif, _ = render("sarif", checked, Context(str(repo.root)))
    [found] = json.loads(sarif)["runs"][0]["results"]
    assert found["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"}}
    junit, _ = render("junit", checked, Context(str(repo.root)))
    # JUnit carries locations in the case name and output (Jenkins' schema has no file/line)
    assert path in junit and ' line="' not in junit
    markdown, _ = render("markdown", checked, Context(str(repo.root)))
    assert f"[{path}]({path})" in markdown
