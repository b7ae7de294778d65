"""orjson where it is certainly ``json.loads``: the same values and the same errors.

:func:`app.core.formats.reading.nesting.standard_loads` parses with orjson and falls back to
``json.loads`` wherever orjson refuses a text or might read it differently (an integer
past 64 bits). The reference here is ``json.loads`` itself, compared by ``repr`` (which
tells ``1`` from ``1.0`` and ``True``, keeps dict order and every float's bits).
"""

from __future__ import annotations

import json
import random
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InputError
from app.core.formats.reading import nesting
from app.core.formats.reading.json_file import read_json_in_pieces

scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=2**62)
           | st.integers(max_value=-(2**62)) | st.floats() | st.text())
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=30)

TRICKY = [
    '{"a": 1, "a": 2, "b": 3}', '{"b": 1, "a": 2, "b": 3}', "NaN", "[Infinity, -Infinity]",
    "[1e400]", "[-1e400]", "[1e-400]", "[-0]", "[-0.0]", "[18446744073709551615]",
    "[18446744073709551616]", "[-9223372036854775808]", "[-9223372036854775809]",
    "[" + "9" * 30 + "]", "[0." + "1" * 40 + "]", '["\\ud800"]', '["\\udc00\\ud800"]',
    '["\\ud83d\\ude00"]', "\ufeff{}", '["\x00"]', '["\x1f"]', '["\x7f"]',
    "[1.7976931348623157e308]", "[1.7976931348623159e308]",
    "[4.9406564584124654e-324]", "[2.4703282292062327e-324]",
    "[01]", "[1.]", "[.5]", "[+1]", " [1] ", "[1]\x0c", "[1,]", '{"a": 1,}', '"\\u0000"',
    '["\u2028"]', "\u00a0[1]", '["\\x41"]', "['a']", "", " ", "[1] [2]", '{"a" 1}',
    "[" * 50 + "]" * 50, '["\ud800"]',
]


def outcome(parse: object, text: str | bytes) -> tuple[str, str]:
    try:
        return "value", repr(parse(text))  # type: ignore[operator]
    except (ValueError, RecursionError) as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_texts_give_json_loads_values_and_errors(text: str) -> None:
    assert outcome(nesting.standard_loads, text) == outcome(json.loads, text)
    data = text.encode("utf-8", "surrogatepass")
    assert outcome(nesting.standard_loads, data) == outcome(json.loads, data)


@pytest.mark.parametrize("data", [b"\xef\xbb\xbf{}", "{}".encode("utf-16"),
                                  '{"a": [1]}'.encode("utf-32"), b"[1]\xff",
                                  b'["\xed\xa0\x80"]'])
def test_bytes_in_other_encodings_or_broken_utf8(data: bytes) -> None:
    assert outcome(nesting.standard_loads, data) == outcome(json.loads, data)


@settings(max_examples=300, deadline=None)
@given(value=values)
def test_random_values_read_as_json_loads_reads_them(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        assert outcome(nesting.standard_loads, text) == outcome(json.loads, text)


def test_floats_read_to_the_same_bits() -> None:
    rng = random.Random(20261202)
    numbers = []
    for _ in range(20_000):
        x = struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
        if x == x and abs(x) != float("inf"):
            numbers.append(repr(x))
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
        exponent = rng.choice(["", f"e{rng.randint(-330, 310)}", f"E+{rng.randint(0, 20)}"])
        numbers.append(f"{rng.choice(['', '-'])}{rng.randint(0, 999)}.{digits}{exponent}")
    for start in range(0, len(numbers), 500):
        text = "[" + ", ".join(numbers[start:start + 500]) + "]"
        assert outcome(nesting.standard_loads, text) == outcome(json.loads, text)


@settings(max_examples=150, deadline=None)
@given(value=values)
def test_a_whole_file_reads_as_the_pieces_do(tmp_path_factory: pytest.TempPathFactory,
                                             value: object) -> None:
    path = tmp_path_factory.mktemp("j") / "user_state.json"
    path.write_text(json.dumps({"user_id": "a", "labels": {"x": value}}), encoding="utf-8")
    assert repr(read_json_in_pieces(path, whole=True)) == repr(read_json_in_pieces(path))


@pytest.mark.parametrize("text", [
    '{"a": {"b": 1,}}', '{"a": 1} trailing', "", '{"a": [NaN, 1e999]}', '{"a": {"a": 1, "a": 2}}',
    '{"a": ' + "[" * 99 + "]" * 99 + "}", '{"a": ' + "[" * 100 + "]" * 100 + "}",
    '{"a": ' + "[" * 2000 + "]" * 2000 + "}", '{"n": ' + "7" * 301 + "}",
    '{"n": ' + "7" * 40 + "}", '["top", "level"]',
])
def test_whole_files_give_the_same_values_and_errors(tmp_path: Path, text: str) -> None:
    path = tmp_path / "user_state.json"
    path.write_text(text, encoding="utf-8")

    def read(whole: bool) -> tuple[str, str]:
        try:
            return "value", repr(read_json_in_pieces(path, whole=whole))
        except InputError as exc:
            return "error", str(exc)

    assert read(True) == read(False)


def _bounded_reference(text: str | bytes) -> object:
    """What ``nesting.loads`` was before orjson: ``check_json``, then ``json.loads``."""
    nesting.check_json(text, file="answer.json", key="k")
    return json.loads(text)


@pytest.mark.parametrize("text", [*TRICKY, "[" + "1" * 301 + "]", "[-" + "2" * 400 + "]",
                                  '["' + "3" * 400 + '"]', "[" * 101 + "]" * 101,
                                  "[" * 100 + "]" * 100, '{"a": [1, 2], "b": {"c": null}}'])
def test_bounded_loads_is_check_json_then_json_loads(text: str) -> None:
    def read(parse: object, data: str | bytes) -> tuple[str, str]:
        try:
            return "value", repr(parse(data))  # type: ignore[operator]
        except InputError as exc:
            return "input", str(exc)
        except (ValueError, RecursionError) as exc:
            return type(exc).__name__, str(exc)

    def bounded(data: str | bytes) -> object:
        return nesting.loads(data, file="answer.json", key="k")

    for data in (text, text.encode("utf-8", "surrogatepass")):
        assert read(bounded, data) == read(_bounded_reference, data)


@settings(max_examples=200, deadline=None)
@given(value=values, pad=st.integers(min_value=0, max_value=70_000))
def test_long_texts_are_bounded_as_short_ones(value: object, pad: int) -> None:
    """deeper_than counts a long text's brackets in its stripped form: the same answer."""
    for depth in (0, 50, 99, 100, 101, 150):
        text = "[" * depth + json.dumps(value) + " " * pad + "]" * depth
        expected = nesting.json_depth(text) > nesting.MAX_DEPTH
        assert nesting.deeper_than(text) is expected
        assert nesting.deeper_than(text.encode("utf-8", "surrogatepass")) is expected
