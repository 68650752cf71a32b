"""The last points where `check` could differ from the specification (issue 31 item 4), each a
case pair under ``tests/check/spec_points/<point>/<fires|quiet>/``:

- subject-evidence (§9.3): every Subject's Evidence is checked (MC-FRESH-001, any status);
- duplicate-id-archive (§9.4): an Entry ID in a live and an archive file is MC-CONFLICT-008,
  listing the ID once per occurrence; the archive entry is no owner (no MC-CONFLICT-001);
- record-entry-count, record-identity (§7.2): a `superseded`, `exception` or `subject-merged`
  record naming other than two entries, and two records with the same Entries tuple, are
  invalid, one MC-CONFLICT-008 per record with all its reasons and the record's entries;
- exception-on-project (§9.4/§5.10): Exception-To on a project entry is both MC-CONFLICT-006
  findings plus the relation-level MC-CONFLICT-008;
- structural-without-subject (§5.6/§9.4): an active structural entry without Subject is
  MC-CONFLICT-005 as well as MC-CONFLICT-007.

A case is a corpus-style project (tests/corpus/corpus_project.py builds it over the corpus's
base project) plus ``expect.json``: the `check` arguments, the codes the case is about and the
exact findings of those codes (code, message, entries) in output order; none in a quiet case.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "corpus"))
import inprocess  # noqa: E402
from corpus_project import build_project  # noqa: E402

CASES = sorted(p for p in (HERE / "spec_points").glob("*/*") if (p / "expect.json").is_file())


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_spec_point(case: Path, tmp_path: Path):
    """The case's findings of its codes are exactly the expected ones."""
    expect = json.loads((case / "expect.json").read_text(encoding="utf-8"))
    root = build_project(case, tmp_path / "project")
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_STATE_HOME=str(tmp_path / "state"), PYTHONPATH=str(REPO))
    proc = inprocess.run(["check", *expect["argv"], "--format", "json",
                          "--no-cache", "--project-root", str(root)], capture_output=True, text=True, env=env,
                         timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    result = json.loads(proc.stdout)
    shown = [[f["code"], f["message"], f["entries"]] for f in result["findings"] if f["code"] in expect["codes"]]
    assert shown == expect["findings"]
    assert proc.returncode == (1 if case.name == "fires" else 0)


def test_every_point_has_both_cases():
    """Each spec point folder holds a firing and a quiet case."""
    points = {p.parent.name for p in CASES}
    assert points and all((HERE / "spec_points" / p / o / "expect.json").is_file()
                          for p in points for o in ("fires", "quiet"))
