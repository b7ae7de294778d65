"""One annotator's number on one item, read from Potato's stored label entries.

Input is the ``(label name, value)`` list that ``user_state.json`` holds for one scheme
on one item (as :mod:`app.core.formats.potato.answers` receives it). Stored shapes:
slider ``{"slider": "73"}``, number ``{"number": "5"}``, vas ``{<scheme>: "73"}``,
confidence slider ``{"confidence_level": "70"}``, pairwise scale ``{"scale_value": -2}``,
and Potato's simulator slider ``{"73": "73"}``.

Potato's rule (``iaa/dispatcher.py`` ``_gather_labels`` with ``numeric``): the chosen
names are those whose value is not falsy (``False, None, "", "false", "False", 0,
"0"``) or equals the name; a name whose value is zero is kept too (a stored 0 is an
answer); each name gives a number from the name itself, else from its value; the first
number is the answer. A pairwise scale is packed: its answer is the ``scale_value``.
Entries with the same name collapse as Potato's regrouping does (first position, last
value). Nothing readable is ``None``: not answered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.core.agreement.continuous.pairs import Entries

FALSY: tuple[Any, ...] = (False, None, "", "false", "False", 0, "0")
NUMBER_TYPES = frozenset({"slider", "number", "vas", "confidence", "pairwise"})


def grouped(entries: Entries) -> dict[str, Any]:
    """``{name: value}`` as Potato regroups a scheme's entries."""
    out: dict[str, Any] = {}
    for name, value in entries:
        out[str(name)] = value
    return out


def as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def chosen(value: Any, name: str) -> bool:
    """Potato's ``selected_labels`` test for one entry."""
    return not _in(value, FALSY) or str(value) == str(name)


def _in(value: Any, options: tuple[Any, ...]) -> bool:
    try:
        return any(value == o for o in options)
    except (TypeError, ValueError):  # pragma: no cover - exotic __eq__
        return False


def _is_zero(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    number = as_float(value)
    return number == 0.0


def is_number_scheme(config: Mapping[str, Any]) -> bool:
    """Potato's CONTINUOUS types (``dispatcher.py`` ``classify_schema``)."""
    kind = str(config.get("annotation_type") or "").strip().lower()
    if kind in ("slider", "number", "vas"):
        return True
    if kind == "confidence":
        return config.get("scale_type") == "slider"
    if kind == "pairwise":
        return str(config.get("mode") or "binary").strip().lower() == "scale"
    return False


def read_number(config: Mapping[str, Any], entries: Entries) -> float | None:
    """The annotator's number for a CONTINUOUS scheme, or ``None``."""
    values = grouped(entries)
    kind = str(config.get("annotation_type") or "").strip().lower()
    if kind == "pairwise":
        raw = values.get("scale_value")
        if raw is None or str(raw) == "":
            return None
        return as_float(raw)
    names = [n for n, v in values.items() if chosen(v, n)]
    names += [n for n, v in values.items()
              if n not in names and _is_zero(v) and as_float(n) is None]
    for name in names:
        number = as_float(name)
        if number is None:
            number = as_float(values.get(name))
        if number is not None:
            return number
    return None
