"""The piecewise JSON reader gives exactly what ``json.loads`` gives, errors included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InputError
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
