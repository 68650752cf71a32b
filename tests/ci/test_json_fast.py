"""analyzer.core.json_fast writes exactly ``json.dumps(value, indent=2, ensure_ascii=True)``: on
generated documents (strings with brackets, commas, quotes, control and non-ASCII characters,
empty and nested containers, tuples, floats, big integers), on values it leaves to the
standard library, and on a real ``check --format json`` document."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from analyzer.core.json_fast import dumps_indented
from cihelp import EXAMPLE, run_inproc

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12),
                    st.sampled_from(["{", "}", "[]", "{}", ",\n", '"', "\\", "a, b: [c]", "\u00e9\U0001f600"]))
documents = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(st.text(max_size=6), inner, max_size=5)), max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(documents)
def test_same_bytes_as_the_indented_encoder(value):
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=True)


@pytest.mark.parametrize("value", [
    {1: "int key", "b": [1, 2]}, {"a": {None: 1}}, [math.inf, -math.inf], {"deep": [[[]], [{}], [[1, [2]]]]},
    {"x": [True, False, None, 1.5, -0.0]}, "top", 3, [], {},
])
def test_values_left_to_the_standard_library_or_edge_shapes(value):
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=True)


def test_a_value_json_cannot_encode_raises_as_json_does():
    with pytest.raises(TypeError):
        dumps_indented({"a": [object()]})


def test_a_check_document_is_the_same_bytes():
    out, _, _ = run_inproc(["check", "--all", "--format", "json", "--no-cache", "--project-root", str(EXAMPLE)])
    document = json.loads(out)
    assert out == json.dumps(document, indent=2, ensure_ascii=True) + "\n"
    assert dumps_indented(document) + "\n" == out
