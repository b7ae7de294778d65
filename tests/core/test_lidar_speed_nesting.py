"""``nesting.value_deeper_than`` of a parsed value is ``deeper_than`` of its valid JSON
text, at the bound and around it, for lists, objects, strings full of brackets and a
lidar ``user_state.json``'s shape; and the overlong-integer search, done a slice at a
time, against one search over the whole text."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from app.core.formats.reading import digit_runs, nesting
from app.core.formats.reading.nesting import MAX_DEPTH, deeper_than, json_depth, value_deeper_than


def _nested(depth: int, kind: str) -> Any:
    value: Any = "[{]}\\\"" if kind == "string" else 1
    for level in range(depth):
        value = [value, "]]"] if (kind == "list" or level % 2) else {"k": value, "[": "{"}
    return value


@pytest.mark.parametrize("kind", ["list", "mixed", "string"])
@pytest.mark.parametrize("depth", [0, 1, 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 300])
def test_the_value_s_depth_is_the_text_s(kind: str, depth: int) -> None:
    value = _nested(depth, kind)
    text = json.dumps(value)
    assert json_depth(text) == depth
    for limit in (depth - 1, depth, depth + 1, MAX_DEPTH):
        if limit >= 0:
            assert value_deeper_than(value, limit) == deeper_than(text, limit) == (depth > limit)


def test_a_user_state_shape() -> None:
    answer = json.dumps([{"type": "cuboid_3d", "coordinates": {"center": [1, 2, 3]}}] * 40)
    state = {"user_id": "ana", "instance_id_to_label_to_value": {
        f"sweep-{k}": [[{"schema": "objects", "name": "_data"}, answer]] for k in range(300)}}
    text = json.dumps(state)
    assert json_depth(text) == 5
    assert value_deeper_than(state, 4) and not value_deeper_than(state, 5)
    assert not value_deeper_than(state) and not deeper_than(text)


def _depth_by_pattern(kept: bytes) -> int:
    """The oracle: the count before it was done with a running parity (each pair of
    quotes and what lies between removed by a regular expression, left to right)."""
    import re

    kept = re.sub(rb'"[^"]*"', b"", kept.replace(b'""', b""))
    depth = deepest = 0
    for byte in kept:
        depth += 1 if byte in b"[{" else -1 if byte in b"]}" else 0
        deepest = max(deepest, depth)
    return deepest


@pytest.mark.parametrize("short", [0, 1 << 16])
@pytest.mark.parametrize("seed", range(3))
def test_the_parity_count_is_the_pattern_count(seed: int, short: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``_kept_depth`` both ways (``short`` 0: every text the long way, the quotes' parity
    in numpy; else the C iterators) against the pattern and loop it replaced, on random
    texts of quotes and brackets: paired quotes, an odd quote (broken JSON), empty
    strings, strings of brackets, unbalanced brackets."""
    import random

    from app.core.formats.reading import nesting
    from app.core.formats.reading.nesting import _kept_depth

    monkeypatch.setattr(nesting, "_SHORT", short)

    rng = random.Random(seed)
    for _ in range(5_000):
        alphabet = b'"[]{}' if rng.random() < 0.5 else b'"""[{'
        kept = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert _kept_depth(kept) == _depth_by_pattern(kept), kept


def test_a_long_text_is_counted_as_a_short_one() -> None:
    """A text past the short bound (a whole ``user_state.json``), brackets inside its
    strings, counted the long way: the depth of its value."""
    value = {"a": [_nested(40, "string") for _ in range(600)], "b": "[[[[{{{{"}
    text = json.dumps(value)
    assert len(text) > 1 << 16
    assert json_depth(text) == 42
    assert deeper_than(text, 41) and not deeper_than(text, 42)


def test_the_long_integer_search_by_slices_finds_what_one_search_finds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of digits around the limit, at random places (across slice boundaries
    too), in bytes and in text: the sliced search answers as one search over the whole
    text does."""
    monkeypatch.setattr(digit_runs, "SCAN_SLICE", 97)
    rng = random.Random(41)
    found = 0
    for _ in range(3000):
        parts = []
        for _ in range(rng.randrange(1, 6)):
            parts.append("".join(rng.choice(' ,:"[]{}ab-é') for _ in range(rng.randrange(0, 250))))
            parts.append("7" * rng.choice([1, 19, 299, 300, 301, 302, 650]))
        text = "".join(parts)
        whole = b"0" * (nesting.MAX_INT_DIGITS + 1) in \
            text.encode("utf-8", "surrogatepass").translate(nesting._DIGITS)
        assert nesting.has_long_integer(text) is whole
        assert nesting.has_long_integer(text.encode("utf-8")) is whole
        found += whole
    assert 500 < found < 2500
