"""JSON values stored in ``engine.sqlite``'s text columns, read as ``json.loads`` reads them.

Why a module: a million-item engine database holds three million ``value_json`` cells
that repeat a handful of labels, and one ``json.loads`` per cell was a fifth of
``accord label status``; :func:`json_column` parses each distinct text once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec

from app.core.formats.reading.nesting import within_bounds


def stored_json(text: Any) -> Any:
    """A stored JSON value as ``json.loads`` reads it (``text`` itself when it is not
    JSON or out of nesting's bounds). A string is decoded by msgspec first (about twice
    as fast, the same values: see ``json_lines.loads_lines``), by ``json.loads`` when
    msgspec refuses it (NaN, lone surrogates, numbers out of range)."""
    if text is None:
        return None
    try:
        if not within_bounds(text):
            return text
        if type(text) is str:
            try:
                return msgspec.json.decode(text)
            except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
                pass
        return json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return text


_SHARED = (str, int, float, bool, type(None))
"""Values one parse may give to every row holding the same text (never mutable)."""


def json_column() -> Callable[[Any], Any]:
    """:func:`stored_json` for a column: a text repeated on many rows (a label, ``"ok"``) is
    parsed once; a list or an object is parsed again for each row, as before."""
    cache: dict[str, Any] = {}

    def parse(text: Any) -> Any:
        if type(text) is not str:  # a number, bytes or null as stored: as before
            return stored_json(text)
        try:
            return cache[text]
        except KeyError:
            value = stored_json(text)
            if type(value) in _SHARED:
                cache[text] = value
            return value
    return parse
