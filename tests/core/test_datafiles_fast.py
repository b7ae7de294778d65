"""The fast ``.jsonl`` items reader gives exactly what the line-by-line reader gives, or
falls back to it (so errors still name the line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core import sharded
from app.core.errors import InputError
from app.core.formats.potato.datafiles import (
    _jsonl_fast,
    _jsonl_lines,
    common_items,
    iter_records,
)
from app.core.formats.potato.project import load_study
from app.core.formats.reading.json_lines import CHUNK_BYTES, loads_line_bytes, loads_lines
from app.core.model import Item
from tests.potato_project import label, write_project

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


# ----------------------------------------------------------- loads_line_bytes, items


@pytest.mark.parametrize("text", [*CASES, '{"a": 1}, {"b": 2}\n{"c": 3}', '{"a": NaN}\n{"b": 1}',
                                  '{"a": "\\ud800"}\n{"a": 1e999}', '{"a": }\n{"b": 1}'])
def test_line_bytes_parse_as_loads_lines(text: str) -> None:
    """The bytes reader against the line strings it replaces (json.loads per line)."""
    body = text.rstrip("\n").encode("utf-8")
    lines = text.rstrip("\n").split("\n")
    expected = loads_lines(lines)
    assert repr(loads_line_bytes(body)) == repr(expected)
    if expected is not None:
        assert expected == [json.loads(line) for line in lines]


def test_line_bytes_chunks_end_at_newlines() -> None:
    lines = [json.dumps({"id": f"r{k}", "v": k / 7}) for k in range(100_000)]
    body = "\n".join(lines).encode("utf-8")
    assert len(body) > 2 * CHUNK_BYTES
    assert loads_line_bytes(body) == [json.loads(line) for line in lines]


def _loop_items(records: list[dict[str, object]], text_key: str | None) -> dict[str, Item]:
    """The per-record loop of the reader (the oracle): a str id once, a str text."""
    out: dict[str, Item] = {}
    for record in records:
        text = record.get(text_key) if text_key else None
        out[str(record["id"])] = Item(str(record["id"]), record,
                                      text if isinstance(text, str) else None)
    return out


@pytest.mark.parametrize("keys_per_dict", [1 << 16, 1000])
@pytest.mark.parametrize("text_key", [None, "text"])
def test_common_items_are_the_loop_items(text_key: str | None, keys_per_dict: int,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """At one dict and at 32 (``app.core.sharded``): the loop's items, in its order."""
    monkeypatch.setattr(sharded, "SHARD_KEYS", keys_per_dict)
    records: list[dict[str, object]] = [
        {"id": f"r{k}", "text": f"t{k}" if k % 3 else 5, "x": [k]} for k in range(30_000)]
    records[7].pop("text")
    got = common_items(records, "id", text_key)
    assert got is not None
    expected = _loop_items(records, text_key)
    assert list(got) == list(expected) and got == expected
    assert all(got[k].record is expected[k].record for k in got)


@pytest.mark.parametrize("change", [{"id": ""}, {"id": None}, {"id": 3}, {"id": "r1"}])
def test_uncommon_ids_go_to_the_loop(change: dict[str, object]) -> None:
    records: list[dict[str, object]] = [{"id": f"r{k}"} for k in range(10)]
    records[5] = {**records[5], **change}
    assert common_items(records, "id", None) is None
    assert common_items([{"x": 1}], "id", None) is None


def test_the_study_reader_names_a_repeated_id(tmp_path: Path) -> None:
    write_project(tmp_path, schemes=[
        {"annotation_type": "radio", "name": "s", "labels": ["a", "b"]}],
        items=[{"id": f"i{k}", "text": "x"} for k in range(20)] + [{"id": "i3", "text": "y"}],
        annotators={"ann": {"i0": [label("s", "a")]}})
    with pytest.raises(InputError) as caught:
        load_study(tmp_path)
    assert caught.value.line == 21 and "appears twice" in str(caught.value)


def test_the_study_reader_keeps_the_records(tmp_path: Path) -> None:
    items = [{"id": f"i{k}", "text": f"t{k}", "n": k} for k in range(50)]
    write_project(tmp_path, schemes=[
        {"annotation_type": "radio", "name": "s", "labels": ["a", "b"]}],
        items=items, annotators={"ann": {"i0": [label("s", "a")]}})
    study = load_study(tmp_path)
    assert study.items == _loop_items(items, "text")  # type: ignore[arg-type]


@pytest.mark.parametrize("second", ['{"id": "x1", "steps": [1]}\n{"id": "x2"}\n',
                                    '{"id": "x1"}\n{"id": "x2"}\n'])
def test_items_of_a_second_data_file_follow_the_first(tmp_path: Path, second: str) -> None:
    """A common first file gives a sharded map; a second file, common or read line by
    line, adds its items after the first's, and a repeated id is still named."""
    items = [{"id": f"i{k}", "text": f"t{k}"} for k in range(50)]
    write_project(tmp_path, schemes=[
        {"annotation_type": "radio", "name": "s", "labels": ["a", "b"]}],
        items=items, annotators={"ann": {"i0": [label("s", "a")]}},
        extra_config={"data_files": ["data/items.jsonl", "data/more.jsonl"]})
    (tmp_path / "data" / "more.jsonl").write_text(second)
    study = load_study(tmp_path)
    more = [json.loads(line) for line in second.splitlines()]
    assert list(study.items) == [*(f"i{k}" for k in range(50)), "x1", "x2"]
    assert study.items == _loop_items([*items, *more], "text")  # type: ignore[arg-type]
    (tmp_path / "data" / "more.jsonl").write_text(second.replace("x2", "i7"))
    with pytest.raises(InputError) as caught:
        load_study(tmp_path)
    assert "'i7' appears twice" in str(caught.value)
