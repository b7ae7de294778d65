"""The whole-file JSON Lines reader gives exactly what the per-line reader gives."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from app.core.errors import InputError
from app.core.formats.reading.json_lines import iter_json_lines, read_json_lines


def _both(path: Path, data: bytes) -> list[tuple[int, dict[str, object]]]:
    path.write_bytes(data)
    fast = read_json_lines(path)
    assert fast == list(iter_json_lines(path))
    return fast


def test_random_files_agree(tmp_path: Path) -> None:
    rng = random.Random(3)
    for trial in range(30):
        lines = []
        for k in range(rng.randint(0, 40)):
            obj = {"item": f"i{k}", "x": rng.choice([1, 2.5, "é", None, True, {"a": "}"}])}
            lines.append(rng.choice(["", "  ", json.dumps(obj)]))
        end = rng.choice(["\n", "\r\n"])
        text = ("\ufeff" if trial % 3 == 0 else "") + end.join(lines) + rng.choice(["", end])
        _both(tmp_path / "f.jsonl", text.encode())


@pytest.mark.parametrize("text", [
    # Two lines that only parse together, and a line of two objects: per-line errors.
    '{"a":[[{}\n{}]]}\n{"b":1}],[{"c":2}\n',
    '{"a":1}\n{"b":\n',                 # truncated last line
    '{"a":1}\n[1, 2]\n',                # not an object
    '{"a":1}\n{"a": tru}\n{"b":2}\n',   # malformed in the middle
    '{"a":1} {"b":2}\n',
    '{"a":"}\n{"b":1}\n',              # a string that would run across the join
    '{"a":{}\n"b":1}\n{},{}\n',        # lines that only parse together, two on one line
])
def test_bad_files_give_the_per_line_message(tmp_path: Path, text: str) -> None:
    path = tmp_path / "f.jsonl"
    path.write_text(text)
    with pytest.raises(InputError) as fast:
        read_json_lines(path)
    with pytest.raises(InputError) as slow:
        list(iter_json_lines(path))
    assert str(fast.value) == str(slow.value)
    assert fast.value.line is not None


def test_the_fast_path_parses_in_chunks_the_same_objects(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of CHUNK_LINES lines (so no single json.loads holds the interpreter lock for
    a whole file) give what the line reader gives, across chunk edges and with blank lines;
    an error in a later chunk still falls back and is named at its line."""
    import app.core.formats.reading.json_lines as json_lines

    monkeypatch.setattr(json_lines, "CHUNK_LINES", 7)
    rows = [json.dumps({"id": k, "text": f"{{not a bracket}} {k}"}) for k in range(40)]
    rows.insert(15, "")  # a blank line moves the numbering
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    chunked = json_lines.read_json_lines(path)
    assert chunked == list(json_lines.iter_json_lines(path))
    assert [n for n, _ in chunked][14:17] == [15, 17, 18]
    rows[33] = '{"id": 33, "text": }'
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        json_lines.read_json_lines(path)
    assert caught.value.line == 34  # rows[33] is line 34, in the fifth chunk of 7
