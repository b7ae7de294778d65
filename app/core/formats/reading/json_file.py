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
pieces.

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
    try:
        text = data.decode(json.detect_encoding(data), "surrogatepass")
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text; expected a JSON file", file=path) from exc
    del data
    try:
        value, end = _value(text, _SPACE.match(text, 0).end(), 0)  # type: ignore[union-attr]
        if _SPACE.match(text, end).end() != len(text):  # type: ignore[union-attr]
            raise _WalkerError
        return value
    except _TooDeepError:
        raise nesting.too_deep(file=path) from None
    except RecursionError:
        raise nesting.too_deep(file=path) from None
    except (_WalkerError, json.JSONDecodeError, IndexError):
        pass
    try:
        return nesting.loads(text, file=path)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg} (column {exc.colno})", file=path,
                         line=exc.lineno) from exc


def _value(text: str, index: int, depth: int) -> tuple[Any, int]:
    if depth < SPLIT_DEPTH and text[index] == "{":
        return _object(text, index, depth)
    value, end = _DECODER.raw_decode(text, index)
    room = nesting.MAX_DEPTH - depth
    if text.count("[", index, end) + text.count("{", index, end) > room \
            and nesting.deeper_than(text[index:end], room):
        raise _TooDeepError
    return value, end


def _object(text: str, index: int, depth: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
    if text[index] == "}":
        return out, index + 1
    while True:
        if text[index] != '"':
            raise _WalkerError
        key, index = _DECODER.raw_decode(text, index)
        index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
        if text[index] != ":":
            raise _WalkerError
        index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
        out[key], index = _value(text, index, depth + 1)
        index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
        if text[index] == "}":
            return out, index + 1
        if text[index] != ",":
            raise _WalkerError
        index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
