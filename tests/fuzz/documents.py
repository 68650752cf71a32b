"""Hypothesis strategies for the documents an untrusted repository (or a CI step) hands the
analyzer besides its memory files: the project configuration (``.memory-analyzer.toml``, a
``[tool.memory-analyzer]`` table) and a ``--baseline`` (check.result / report.result JSON,
SARIF). Issue 32: values of every type where a string or list was expected, nesting far
past any recursion limit, lone surrogates, bytes that are not UTF-8, cut documents.

Each document starts near-valid (the keys and shapes the readers know) and is then bent:
a value replaced by another type, a subtree nested hundreds or thousands deep, a string
turned into a lone surrogate escape, the bytes cut or spoiled.
"""

from __future__ import annotations

import json
import random

from hypothesis import strategies as st

from analyzer.project import config
from analyzer.render.findings import FINGERPRINT_KEY

SEED = st.integers(0, 2**32 - 1)
STRINGS = ["", "json", "sarif", "conflict", "never", "MC-FRESH", "MA-", "a.json", "../b.json", "/dev/zero",
           "docs/memory/manifest.md", ".git/config", "(a+)+$", "x" * 300, "\u2014", "\x00", "\ud800", "\udfff",
           "Alice <a@b>", "0" * 40, "\U0001f600", "\u202e"]
CONFIG_KEYS = sorted(config.KEYS) + ["formt", "Output", "tool", "memory-analyzer", ""]
BASELINE_KEYS = ["schema", "name", "findings", "merge", "runs", "tool", "driver", "results", "partialFingerprints",
                 FINGERPRINT_KEY, "code", "family", "message", "locations", "path", "line", "col", "entries",
                 "scopes", "subject", "facet", "version", "$schema"]


def _scalar(rng: random.Random):
    kind = rng.randrange(7)
    if kind == 0:
        return rng.choice(STRINGS)
    if kind == 1:
        return rng.choice([0, 1, -1, 2**63, -(2**63) - 1, 10**400 if rng.random() < 0.2 else 7])
    if kind == 2:
        return rng.choice([0.5, float("nan"), float("inf"), -0.0, 1e308])
    if kind == 3:
        return rng.random() < 0.5
    if kind == 4:
        return None
    if kind == 5:
        # now and then a lone surrogate (JSON may escape one; UTF-8 and TOML cannot hold it)
        return "".join(chr(rng.randrange(0xD800, 0xE000) if rng.random() < 0.03 else
                           rng.choice([rng.randrange(32, 127), rng.randrange(0x80, 0x3000)]))
                       for _ in range(rng.randrange(6)))
    return rng.choice(STRINGS[:8])


def _value(rng: random.Random, keys, depth: int = 0):
    """A JSON/TOML-like value: scalars, lists and objects over ``keys``, a few levels deep."""
    roll = rng.random()
    if depth > 3 or roll < 0.45:
        return _scalar(rng)
    if roll < 0.75:
        return [_value(rng, keys, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(keys): _value(rng, keys, depth + 1) for _ in range(rng.randrange(4))}


class Deep:
    """``value`` inside ``depth`` lists (or objects, ``{"a": ...}``): written out as text, as
    Python's own writers recurse once per level and would stop before the readers do."""

    def __init__(self, value, depth: int, lists: bool) -> None:
        self.value, self.depth, self.lists = value, depth, lists

    def wrap(self, inner: str, toml: bool) -> str:
        """The nested text around ``inner`` (the value already written)."""
        if self.lists:
            return "[" * self.depth + inner + "]" * self.depth
        return ("{a = " if toml else '{"a": ') * self.depth + inner + "}" * self.depth


def _deep(rng: random.Random, value) -> Deep:
    """``value`` wrapped in hundreds or thousands of lists or objects."""
    return Deep(value, rng.choice([50, 200, 1000, 3000, 20000]), rng.random() < 0.7)


# ---- configuration (TOML) ------------------------------------------------------------------

def _toml(value) -> str:
    """``value`` as a TOML value (strings through JSON escapes, which TOML shares but for
    surrogates, which it refuses: a refusal is an answer too)."""
    if isinstance(value, Deep):
        return value.wrap(_toml(value.value), toml=True)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)) and value == value and value not in (float("inf"), float("-inf")):
        return repr(value)
    if isinstance(value, float):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    if value is None:
        return '""'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def _spoil(rng: random.Random, data: bytes) -> bytes:
    """Now and then: the bytes cut short, a byte that is not UTF-8, a NUL."""
    roll = rng.random()
    if roll < 0.08 and data:
        return data[:rng.randrange(len(data))]
    if roll < 0.12:
        at = rng.randrange(len(data) + 1)
        return data[:at] + rng.choice([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80"]) + data[at:]
    return data


def config_document(rng: random.Random):
    """(bytes, table) of a configuration file: its keys near-valid, then bent."""
    table = rng.choice([(), ("tool", "memory-analyzer")])
    lines = ["[tool.memory-analyzer]"] if table else []
    if table and rng.random() < 0.2:
        lines = ['[project]\nname = "x"', *lines]
    for _ in range(rng.randrange(1, 6)):
        key = rng.choice(CONFIG_KEYS)
        spec = config.KEYS.get(key)
        if spec is not None and rng.random() < 0.5:  # a value of the right kind
            value = {"str": rng.choice(list(spec.allowed()) or STRINGS), "path": rng.choice(STRINGS),
                     "list": [rng.choice(STRINGS) for _ in range(rng.randrange(3))], "bool": True,
                     "int": rng.choice([1, 100, 0, -1, 2**70])}[spec.kind]
        else:
            value = _value(rng, CONFIG_KEYS)
        if rng.random() < 0.15:
            value = _deep(rng, value)
        name = json.dumps(key) if not key.replace("-", "").isalnum() else key
        lines.append(f"{name} = {_toml(value)}")
    if rng.random() < 0.1:
        lines.append(f"[tool.memory-analyzer.{rng.choice(CONFIG_KEYS) or 'x'}]\nx = 1")
    text = "\n".join(lines) + "\n"
    return _spoil(rng, text.encode("utf-8", "surrogatepass")), table


# ---- baselines (JSON, SARIF) ---------------------------------------------------------------

def _finding(rng: random.Random) -> dict:
    return {"code": "X-EXAMPLE-001", "family": "freshness", "message": "m", "entries": ["mc-a"],
            "subject": "", "facet": "", "scopes": ["project"],
            "locations": [{"path": "docs/memory/a.md", "line": rng.randrange(1, 9), "col": 1}]}


def _valid_baseline(rng: random.Random):
    if rng.random() < 0.5:
        return {"ok": True, "status": "FAILED", "schema": {"name": rng.choice(["check.result", "report.result"]),
                                                          "version": 1},
                "findings": [_finding(rng) for _ in range(rng.randrange(3))],
                **({"merge": {"findings": [_finding(rng)]}} if rng.random() < 0.3 else {})}
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "memory-analyzer"}},
                      "results": [{"ruleId": "X-EXAMPLE-001", "partialFingerprints": {FINGERPRINT_KEY: "ab" * 8}}
                                  for _ in range(rng.randrange(3))]}]}


def _bend(rng: random.Random, document):
    """Replace one random subtree of ``document`` by another value (maybe very deep)."""
    if not isinstance(document, (dict, list)) or not document or rng.random() < 0.25:
        value = _value(rng, BASELINE_KEYS)
        return _deep(rng, value) if rng.random() < 0.2 else value
    if isinstance(document, dict):
        key = rng.choice(sorted(document))
        return {**document, key: _bend(rng, document[key])}
    at = rng.randrange(len(document))
    return [*document[:at], _bend(rng, document[at]), *document[at + 1:]]


def baseline_document(rng: random.Random) -> bytes:
    """The bytes of a baseline: a valid document with zero to three subtrees replaced."""
    document = _valid_baseline(rng)
    for _ in range(rng.randrange(4)):
        document = _bend(rng, document)
    deep: list = []

    def placeholder(value):  # json.dumps calls this for a Deep: a token, replaced below
        deep.append(value)
        return f"\x01{len(deep) - 1}\x01"

    ascii_only = rng.random() < 0.5
    text = json.dumps(document, ensure_ascii=ascii_only, default=placeholder)
    while "\x01" in text.replace("\\u0001", "\x01"):
        text = text.replace("\\u0001", "\x01")
        start = text.index('"\x01')
        end = text.index('\x01"', start + 2) + 2
        value = deep[int(text[start + 2:end - 2])]
        inner = json.dumps(value.value, ensure_ascii=ascii_only, default=placeholder)
        text = text[:start] + value.wrap(inner, toml=False) + text[end:]
    return _spoil(rng, text.encode("utf-8", "surrogatepass"))


def configs() -> st.SearchStrategy:
    """Configuration documents: ``(bytes, table)``."""
    return SEED.map(lambda seed: config_document(random.Random(seed)))


def baselines() -> st.SearchStrategy:
    """Baseline documents: bytes."""
    return SEED.map(lambda seed: baseline_document(random.Random(seed)))
