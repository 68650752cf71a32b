"""Touched paths read the way git reads them (issue 25 item 3): relative to the directory the
command runs in, a directory selecting what a file under it would, and a hint for an absolute
or `..` path the protocol refuses."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inprocess
from analyzer.engine.glob import glob_match, glob_match_under, glob_valid
from analyzer.project.root import absolute_path_hint, paths_from_cwd


def analyze(cwd, *args):
    return inprocess.run(["read", "--task", "implementation", "--no-local",
                          "--names-only", *args], cwd=cwd, capture_output=True, text=True)


def loaded(out):
    lines = out.stdout.split("Loaded:\n", 1)[1].split("Skipped optional:", 1)[0]
    return [line[2:] for line in lines.splitlines()]


def test_relative_to_the_current_directory(acme):
    sub = acme / "web" / "src"
    sub.mkdir(parents=True, exist_ok=True)
    out = analyze(sub, "--path", "cart.ts")
    assert "- web/src/cart.ts" in out.stdout and "areas/web.md" in loaded(out)


def test_a_directory_selects_what_a_file_under_it_would(acme):
    (acme / "web").mkdir(exist_ok=True)
    assert "areas/web.md" in loaded(analyze(acme, "--path", "web"))
    # a path that does not exist is not a directory: it matches as written, as before
    assert "areas/web.md" not in loaded(analyze(acme, "--path", "nowhere"))


def test_absolute_path_stays_invalid_with_a_hint(acme):
    out = analyze(acme, "--path", str(acme / "web" / "src" / "cart.ts"))
    assert out.returncode == 2 and "Routing completeness: INVALID" in out.stdout
    assert "hint: --path" in out.stderr and "--path web/src/cart.ts" in out.stderr


def test_a_dotdot_path_stays_invalid_with_a_hint(acme):
    """From docs/memory, `../../web/src/cart.ts` is refused as the protocol says (a `..`
    segment), and stderr names what to type instead, as for an absolute path (it said nothing)."""
    out = analyze(acme / "docs" / "memory", "--path", "../../web/src/cart.ts")
    assert out.returncode == 2 and "Routing completeness: INVALID" in out.stdout
    assert ("hint: --path ../../web/src/cart.ts has a `..` segment; paths are relative to the project root: "
            "--path web/src/cart.ts") in out.stderr
    outside = analyze(acme / "docs" / "memory", "--path", "../../../elsewhere.ts")
    assert outside.returncode == 2 and "hint:" not in outside.stderr


def test_protocol_refused_forms_pass_through(tmp_path):
    root = tmp_path / "p"
    (root / "a" / "b").mkdir(parents=True)
    here = str(root / "a" / "b")
    typed = ["x.ts", "./y.ts", "../z.ts", "/abs", "c\\d", "", "e/./f"]
    assert paths_from_cwd(typed, str(root), cwd=here) == \
        ["a/b/x.ts", "a/b/y.ts", "../z.ts", "/abs", "c\\d", "", "e/./f"]
    assert paths_from_cwd(typed, str(root), cwd=str(root)) == typed  # at the root: as typed
    assert paths_from_cwd(typed, str(root), cwd=str(tmp_path)) == typed  # outside: as typed
    assert absolute_path_hint(str(root / "a" / "x"), str(root)) == "a/x"
    assert absolute_path_hint(str(tmp_path / "elsewhere"), str(root)) is None
    assert absolute_path_hint("a/x", str(root)) is None
    assert absolute_path_hint("../x", str(root), cwd=here) == "a/x"
    assert absolute_path_hint("a/../b", str(root), cwd=str(tmp_path)) == "b"  # outside: from the root
    assert absolute_path_hint("../../../x", str(root), cwd=here) is None


@pytest.mark.parametrize("glob, directory, expected", [
    ("web/**", "web", True), ("web/**", "web/src", True), ("**/*.ts", "web", True),
    ("web/src/*.ts", "web", True), ("web/src/*.ts", "web/src/x", False), ("api/**", "web", False),
    ("web", "web", False), ("*.md", "docs", False), ("a/*/c", "a", True), ("a/*/c", "a/x/y", False),
    ("a/**/c", "a/x/y", True), ("web/[x]/**", "web", False),
])
def test_glob_match_under(glob, directory, expected):
    assert glob_match_under(glob, directory) is expected


SEG = st.sampled_from(["a", "b", "ab", "*", "?", "a*", "**"])
NAME = st.sampled_from(["a", "b", "ab", "ba", "x"])


@settings(max_examples=300, deadline=None)
@given(st.lists(SEG, min_size=1, max_size=4), st.lists(NAME, min_size=1, max_size=3),
       st.lists(NAME, min_size=1, max_size=3))
def test_any_match_below_a_directory_is_seen(glob_segs, dir_segs, rest):
    glob, directory = "/".join(glob_segs), "/".join(dir_segs)
    if glob_valid(glob) is None and glob_match(glob, f"{directory}/{'/'.join(rest)}"):
        assert glob_match_under(glob, directory)


@settings(max_examples=300, deadline=None)
@given(st.lists(SEG, min_size=1, max_size=4), st.lists(NAME, min_size=1, max_size=3))
def test_a_directory_under_a_glob_has_a_witness(glob_segs, dir_segs):
    # soundness: when the answer is yes, some short path below the directory matches
    glob, directory = "/".join(glob_segs), "/".join(dir_segs)
    if glob_valid(glob) is None and glob_match_under(glob, directory):
        names = ["a", "b", "ab", "ba", "x"]
        below = [[n] for n in names] + [[m, n] for m in names for n in names] + \
                [[m, n, o] for m in names for n in names for o in names]
        assert any(glob_match(glob, f"{directory}/{'/'.join(p)}") for p in below)
