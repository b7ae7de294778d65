"""msgspec's paths against ``json.loads`` (the oracle): the columns of ``predictions.jsonl``
(``labeling.decoded``, from bytes and from a memory map alike) and
``json_lines.loads_lines``.

Each gives exactly what ``json.loads`` gives line by line, or hands the input back
(``None``, or ``json.loads`` itself), so the per-line reader's messages are unchanged: NaN,
infinities, big integers, duplicate keys, lone surrogates, depth, blank lines, a BOM.
"""

from __future__ import annotations

import json
import mmap
import random
from pathlib import Path
from typing import Any

import pytest

from app.core.errors import InputError
from app.core.formats.labeling import reader
from app.core.formats.labeling.decoded import CHUNK_BYTES, decode_common
from app.core.formats.labeling.reader import read_predictions
from app.core.formats.labeling.table import PredictionTable
from app.core.formats.potato.project import load_study
from app.core.formats.reading import boundary
from app.core.formats.reading.json_lines import loads_lines
from tests.potato_project import label, write_project

SCHEMAS = ("sentiment",)
TIERS = ("small", "big")
LABELS = ("pos", "neg", "neu")


def _line(item: str = "i0", label: Any = "pos", confidence: Any = 0.5, **extra: Any) -> str:
    record = {"item": item, "schema": "sentiment", "tier": "small", "label": label,
              "confidence": confidence, **extra}
    return json.dumps(record)


def _oracle(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode("utf-8-sig").split("\n") if line]


def _decoded(data: bytes) -> list[dict[str, Any]] | None:
    """The lines decoded from ``data``; the same from a memory map of it (as
    ``boundary.read_mapped`` gives a big file), which is closed after (so never left
    exported)."""
    mine = _decoded_from(data)
    if data:
        mapped = mmap.mmap(-1, len(data))
        mapped.write(data)
        assert repr(_decoded_from(mapped)) == repr(mine)
        mapped.close()
    return mine


def _decoded_from(data: bytes | mmap.mmap) -> list[dict[str, Any]] | None:
    columns = decode_common(data, SCHEMAS, TIERS, LABELS)
    if columns is None:
        return None
    table = PredictionTable.from_columns(columns)  # the codes read back as values
    return [{"item": i, "schema": s, "tier": t, "label": lab, "confidence": c}
            for i, s, t, lab, c in zip(table.item, table.schema, table.tier,
                                       table.label, table.confidence, strict=True)]


def _same(mine: list[dict[str, Any]], oracle: list[dict[str, Any]]) -> None:
    assert len(mine) == len(oracle)
    for a, b in zip(mine, oracle, strict=True):
        assert list(a) == list(b)
        for key in a:
            value = float(b[key]) if key == "confidence" else b[key]  # read as a float
            assert type(a[key]) is type(value) and repr(a[key]) == repr(value), key


def test_random_common_files_decode_to_the_json_values() -> None:
    rng = random.Random(7)
    for _ in range(20):
        lines = [_line(f"i{rng.randrange(10**6)}", rng.choice([*LABELS, 3, -0, 2.5, 10**30]),
                       rng.choice([0, 1, rng.random(), float(f"{rng.random():.3g}")]))
                 for _ in range(rng.randrange(1, 3000))]
        data = ("\n".join(lines) + "\n" * rng.randrange(0, 3)).encode()
        mine = _decoded(data)
        assert mine is not None
        _same(mine, _oracle(data))


def test_hard_floats_are_rounded_as_json_loads_rounds_them() -> None:
    rng = random.Random(3)
    texts = ["0.1000000000000000055511151231257827", "2.2250738585072011e-308", "5e-324",
             "2.5e-324", "0.49999999999999994", "1e-400", "-0.0", "1E0", "0.30000000000000004"]
    texts += ["0." + "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 40)))
              for _ in range(3000)]
    data = "\n".join(f'{{"item": "i", "schema": "sentiment", "tier": "small", '
                     f'"label": {t}, "confidence": {t}}}' for t in texts).encode()
    mine = _decoded(data)
    assert mine is not None
    _same(mine, _oracle(data))


@pytest.mark.parametrize("line", [
    _line(confidence=float("nan")),                 # NaN: json.loads reads it
    _line(confidence=float("inf")),
    '{"item": "i0", "schema": "sentiment", "tier": "small", "label": "pos", '
    '"confidence": 1e999}',                         # inf in json.loads
    '{"item": "\\ud800", "schema": "sentiment", "tier": "small", "label": "pos", '
    '"confidence": 1}',                             # a lone surrogate
    _line(label=True), _line(label=None), _line(label=["pos"]), _line(label={"a": 1}),
    _line(confidence=True), _line(confidence="0.5"), _line(item=7),
    _line(probs=None), _line(model="m"),            # a fifth field or more
    '{"item": "i0", "schema": "sentiment", "tier": "small", "label": "pos"}',
    _line(label="other"),                           # not an option: the full reader
    _line(label=int("9" * 301)),                    # over nesting's digit bound
    '{"item": "i0", "schema": "sentiment", "tier": "small", "label": "pos", '
    '"confidence": 0.5}, {"item": "i1"}',           # two values on one line
    "[" * 200 + "]" * 200,
])
def test_uncommon_lines_are_handed_back(line: str) -> None:
    data = (_line() + "\n" + line + "\n").encode()
    assert _decoded(data) is None


def test_duplicate_keys_keep_the_last_value_as_json_loads() -> None:
    data = (b'{"item": "i0", "item": "i1", "schema": "sentiment", "tier": "small", '
            b'"label": "pos", "label": 2, "confidence": 0.5}\n')
    mine = _decoded(data)
    assert mine is not None
    _same(mine, _oracle(data))


@pytest.mark.parametrize("data", [b"", b"\n\n", (_line() + "\n\n" + _line()).encode(),
                                  (" " + _line()).encode(), (_line() + "\n ").encode()])
def test_blank_or_indented_lines_are_handed_back(data: bytes) -> None:
    assert _decoded(data) is None


def test_bom_and_crlf_and_chunk_edges() -> None:
    one = _line() + "\r"
    n = CHUNK_BYTES // len(one) * 3 + 17
    data = b"\xef\xbb\xbf" + "\n".join([one] * n).encode() + b"\n"
    mine = _decoded(data)
    assert mine is not None and len(mine) == n
    _same(mine, _oracle(data))


def test_schema_tier_and_option_labels_are_one_string_object() -> None:
    data = "\n".join(_line(f"i{k}") for k in range(100)).encode()
    columns = decode_common(data, SCHEMAS, TIERS, LABELS)
    assert columns is not None
    table = PredictionTable.from_columns(columns)
    assert len({id(s) for s in table.schema}) == 1
    assert len({id(s) for s in table.label}) == 1


# ------------------------------------------------------------------ the reader end to end


def _study(root: Path) -> Any:
    write_project(root, schemes=[
        {"annotation_type": "radio", "name": "sentiment", "labels": list(LABELS)}],
        items=[{"id": f"i{k}", "text": ""} for k in range(5)],
        annotators={"ann": {"i0": [label("sentiment", "pos")]}})
    return load_study(root)


@pytest.mark.parametrize("bad, message", [
    (_line(confidence=float("nan")), "expected a confidence in [0, 1], found number nan"),
    (_line(label="other"), "label for schema 'sentiment'"),
    (_line(item="i9"), "unknown item 'i9'"),
    (_line(label=int("9" * 400)), "digits"),
])
def test_the_reader_still_names_the_line(tmp_path: Path, bad: str, message: str) -> None:
    study = _study(tmp_path)
    path = tmp_path / "predictions.jsonl"
    path.write_text(_line("i1") + "\n" + bad + "\n")
    with pytest.raises(InputError) as caught:
        read_predictions(path, study, TIERS, root=tmp_path)
    assert caught.value.line == 2 and message in str(caught.value)


@pytest.mark.parametrize("common", [True, False])
def test_the_reader_gives_the_same_from_a_memory_map(tmp_path: Path, common: bool,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A file from ``MAPPED_FROM_BYTES`` on is read into a map: the same table, whether
    the lines are common (decoded from the map) or not (the map copied to bytes for the
    per-line reader)."""
    study = _study(tmp_path)
    path = tmp_path / "predictions.jsonl"
    extra = {} if common else {"probs": {"pos": 0.5, "neg": 0.25}}
    path.write_text("".join(_line(f"i{k}", confidence=k / 8, **extra) + "\n"
                            for k in range(5)))
    as_bytes = read_predictions(path, study, TIERS, root=tmp_path)
    monkeypatch.setattr(boundary, "MAPPED_FROM_BYTES", 1)
    given: list[bytes | mmap.mmap] = []

    def spy(data: bytes | mmap.mmap, *args: Any) -> Any:
        given.append(data)
        return decode_common(data, *args)

    monkeypatch.setattr(reader, "decode_common", spy)
    as_map = read_predictions(path, study, TIERS, root=tmp_path)
    assert [type(d) for d in given] == [mmap.mmap] and given[0].closed
    assert len(as_map) == len(as_bytes) == 5
    assert repr([as_map[k] for k in range(5)]) == repr([as_bytes[k] for k in range(5)])


# ------------------------------------------------------------------------ loads_lines


@pytest.mark.parametrize("line", [
    '{"a": NaN, "b": Infinity, "c": -Infinity}', '{"a": 1e999}', '{"a": "\\ud800x"}',
    '{"a": 1, "b": 2, "a": 3}', '{"a": -0, "b": -0.0, "c": 1E2, "d": 1e-400}',
    '{"a": 123456789012345678901234567890, "b": -9223372036854775809}',
    '{"a": [1, {"b": null}], "c": true, "d": "\\u00e9\\t\\u0000"}',
    '{"a": "\\ud83d\\ude00"}', '{"a": 0.1000000000000000055511151231257827}',
    '{"a": ' + "[" * 90 + "]" * 90 + "}",
])
def test_loads_lines_gives_json_loads_values(line: str) -> None:
    lines = [line, '{"x": 1}']
    assert repr(loads_lines(lines)) == repr([json.loads(x) for x in lines])
    assert [list(v) for v in loads_lines(lines) or []] == \
        [list(json.loads(x)) for x in lines]


def test_loads_lines_refuses_or_raises_as_json_loads() -> None:
    assert loads_lines(['{"a": 1}', '{"a": }']) is None
    assert loads_lines(['{"a": 1}, {"b": 2}']) is None
    assert loads_lines(["[" * 5000 + "]" * 5000]) is None  # RecursionError in both
    with pytest.raises(ValueError, match="4300"):  # Python's digit limit, as before
        loads_lines(['{"a": ' + "1" * 5000 + "}"])
