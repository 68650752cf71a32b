"""A CI-sized run of the document fuzzers (issue 32, item 5): configuration and baseline
documents of any types and depth are answered or refused with their own error (MA-CONFIG-…
at a line of the file, MA-BASELINE naming the file), never with another exception."""

from __future__ import annotations

import argparse

from hypothesis import HealthCheck, given, settings

from analyzer.project import config
from analyzer.commands import gating

from .documents import baselines, configs

CI = settings(max_examples=400, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@CI
@given(configs())
def test_configuration_documents_are_read_or_refused_at_a_line(document):
    raw, table = document
    try:
        loaded = config.parse(raw, "f.toml", table)
    except config.ConfigError as exc:
        assert exc.code.startswith("MA-CONFIG-") and exc.path == "f.toml"
        assert 1 <= exc.line <= raw.count(b"\n") + 1 and exc.col >= 1, (exc, raw[:200])
        return
    assert "output" not in loaded.values  # the project never names a file to write
    for key, value in loaded.values.items():
        spec = config.KEYS[key]
        assert isinstance(value, list if spec.kind == "list" else (int if spec.kind == "int" else str))
        for command in spec.commands:
            args = argparse.Namespace(project_root="/p")
            config.apply(args, command, loaded)


@CI
@given(baselines())
def test_baseline_documents_are_read_or_refused(data):
    try:
        known = gating.parse_baseline(data, "b.json")
    except gating.BaselineError as exc:
        assert str(exc).startswith("b.json: "), exc
        return
    for fingerprint in known:
        assert isinstance(fingerprint, str)
        fingerprint.encode("utf-8")  # no lone surrogate reaches a comparison or an output
