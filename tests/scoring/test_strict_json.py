"""strict_json.loads: exactly json.loads for valid documents; a repeated key at any depth is named at its path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.scoring.input_checks import strict_json
from app.scoring.input_checks.messages import NOT_FINITE
from app.scoring.input_checks.strict_json import REPEATED_KEY, UnreadableJson

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
KEYS = st.text(min_size=1, max_size=6)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
DOCUMENTS = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4), max_leaves=25
)


def _objects(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every object in the document with its path."""
    found = [(path, value)] if isinstance(value, dict) else []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in children:
        found += _objects(item, (*path, key))
    return found


def _text_with_repeat(value: Any, target: tuple[Any, ...], path: tuple[Any, ...] = ()) -> str:
    """The document's JSON text, with the object at `target` giving its first key a second time (same value)."""
    if isinstance(value, dict):
        pairs = [f"{json.dumps(k)}: {_text_with_repeat(v, target, (*path, k))}" for k, v in value.items()]
        if path == target:
            key = next(iter(value))
            pairs.append(f"{json.dumps(key)}: {json.dumps(value[key])}")
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_text_with_repeat(v, target, (*path, i)) for i, v in enumerate(value)) + "]"
    return json.dumps(value)


@PROPERTY
@given(document=DOCUMENTS)
def test_a_valid_document_parses_as_json_loads_does(document: Any) -> None:
    text = json.dumps(document)
    assert strict_json.loads(text) == json.loads(text)
    assert strict_json.loads(text.encode()) == json.loads(text.encode())


@PROPERTY
@given(document=DOCUMENTS, data=st.data())
def test_a_repeated_key_at_any_depth_is_named_at_its_path(document: Any, data: st.DataObject) -> None:
    objects = [(path, obj) for path, obj in _objects(document) if obj]
    if not objects:
        document, objects = {"k": document}, [((), {"k": document})]
    path, obj = data.draw(st.sampled_from(objects))
    with pytest.raises(UnreadableJson) as refused:
        strict_json.loads(_text_with_repeat(document, path))
    assert refused.value.problems == [((*path, next(iter(obj))), REPEATED_KEY)]


def test_non_finite_numbers_are_named_where_they_stand() -> None:
    with pytest.raises(UnreadableJson) as refused:
        strict_json.loads('{"a": [1, NaN], "b": {"c": -Infinity, "d": 1e400}, "e": 1e308}')
    assert refused.value.problems == [(("a", 1), NOT_FINITE), (("b", "c"), NOT_FINITE), (("b", "d"), NOT_FINITE)]


def test_malformed_text_is_still_json_loads_own_error() -> None:
    with pytest.raises(json.JSONDecodeError):
        strict_json.loads('{"a": 1,')


def test_a_flood_of_repeats_is_reported_a_bounded_number_of_times() -> None:
    text = "[" + ", ".join(['{"a": 1, "a": 2}'] * 1000) + "]"
    with pytest.raises(UnreadableJson) as refused:
        strict_json.loads(text)
    assert len(refused.value.problems) == strict_json.MAX_PROBLEMS
