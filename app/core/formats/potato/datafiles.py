"""Potato's data files: the items, one record each, in csv, tsv, json or jsonl.

Records are streamed (jsonl, csv and tsv a line at a time) with the line they came
from, so an error names it. A ``.jsonl`` file in the common shape is first read with one
``json.loads`` (see :func:`_jsonl_fast`); any other falls back to the line reader.

A ``.json`` file holds a list of records (or one record), or, as Potato also accepts,
one JSON object a line like ``.jsonl``.

Every file comes through the reader boundary (:mod:`app.core.formats.reading.boundary`: inside
``root``, a regular file, bounded) and JSON is parsed within
:mod:`app.core.formats.reading.nesting`'s bounds.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterator, Sequence
from operator import itemgetter, methodcaller
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.reading import nesting
from app.core.formats.reading.boundary import checked_file, open_checked, read_bytes
from app.core.formats.reading.json_file import read_json
from app.core.formats.reading.json_lines import line_chunks, loads_line_bytes
from app.core.model import Item
from app.core.nones import Nones
from app.core.sharded import ShardedMap
from app.core.slices import contains_in_slices, list_in_slices, set_in_slices

Record = dict[str, Any]


def iter_records(path: Path, *, root: Path | None = None
                 ) -> Iterator[tuple[int | None, Record]]:
    """Yield ``(line, record)`` for every record of a data file inside ``root`` (by
    default the folder the file is in)."""
    suffix = path.suffix.lower()
    if not os.path.lexists(path):
        raise InputError("data file not found", file=path)
    checked_file(path, root=root)
    readers = {".jsonl": _jsonl, ".json": _json, ".csv": _delimited, ".tsv": _delimited}
    reader = readers.get(suffix)
    if reader is None:
        raise InputError(f"unknown data file type '{suffix}'; expected .csv, .tsv, .json or "
                         ".jsonl", file=path)
    try:
        yield from reader(path, root)
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start}); expected a UTF-8 {suffix[1:]} "
                         "file", file=path) from exc


def _jsonl(path: Path, root: Path | None = None) -> Iterator[tuple[int | None, Record]]:
    fast = _jsonl_fast(read_bytes(path, root=root))
    if fast is not None:
        yield from zip(range(1, len(fast) + 1), fast, strict=True)
        return
    yield from _jsonl_lines(path, root)


def common_records(path: Path, *, root: Path | None = None) -> list[Record] | None:
    """Every record of a ``.jsonl`` data file in the common shape (see
    :func:`_jsonl_fast`; record ``k`` is on line ``k + 1``), or ``None``: then read it
    with :func:`iter_records`, which names the line of a problem. Checked as
    :func:`iter_records` checks a file."""
    if path.suffix.lower() != ".jsonl" or not os.path.lexists(path):
        return None
    checked_file(path, root=root)
    return _jsonl_fast(read_bytes(path, root=root))


def _jsonl_fast(data: bytes) -> list[Record] | None:
    """Every record of a jsonl file parsed at once (about four times faster on 100,000
    short lines than a ``json.loads`` per line), or ``None`` when that is not provably
    what the line reader gives.

    Taken only for the common file: no ``[`` and no ``\\r`` anywhere, UTF-8 without a
    byte-order mark, every line starting with ``{`` and no blank line (a last newline is
    allowed). Then the line reader's lines are exactly the ``\\n``-separated pieces (no
    ``\\r`` for universal newlines to split on), and each joining comma is outside any
    string (a JSON string cannot hold the raw newline), outside any array (the only ``[``
    is the outer one) and not inside an object (a key would have to follow, not ``{``), so
    it separates top-level values: a parse into exactly one object per line is each line
    parsed on its own. Anything else (a parse error, a count or type that differs) is read
    line by line, whose messages name the line.

    The checks and the parse run on the bytes, a chunk of lines at a time (counts of
    ``\\n`` and ``\\n{``, parsed by :func:`~app.core.formats.reading.json_lines.loads_line_bytes`):
    splitting a million-line file into line strings first cost a second and 100 MB.
    """
    end = len(data) - 1 if data.endswith(b"\n") else len(data)
    if not data.startswith(b"{"):
        return None
    out: list[Record] = []
    for start, stop in line_chunks(data, end):
        # Every check a chunk of lines at a time (one call over a 60 MB file held the
        # interpreter lock 70-200 ms); none can straddle a newline.
        piece = data[start:stop]
        if b"[" in piece or b"\r" in piece or nesting.some_line_may_nest_deeper(piece) \
                or nesting.has_long_integer(piece):
            return None
        if piece.count(b"\n") != piece.count(b"\n{") \
                or (stop < end and data[stop + 1] != 0x7B):
            return None  # a blank line, or a line that does not start with "{"
        if not piece.isascii():
            try:
                piece.decode("utf-8")  # a newline never splits a UTF-8 character
            except UnicodeDecodeError:
                return None
        parsed = loads_line_bytes(piece)
        if parsed is None or set(map(type, parsed)) != {dict}:
            return None
        out += parsed
    return out


def _jsonl_lines(path: Path, root: Path | None = None) -> Iterator[tuple[int | None, Record]]:
    with open_checked(path, root=root, text=True) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = nesting.loads(line, file=path, line=number)
            except json.JSONDecodeError as exc:
                raise InputError(f"malformed JSON line: {exc.msg} (column {exc.colno})",
                                 file=path, line=number) from exc
            if not isinstance(record, dict):
                raise InputError("expected one JSON object per line", file=path, line=number)
            yield number, record


def _delimited(path: Path, root: Path | None) -> Iterator[tuple[int | None, Record]]:
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    with open_checked(path, root=root, text=True, newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        try:
            for row in reader:
                yield reader.line_num, dict(row)
        except csv.Error as exc:
            raise InputError(f"malformed {path.suffix[1:]} row: {exc}", file=path,
                             line=reader.line_num) from exc


def _json(path: Path, root: Path | None) -> Iterator[tuple[int | None, Record]]:
    """A JSON list of records; Potato also reads ``.json`` files written one object a line."""
    with open_checked(path, root=root, text=True) as handle:
        head = handle.read(4096).lstrip()
    if not head.startswith("["):
        first_line_end = head.find("\n")
        if 0 < first_line_end < len(head) and head[:first_line_end].rstrip().endswith("}"):
            yield from _jsonl(path, root)
            return
    data = read_json(path, root=root)
    records = data if isinstance(data, list) else [data]
    for record in records:
        if not isinstance(record, dict):
            raise InputError("expected a JSON list of item objects", file=path)
        yield None, record


def common_items(records: list[Record], id_key: str, text_key: str | None
                 ) -> ShardedMap[Item] | None:
    """id → :class:`Item` of records whose ids are all non-empty strings, each once (no
    media, no trace steps: the caller knows the config has none), in record order; or
    ``None``, and the caller's per-record loop names the record at fault.

    The same items as that loop makes, built a slice at a time in C
    (:mod:`app.core.slices`): the loop cost 4 s on a million records, and one C call
    over all of them would hold the interpreter lock for a second. They are kept in a
    :class:`~app.core.sharded.ShardedMap`, not a dict, whose last resize at a million
    items held the lock 35-110 ms.
    """
    try:
        ids: list[Any] = list_in_slices(map(itemgetter(id_key), records))
    except KeyError:
        return None
    if set_in_slices(map(type, ids)) != {str} or contains_in_slices(ids, ""):
        return None  # an id missing or empty, or an integer to be read as text
    texts: Sequence[Any] = Nones(len(records))  # no 8 MB list of Nones made in one call
    if text_key:
        texts = list_in_slices(map(methodcaller("get", text_key), records))
        if not set_in_slices(map(type, texts)) <= {str}:
            texts = [text if isinstance(text, str) else None for text in texts]
    return ShardedMap.of(ids, list_in_slices(map(Item, ids, records, texts)))


def legacy_lines(path: Path, root: Path
                  ) -> Iterator[tuple[str, dict[str, list[tuple[str, Any]]]]]:
    """Potato 1.x: one line per item, ``{"id", "label_annotations": {schema: {label: v}}}``."""
    for line, record in iter_records(path, root=root):
        if "id" not in record:
            raise InputError("a line has no 'id'", file=path, line=line, key="id")
        labels = record.get("label_annotations", record.get("annotation", {}))
        if not isinstance(labels, dict):
            raise InputError("expected label_annotations {schema: {label: value}}", file=path,
                             line=line, key="label_annotations")
        grouped = {}
        for schema, values in labels.items():
            if not isinstance(values, dict):
                raise InputError("expected {label: value} per scheme", file=path, line=line,
                                 key=f"label_annotations.{schema}")
            grouped[str(schema)] = [(str(n), v) for n, v in values.items()]
        yield str(record["id"]), grouped
