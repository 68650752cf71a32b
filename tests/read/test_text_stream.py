"""``analyze read`` writes its text report line by line (analyzer/render/read_text.py
``read_text_lines``): the same bytes as the whole rendered report, without first joining
it into one string (a report whose findings list every ID of a large file is tens of
megabytes, and the joined copies tripled its memory)."""

from __future__ import annotations

import contextlib
import io

from analyzer.commands import cli
from analyzer.query.read import ReadRequest, run_read
from analyzer.render.read_text import render_read_text


class _Recorder(io.StringIO):
    """A stdout that remembers the length of every write."""

    def __init__(self):
        super().__init__()
        self.sizes = []

    def write(self, text):
        self.sizes.append(len(text))
        return super().write(text)


def _bare_entries(root, count: int) -> None:
    # active entries without Subject and Facet: each finding lists the file's IDs
    memory = root / "docs" / "memory"
    units = [f"## MC-DEC-20260101-{i:08x} — decision {i}\n\nStatus: active\nScope: project\n"
             f"Evidence:\n- user-confirmed\n\nDecision:\nUse approach {i}.\n\n" for i in range(count)]
    (memory / "decisions.md").write_text("# Decisions\n\n" + "".join(units), encoding="utf-8")


def _read(root, *extra):
    out = _Recorder()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = cli.main(["read", "--project-root", str(root), "--task", "implementation",
                           "--path", "web/src/cart.ts", "--no-cache", *extra])
    return status, out


def test_streamed_report_equals_the_rendered_one(acme):
    _bare_entries(acme, 60)
    for extra in ((), ("--explain",), ("--names-only",), ("--explain", "--names-only")):
        status, out = _read(acme, *extra)
        request = ReadRequest(task="implementation", paths=("web/src/cart.ts",), project_root=acme,
                              use_cache=False)
        result, _db, _project = run_read(request)
        expected = render_read_text(result, explain="--explain" in extra, names_only="--names-only" in extra)
        assert out.getvalue() == expected, extra
        assert status == result.exit_code


def test_no_write_holds_the_whole_report(acme):
    _bare_entries(acme, 60)
    _status, out = _read(acme, "--names-only")
    text = out.getvalue()
    longest = max(len(line) for line in text.split("\n"))
    assert len(out.sizes) > 2
    assert max(out.sizes) <= longest < len(text) // 2
