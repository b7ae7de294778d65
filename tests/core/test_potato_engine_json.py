"""engine.sqlite's stored JSON against ``json.loads`` (the reader it replaced): the same
value, or the text itself where ``json.loads`` fails or nesting's bounds refuse it; a
column's parser shares only immutable values between rows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.core.formats.potato.engine.json_cells import json_column, stored_json
from app.core.formats.reading.nesting import within_bounds


def _reference(text: Any) -> Any:
    """engine_store's ``_json`` before msgspec."""
    if text is None:
        return None
    try:
        return json.loads(text) if within_bounds(text) else text
    except (TypeError, ValueError, RecursionError):
        return text


CASES: list[Any] = [
    None, '"positive"', "3", "-0", "-0.0", "2.5", "1e999", "NaN", "-Infinity", "true", "null",
    '"\\ud800"', '"\\ud83d\\ude00"', '{"a": 1, "a": 2, "b": [1, 2]}', "[1, 2, 3]",
    "123456789012345678901234567890", "1" * 5000, "[" * 200 + "]" * 200, "not json", "",
    "\ufeff1", " 7 ", b'"bytes"', b"\xef\xbb\xbf1", 5, 2.5, "0.1000000000000000055511151231257827",
]


def _outcome(read: Any, text: Any) -> tuple[str, str]:
    """(type, repr) of the value, or of the exception, as each reader ends."""
    try:
        value = read(text)
    except Exception as exc:  # a number as stored: both fail alike
        return "raised", type(exc).__name__
    return type(value).__name__, repr(value)


@pytest.mark.parametrize("text", CASES)
def test_stored_json_is_the_old_reader(text: Any) -> None:
    assert _outcome(stored_json, text) == _outcome(_reference, text)


def test_a_column_parses_each_row_as_the_old_reader() -> None:
    parse = json_column()
    for text in CASES * 3:
        assert _outcome(parse, text) == _outcome(_reference, text)


def test_a_column_never_shares_a_list_or_an_object() -> None:
    parse = json_column()
    first, second = parse('{"a": [1]}'), parse('{"a": [1]}')
    assert first == second and first is not second
    assert parse("[1]") is not parse("[1]")
