"""Repo.blobs reads ``commit:path`` names whose path is not ASCII (git grep's -z output,
decoded with surrogateescape, goes back to Git as the bytes it came as)."""

import os
import shutil
import subprocess

import pytest

from analyzer.history.git import Repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(root, *args):
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=root, env=env,
                   check=True, capture_output=True)


def test_blob_by_a_non_ascii_path(tmp_path):
    area = tmp_path / "docs" / "memory" / "areas"
    area.mkdir(parents=True)
    (area / "café.md").write_bytes("# Café\n".encode("utf-8"))
    (area / "latin.md").write_bytes(b"x\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "one")
    repo = Repo(str(tmp_path))
    name = "HEAD:docs/memory/areas/café.md"
    # the form History.files_matching gives names in (undecodable bytes kept as surrogates)
    raw = name.encode("utf-8").decode("utf-8", "surrogateescape")
    assert repo.blobs([raw, "HEAD:docs/memory/areas/latin.md"]) == {
        raw: "# Café\n".encode("utf-8"), "HEAD:docs/memory/areas/latin.md": b"x\n"}
