"""The piecewise JSON reader gives exactly what ``json.loads`` gives, errors included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InputError
from app.core.formats.reading import json_file
from app.core.formats.reading.json_file import read_json, read_json_in_pieces

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(value=values, indent=st.sampled_from([None, 0, 2, "\t"]),
       separators=st.sampled_from([None, (",", ":"), (" , ", " : ")]))
def test_same_value_as_json_loads(tmp_path_factory: pytest.TempPathFactory, value: object,
                                  indent: int | str | None,
                                  separators: tuple[str, str] | None) -> None:
    path = tmp_path_factory.mktemp("j") / "state.json"
    text = json.dumps(value, indent=indent, separators=separators)
    path.write_text(f"  {text}\n", encoding="utf-8")
    assert read_json_in_pieces(path) == json.loads(text)


def test_duplicate_keys_later_wins_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    text = '{"a": {"x": 1, "x": 2}, "a": {"y": {"z": [1, {"k": 3}]}}}'
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert read_json_in_pieces(path) == json.loads(path.read_bytes())


@pytest.mark.parametrize("text", [
    '{"a": {"b": 1,}}', '{"a" 1}', '{"a": {"b": [1, 2}}', '{"a": 1} trailing',
    '{"a": {"b": 1}', "", '{"a": {"b": tru}}', "{'a': 1}", '{"a": 1 "b": 2}',
])
def test_malformed_files_get_the_same_message_as_read_json(tmp_path: Path, text: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(f"\n{text}\n", encoding="utf-8")
    with pytest.raises(InputError) as piecewise:
        read_json_in_pieces(path)
    with pytest.raises(InputError) as whole:
        read_json(path)
    assert str(piecewise.value) == str(whole.value)
    assert piecewise.value.line == whole.value.line


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(st.text(max_size=5), values, max_size=6),
       piece=st.integers(min_value=1, max_value=12),
       indent=st.sampled_from([None, 2]),
       encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32-le"]))
def test_the_same_value_whatever_the_decoded_pieces(
        tmp_path_factory: pytest.TempPathFactory, value: dict[str, object], piece: int,
        indent: int | None, encoding: str) -> None:
    """The text is decoded a few bytes at a time, so piece ends fall inside keys, numbers
    (``1.5e+10`` cut after ``1.5e``), escapes and multi-byte characters; the value is still
    exactly json.loads's."""
    path = tmp_path_factory.mktemp("j") / "state.json"
    text = json.dumps({"numbers": {"a": 1.5e+300, "b": -12345678901234, "c": [1e-5]},
                       "v": value, "é": {"ü": "\U0001f600 \\u0041", "n": 10}},
                      indent=indent, ensure_ascii=False)
    path.write_bytes(text.encode(encoding))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_file, "PIECE_BYTES", piece)
        assert read_json_in_pieces(path) == json.loads(path.read_bytes())


@pytest.mark.parametrize("piece", [1, 3, 1 << 20])
@pytest.mark.parametrize("data", [
    b'{"a": {"b": 1, "c": 12}}', b'{"a": {"b": 12', b'{"a": {"b": 1.5e+', b'{"a": 1}  x',
    b'{"a": {"b": "\xff"}}', b'{"a": {"b": 1,}, "c": "\xff"}', b"   ", b'{"a": {"b": [1, 2}}',
])
def test_pieces_give_the_same_value_or_error_as_read_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, piece: int, data: bytes) -> None:
    """Errors included: bytes that are not UTF-8 anywhere in the file are that error (as
    when the whole file was decoded first), whatever JSON error comes before them."""
    monkeypatch.setattr(json_file, "PIECE_BYTES", piece)
    path = tmp_path / "state.json"
    path.write_bytes(data)
    if b"\xff" in data:
        with pytest.raises(InputError, match="not UTF-8 text; expected a JSON file"):
            read_json_in_pieces(path)
        return
    try:
        expected: object = read_json(path)
    except InputError as whole:
        with pytest.raises(InputError) as piecewise:
            read_json_in_pieces(path)
        assert (str(piecewise.value), piecewise.value.line) == (str(whole), whole.line)
    else:
        assert read_json_in_pieces(path) == expected
