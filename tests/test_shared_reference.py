"""The one place a clone without ../shared reports the cross-checks it does not run.

With ../shared beside the clone every test marked ``shared_reference`` runs, and this test
checks that the files they read are there (a cross-check that found nothing to compare with
would pass while checking nothing). Without it tests/conftest.py deselects them and this test
is the run's one skip for all of them, with their count.
"""

from __future__ import annotations

import pytest

from shared_reference import FILES, PRESENT, REASON, SHARED


def test_the_reference_material_is_beside_this_clone(request):
    """../shared holds what the cross-checks read; or one skip names what is missing."""
    if not PRESENT:
        left_out = getattr(request.config, "_shared_reference_left_out", 0)
        # a scenario runner's cases are read from ../shared: without it each runner counts once
        pytest.skip(f"{REASON}: {left_out} cross-checks deselected, each scenario runner counted once")
    assert [name for name in FILES if not (SHARED / name).exists()] == []
