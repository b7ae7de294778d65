"""A JSON file of the project, read whole: the entry for JSON.

:func:`read_json` is ``json.loads`` of the file, through :mod:`.boundary` (inside the
project, a regular file, bounded in size) and within :mod:`.nesting`'s bounds (depth,
integers); a syntax error names its line. :func:`parse_json_text` reads a JSON value
stored as a string inside another file. :func:`read_json_in_pieces` gives the same value
as :func:`read_json` for a large object, parsed in small pieces so other threads keep
running:

Why pieces: the C JSON parser holds the interpreter lock for a whole ``json.loads`` call. A
Potato ``user_state.json`` of a big study is several MB, parsed in one call that takes
100–270 ms, and while the GUI opens a project on a worker thread that call freezes the
window for as long (measured by ``tests/benchmarks/bench_gui_stall.py``). Here the top
two levels of objects are walked in Python and each value below them (one item's
answers) is parsed by its own ``raw_decode`` call, so the lock is released between
pieces. The bytes are decoded to text a piece of :data:`PIECE_BYTES` at a time too
(:class:`_Window`, which keeps only the text from the value being parsed on): decoding a
40 MB ``user_state.json`` (a 10,000-document span study) in one call held the lock 24-35
ms, most of it the page faults of a fresh 40 MB string.

The result is exactly ``json.loads`` of the same bytes: the same decoding (BOM and
UTF-16/32 detection included), later duplicate keys win, and any file this walker does
not accept is parsed again by ``json.loads`` itself, so errors and their line numbers
are the standard ones (:func:`read_json`'s message).

Bounds (:mod:`.nesting`): the file comes through the reader boundary,
integers are checked once over the whole text, and the depth of each piece is counted
only when the piece holds more brackets than the depth allowed (a C count), so the check
costs nothing on a real file.
"""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.reading import nesting
from app.core.formats.reading.boundary import read_bytes

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
SPLIT_DEPTH = 2
"""Objects at depth 0 and 1 are walked member by member; deeper values parsed whole."""
PIECE_BYTES = 1 << 20
"""Bytes decoded to text by one call (about a millisecond); a value longer than the text
at hand is given twice as much each time, so decoding stays linear."""
NUMBER_TAIL = 3
"""A value parsed this close to the end of the decoded text may be a number cut short
(``1.5e+`` is read as ``1.5``): it is parsed again with the next piece."""


class _WalkerError(Exception):
    """The walker gives up; ``json.loads`` decides (and names any error)."""


class _TooDeepError(Exception):
    """A piece nests deeper than :data:`~app.core.formats.reading.nesting.MAX_DEPTH` in all."""


def read_json(path: Path, *, root: Path | None = None) -> Any:
    """Parse a whole JSON file; a syntax error names its line."""
    data = read_bytes(path, root=root)
    try:
        return nesting.loads(data, file=path)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg} (column {exc.colno})", file=path,
                         line=exc.lineno) from exc
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text; expected a JSON file", file=path) from exc


def parse_json_text(text: str, *, file: Path, key: str, expected: str) -> Any:
    """Parse a JSON value stored as a string inside another file (Potato's answers)."""
    try:
        return nesting.loads(text, file=file, key=key)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"the stored answer is not valid JSON ({exc.msg} at character {exc.pos}); "
            f"expected {expected}", file=file, key=key) from exc


def read_json_in_pieces(path: Path, *, root: Path | None = None, whole: bool = False) -> Any:
    """``read_json(path)``, parsed piecewise (see the module docstring).

    ``whole``: for a process with no window to keep responsive (the command line), the
    file is parsed by one orjson call when that gives the same value (a valid file with
    no integer past 64 bits: :func:`~app.core.formats.reading.nesting.standard_loads`), its
    depth then counted exactly over the whole text (the walker's bound: a valid text
    nested deeper than :data:`~app.core.formats.reading.nesting.MAX_DEPTH` is the same error).
    Anything orjson refuses takes the piecewise path below, errors included. Three
    times faster on a lidar study's ``user_state.json`` (14 MB: 0.33 s → 0.11 s), but one
    call holds the interpreter lock throughout, so the GUI never asks for it.
    """
    data = read_bytes(path, root=root)
    nesting.check_integers(data, file=path)
    if whole:
        value = nesting.orjson_value(data)
        if value is not nesting.REFUSED:
            if nesting.value_deeper_than(value):  # valid JSON: the same answer, faster
                raise nesting.too_deep(file=path)
            return value
    encoding = json.detect_encoding(data)
    try:
        value, end = _value(window := _Window(data, encoding), _skip(window, 0), 0)
        if _skip(window, end) != len(window.text):
            raise _WalkerError
        return value
    except _TooDeepError:
        raise nesting.too_deep(file=path) from None
    except RecursionError:
        raise nesting.too_deep(file=path) from None
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text; expected a JSON file", file=path) from exc
    except (_WalkerError, json.JSONDecodeError, IndexError):
        pass
    try:  # the whole text, as json.loads reads it: its value or its error
        text = data.decode(encoding, "surrogatepass")
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text; expected a JSON file", file=path) from exc
    del data
    try:
        return nesting.loads(text, file=path)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg} (column {exc.colno})", file=path,
                         line=exc.lineno) from exc


class _Window:
    """The file's text decoded a piece at a time; ``text`` starts where the walker
    stood when it last asked for more (earlier text is dropped)."""

    def __init__(self, data: bytes, encoding: str) -> None:
        self._data = data
        self._decoder = codecs.getincrementaldecoder(encoding)("surrogatepass")
        self._decoded = 0
        self.text = ""
        self.last = False
        """Whether ``text`` runs to the end of the file."""

    def more(self, keep: int) -> int:
        """Drop the text before ``keep`` and decode the next piece; ``keep``'s new index
        (0). At the end of the file the walker gives up (the caller's parse decides)."""
        if self.last:
            raise _WalkerError
        size = max(PIECE_BYTES, len(self.text) - keep)
        piece = self._data[self._decoded:self._decoded + size]
        self._decoded += len(piece)
        self.last = self._decoded >= len(self._data)
        self.text = self.text[keep:] + self._decoder.decode(piece, self.last)
        return 0


def _skip(window: _Window, index: int) -> int:
    """The index of the next character that is not JSON whitespace (the text's length at
    the end of the file)."""
    while True:
        index = _SPACE.match(window.text, index).end()  # type: ignore[union-attr]
        if index < len(window.text) or window.last:
            return index
        index = window.more(index)


def _at(window: _Window, index: int) -> str:
    return window.text[index] if index < len(window.text) else ""


def _decode(window: _Window, index: int) -> tuple[Any, int, int]:
    """(value, start, end) of the JSON value at ``index``, decoding more text until the
    value lies whole in the text at hand."""
    while True:
        try:
            value, end = _DECODER.raw_decode(window.text, index)
            if window.last or len(window.text) - end >= NUMBER_TAIL:
                return value, index, end
        except json.JSONDecodeError:
            if window.last:
                raise
        index = window.more(index)


def _value(window: _Window, index: int, depth: int) -> tuple[Any, int]:
    if depth < SPLIT_DEPTH and _at(window, index) == "{":
        return _object(window, index, depth)
    value, index, end = _decode(window, index)
    room = nesting.MAX_DEPTH - depth
    text = window.text
    if text.count("[", index, end) + text.count("{", index, end) > room \
            and nesting.deeper_than(text[index:end], room):
        raise _TooDeepError
    return value, end


def _object(window: _Window, index: int, depth: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    index = _skip(window, index + 1)
    if _at(window, index) == "}":
        return out, index + 1
    while True:
        if _at(window, index) != '"':
            raise _WalkerError
        key, _, index = _decode(window, index)
        index = _skip(window, index)
        if _at(window, index) != ":":
            raise _WalkerError
        index = _skip(window, index + 1)
        out[key], index = _value(window, index, depth + 1)
        index = _skip(window, index)
        if _at(window, index) == "}":
            return out, index + 1
        if _at(window, index) != ",":
            raise _WalkerError
        index = _skip(window, index + 1)
