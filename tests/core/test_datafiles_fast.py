"""The fast ``.jsonl`` items reader gives exactly what the line-by-line reader gives, or
falls back to it (so errors still name the line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.errors import InputError
from app.core.formats.potato.datafiles import _jsonl_fast, _jsonl_lines, iter_records

CASES = [
    '{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n',
    '{"id": "a"}\n{"id": "b"}',                      # no last newline
    '{"id": "a"}\r\n{"id": "b"}\r\n',                # CRLF: line reader
    '{"id": "a"}\r{"id": "b"}\r',                    # bare CR: universal newlines
    '\ufeff{"id": "a"}\n',                           # BOM: line reader's message
    '{"id": "a"}\n\n{"id": "b"}\n',                  # blank line keeps numbering
    '{"id": "a", "steps": [1, 2]}\n{"id": "b"}\n',   # a bracket: line reader
    '{"id": "a"} \n{"id": "b"}\t\n',                 # trailing spaces are JSON whitespace
    '{"id": "a\\n,"}\n{"id": "b"}\n',                # escaped newline inside a string
]


@pytest.mark.parametrize("text", CASES)
def test_same_records_and_lines_as_the_line_reader(tmp_path: Path, text: str) -> None:
    path = tmp_path / "items.jsonl"
    path.write_bytes(text.encode("utf-8"))
    try:
        expected: list[object] = list(_jsonl_lines(path))
    except InputError as exc:
        with pytest.raises(InputError) as got:
            list(iter_records(path))
        assert str(got.value) == str(exc)
        return
    assert list(iter_records(path)) == expected


@pytest.mark.parametrize("text", [
    '{"id": "a"}\n{"id": "b"} {"id": "c"}\n',      # two objects on a line
    '{"id": "a"}, {"id": "b"}\n{"id": "c"}\n',     # a top-level comma inside a line
    '{"id": "a",\n"text": "x"}\n',                  # one object over two lines
    '{"id": "a"}\n{"id": \n',                       # truncated
    '{"id": "a"}\n"just a string"\n',
])
def test_anything_else_falls_back_with_the_line_named(tmp_path: Path, text: str) -> None:
    path = tmp_path / "items.jsonl"
    path.write_bytes(text.encode("utf-8"))
    assert _jsonl_fast(text.encode("utf-8")) is None
    with pytest.raises(InputError) as got:
        list(iter_records(path))
    assert "line" in str(got.value)


def test_the_common_file_takes_the_fast_path(tmp_path: Path) -> None:
    records = [{"id": f"r{i}", "text": f"Review {i}.", "n": i / 3} for i in range(500)]
    data = "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")
    assert _jsonl_fast(data) == records
    path = tmp_path / "items.jsonl"
    path.write_bytes(data)
    assert list(iter_records(path)) == list(enumerate(records, start=1))
