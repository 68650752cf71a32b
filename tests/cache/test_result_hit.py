"""A check answered from its result cache does only what the answer needs: it imports no
evaluation (analyzer/query/check.py, with the families, extractors and rules: a hit needs
analyzer/query/check_request.py alone; `report` too), building the
parser loads no vocabulary program (``--fail-on`` and ``--autonomy`` read their choices when
given: analyzer/project/vocab.py ``Choices``) and the secret scanner compiles no pattern
(analyzer/project/extract/secrets.py compiles on first use). Both cost a warm ``check --all``
about a tenth of its CPU against main before issue 26 (docs/performance.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acme-shop"

pytestmark = pytest.mark.cli

PROBE = """
import re
import sys
from analyzer.query import check_cache
hits = []
load = check_cache.load
check_cache.load = lambda *a: hits.append(load(*a)) or hits[-1]
from analyzer.commands.cli import main
rc = main(sys.argv[1:])
from analyzer.project import vocab
from analyzer.project.extract import secrets
print('hit' if hits and hits[-1] is not None else 'miss', rc,
      'vocabulary loaded' if vocab._program.cache_info().currsize else 'no vocabulary',
      'patterns compiled' if any(isinstance(v, re.Pattern) for v in vars(secrets).values()) else 'no patterns',
      file=sys.stderr)
print('evaluation imported' if 'analyzer.query.check' in sys.modules else 'no evaluation', file=sys.stderr)
"""


def _probe(xdg: Path, *args: str, command=("check", "--all")) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, *command, "--project-root", str(EXAMPLE), *args],
                          env=dict(os.environ, XDG_CACHE_HOME=str(xdg), PYTHONPATH=str(REPO)),
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.stdout, done.stderr
    return " ".join(done.stderr.strip().splitlines()[-2:])


def test_a_result_cache_hit_loads_no_vocabulary_and_compiles_no_pattern(tmp_path):
    xdg = tmp_path / "xdg"  # this folder's conftest made it, private
    first = _probe(xdg)
    assert first.startswith("miss ") and first.endswith("vocabulary loaded patterns compiled evaluation imported"), first
    rc = first.split()[1]
    assert _probe(xdg) == f"hit {rc} no vocabulary no patterns no evaluation"
    # an option whose choices are a vocabulary still checks its value against it (same answer)
    assert _probe(xdg, "--fail-on", "never") == "hit 0 vocabulary loaded no patterns no evaluation"
    # the JSON document reads the statuses (its shape), not the rules: still no evaluation
    assert _probe(xdg, "--format", "json") == f"hit {rc} vocabulary loaded no patterns no evaluation"


def test_a_report_answered_from_the_result_cache_imports_no_evaluation(tmp_path):
    """`analyze report` runs its check through analyzer/query/check_request.py ``run_check``
    as `check` does: a result cache hit imports no evaluation either."""
    xdg = tmp_path / "xdg"
    first = _probe(xdg, command=("report",))
    assert first.startswith("miss ") and first.endswith("evaluation imported"), first
    assert _probe(xdg, command=("report",)).endswith(" no evaluation")
