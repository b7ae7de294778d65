"""JSON Lines read one line at a time, every problem naming the file and the line.

:func:`iter_json_lines` streams ``(line number, object)`` pairs; :class:`Fields` reads
the typed fields of one object. Blank lines are skipped; a byte-order mark at the start
of the file is allowed. A last line without its newline that does not parse is reported
as a *truncated* last line (a writer stopped in the middle of it), any other line that
does not parse as malformed JSON.

Choices: an id field (``item``, ``request``, ``annotator``) may be a JSON string or an
integer and is read as text, as Potato reads item ids (``str(record[id_key])``);
booleans are never numbers; ``NaN`` and infinities are refused; ``null`` counts as
absent. Files come through the reader boundary (:mod:`app.core.formats.reading.boundary`) and
lines are parsed within :mod:`app.core.formats.reading.nesting`'s bounds (depth, integers).
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from app.core.errors import InputError
from app.core.formats.reading import nesting
from app.core.formats.reading.boundary import open_checked, read_bytes


def iter_json_lines(path: Path, *, root: Path | None = None
                    ) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line, object)`` for each non-blank line of a JSON Lines file (inside
    ``root``, by default the folder the file is in)."""
    with open_checked(path, root=root) as handle:
        for number, raw in enumerate(handle, start=1):
            record = _parse(raw, number, path)
            if record is not None:
                yield number, record


def read_json_lines(path: Path, *, root: Path | None = None, data: bytes | None = None
                    ) -> list[tuple[int, dict[str, Any]]]:
    """Every ``(line, object)`` of a JSON Lines file, as :func:`iter_json_lines` gives them.

    Fast path for large files: one ``json.loads`` over the whole file as ``[line 1,
    line 2, …]`` (joined by ``",\n"``) instead of one call per line (about twice as fast
    on 300,000 short lines). It is taken only when it provably gives the same objects:
    the file holds no ``[`` at all and every non-blank line starts with ``{``. Then each
    joining comma is outside any string (a JSON string cannot hold the raw newline after
    it), outside any array (the only ``[`` is the outer one) and not inside an object
    (there a key string would have to follow, not the next line's ``{``), so it separates
    top-level values, and a parse into exactly one object per line means each line is
    that object on its own. Anything else (a ``[`` anywhere, a parse error, a count or
    type that differs, bytes that are not UTF-8, a line that may nest too deeply or
    a long digit run) falls back to the per-line reader, whose messages name the line.

    ``data``: the file's bytes when the caller already read them through the boundary.
    """
    if data is None:
        data = read_bytes(path, root=root)
    fast = _fast(data)
    return fast if fast is not None else list(iter_json_lines(path, root=root))


CHUNK_LINES = 10_000
"""Lines per ``json.loads`` call on the fast path: one call holds the interpreter lock from
start to end, so a whole 30 MB file in one call stalled the window's thread for 300-600 ms
(6 s on a million predictions); 10,000 short lines parse in a few milliseconds."""


def loads_lines(lines: Sequence[str]) -> list[Any] | None:
    """``json.loads`` of each line, as ``[line, line, …]`` arrays of :data:`CHUNK_LINES`
    lines (the reasoning of :func:`read_json_lines`' fast path holds for each chunk); None
    when a chunk does not parse into exactly one value per line.

    Each chunk is decoded by msgspec (about twice as fast) and, when msgspec refuses it,
    by ``json.loads`` as before, so what msgspec refuses and ``json.loads`` reads (``NaN``
    and infinities, lone surrogates, numbers out of a float's range) or raises (an integer
    over Python's digit limit) comes out exactly as it did. What msgspec accepts it
    decodes to the values ``json.loads`` gives: the same types, correctly rounded floats,
    integers of any size, the last of a repeated key in the first one's place
    (``tests/core/test_json_lines_msgspec.py`` compares them). Callers bound the depth
    (:func:`~app.core.formats.reading.nesting.some_line_may_nest_deeper`) before calling.
    """
    out: list[Any] = []
    for start in range(0, len(lines), CHUNK_LINES):
        chunk = lines[start : start + CHUNK_LINES]
        text = "[" + ",\n".join(chunk) + "]"
        try:
            parsed = msgspec.json.decode(text)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            try:
                parsed = json.loads(text)
            except (json.JSONDecodeError, RecursionError):
                return None
        if len(parsed) != len(chunk):
            return None
        out.extend(parsed)
    return out


CHUNK_BYTES = 1 << 20
"""Bytes per decoding call of :func:`loads_line_bytes` (about 10,000 short lines)."""


def loads_line_bytes(body: bytes) -> list[Any] | None:
    """:func:`loads_lines` of the ``\\n``-separated lines of ``body`` (UTF-8 bytes, no
    last newline), without splitting it into a million line strings first: each chunk of
    about :data:`CHUNK_BYTES` ends at a newline and is read as ``[line,\\nline, …]``, the
    very text :func:`loads_lines` builds of those lines, by msgspec and, when msgspec
    refuses it, by ``json.loads``; ``None`` when a chunk does not parse into one value per
    line. Callers check what :func:`loads_lines`' callers check (the bytes are UTF-8, the
    depth is bounded, no line holds a ``[``)."""
    out: list[Any] = []
    for position, stop in line_chunks(body, len(body)):
        piece = body[position:stop]
        text = b"[" + piece.replace(b"\n", b",\n") + b"]"
        try:
            parsed = msgspec.json.decode(text)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            try:
                parsed = json.loads(text)
            except (json.JSONDecodeError, RecursionError):
                return None
        if len(parsed) != piece.count(b"\n") + 1:
            return None
        out += parsed
    return out


def line_chunks(data: bytes, end: int, size: int = CHUNK_BYTES) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of consecutive pieces of ``data[:end]`` of about ``size`` bytes,
    each whole lines: ``stop`` is a newline's position or ``end``, the next piece starts
    after it."""
    position = 0
    while position < end:
        stop = data.find(b"\n", min(position + size, end), end)
        stop = end if stop == -1 else stop
        yield position, stop
        position = stop + 1


def _fast(data: bytes) -> list[tuple[int, dict[str, Any]]] | None:
    if b"[" in data or nesting.some_line_may_nest_deeper(data) \
            or nesting.has_long_integer(data):
        return None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and all(line[:1] == "{" for line in lines):  # the common file: no blank line
        parsed = loads_lines(lines)
        if parsed is None or not all(type(r) is dict for r in parsed):
            return None
        return list(zip(range(1, len(lines) + 1), parsed, strict=True))
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        return []
    if not all(line.lstrip().startswith("{") for _, line in numbered):
        return None
    parsed = loads_lines([line for _, line in numbered])
    if parsed is None:
        return None
    out: list[tuple[int, dict[str, Any]]] = []
    for (number, _), record in zip(numbered, parsed, strict=True):
        if not isinstance(record, dict):
            return None
        out.append((number, record))
    return out


def _parse(raw: bytes, number: int, path: Path) -> dict[str, Any] | None:
    """One line's object; ``None`` for a blank line."""
    complete = raw.endswith(b"\n")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start + 1} of the line); expected UTF-8 "
                         "JSON Lines", file=path, line=number) from exc
    if number == 1:
        text = text.removeprefix("\ufeff")
    if not text.strip():
        return None
    try:
        record = nesting.loads(text, file=path, line=number)
    except json.JSONDecodeError as exc:
        if not complete:
            raise InputError("truncated last line: the file ends in the middle of a JSON "
                             "object (was it still being written?); expected every line to "
                             "be one complete JSON object", file=path, line=number) from exc
        raise InputError(f"malformed JSON: {exc.msg} (column {exc.colno}); expected one JSON "
                         "object per line", file=path, line=number) from exc
    if not isinstance(record, dict):
        raise InputError(f"expected one JSON object per line, found a {_type(record)}",
                         file=path, line=number)
    return record


def _type(value: Any) -> str:
    names = {list: "list", str: "string", bool: "boolean", int: "number", float: "number",
             type(None): "null", dict: "object"}
    return names.get(type(value), type(value).__name__)


@dataclass(frozen=True, slots=True)
class Fields:
    """Typed reads of one JSON object, each failure naming file, line and field."""

    file: Path
    line: int
    record: Mapping[str, Any]

    def error(self, problem: str, key: str | None = None) -> InputError:
        return InputError(problem, file=self.file, line=self.line, key=key)

    def has(self, key: str) -> bool:
        return self.record.get(key) is not None

    def ident(self, key: str, *, required: bool = True) -> str | None:
        """An id: a non-empty string, or an integer read as text."""
        value = self.record.get(key)
        if value is None:
            if required:
                raise self.error(f"missing field '{key}'; expected its id", key)
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str) or not value:
            raise self.error(f"expected an id (a non-empty string), found {_type(value)} "
                             f"{value!r:.40}", key)
        return value

    def required_ident(self, key: str) -> str:
        value = self.ident(key)
        assert value is not None
        return value

    def choice(self, key: str, options: Collection[str], *, required: bool = True
               ) -> str | None:
        value = self.record.get(key)
        expected = " or ".join(f'"{o}"' for o in options)
        if value is None:
            if required:
                raise self.error(f"missing field '{key}'; expected {expected}", key)
            return None
        if value not in options:
            raise self.error(f"found {value!r:.40}; expected {expected}", key)
        return str(value)

    def number(self, key: str, *, low: float, high: float, low_open: bool = False,
               required: bool = True, what: str = "a number") -> float | None:
        """A finite number in ``low..high`` (``high`` always closed)."""
        value = self.record.get(key)
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}]"
        if value is None:
            if required:
                raise self.error(f"missing field '{key}'; expected {what} in {interval}", key)
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise self.error(f"expected {what} in {interval}, found {_type(value)} "
                             f"{value!r:.40}", key)
        number = float(value)
        if (number <= low if low_open else number < low) or number > high:
            raise self.error(f"{number:g} is outside {interval}; expected {what} in {interval}",
                             key)
        return number

    def time(self, key: str) -> str | float | None:
        """An informational time stamp: a string as written, or a number (as a float)."""
        value = self.record.get(key)
        if value is None:
            return None
        if isinstance(value, str):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool) \
                and math.isfinite(value):
            return float(value)
        raise self.error(f"expected a time (a string or a number), found {_type(value)}", key)
