"""Potato 2.12.1's own numbers for a scheme (its ``potato_iaa`` block), for the text
table, the HTML report and the CSV, beside Accord's.

Why: where Accord's number is not Potato's (a slider Accord scores as ordinal, a likert
whose κ Potato computes over another fill of the scale, spans for which Potato's
``/admin/iaa`` prints ``null``, image regions), kinds.md A.1 keeps Potato's value in
``potato_iaa`` and a note says why. The JSON always carried the block; the other reports
only carried the note, which named numbers a reader could not see. A lead holding
Accord's report against Potato's admin page now reads both in one place.

Choices where the spec is silent:

- Every number and every ``null`` of the block, nested keys joined with dots, under
  Potato's names (the names on its page, not Accord's labels); counts as integers,
  coefficients to three decimals; ``null`` written as Potato's page writes it.
- The block's own sentence (``note``: the span block's on why Potato prints ``null``)
  follows the numbers after a dash; other text leaves and lists are left out.
- The CSV already had the block's numbers as ``detail`` rows (``potato_iaa.<name>``);
  a ``null`` is now a row too, empty, with the block's sentence (or a plain one) as the
  reason, as every undefined value in the CSV has one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from app.core.agreement.result import SchemeResult

HEAD = "Potato 2.12.1's /admin/iaa"
NULL_REASON = "Potato 2.12.1's /admin/iaa reports null for it"


def potato_values(result: SchemeResult) -> list[tuple[str, float | int | None]]:
    """The block's numbers and nulls, in its order (empty: the scheme has no block)."""
    block = result.extra.get("potato_iaa")
    return list(_leaves(block)) if isinstance(block, Mapping) else []


def potato_reason(result: SchemeResult) -> str:
    """Why Potato's value is ``null``: the block's own sentence where it has one."""
    block = result.extra.get("potato_iaa")
    note = block.get("note") if isinstance(block, Mapping) else None
    return note if isinstance(note, str) and note else NULL_REASON


def potato_line(result: SchemeResult) -> str | None:
    """``"Potato 2.12.1's /admin/iaa: pearson_r 0.972 · n_items 12"``, or None."""
    values = potato_values(result)
    if not values:
        return None
    line = f"{HEAD}: " + " · ".join(f"{name} {_shown(value)}" for name, value in values)
    block = result.extra["potato_iaa"]
    note = block.get("note")
    return f"{line} — {note}" if isinstance(note, str) and note else line


def _leaves(block: Mapping[str, Any], prefix: str = "") -> Iterator[
        tuple[str, float | int | None]]:
    for key, value in block.items():
        if isinstance(value, Mapping):
            yield from _leaves(value, f"{prefix}{key}.")
        elif value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
            yield f"{prefix}{key}", value


def _shown(value: float | int | None) -> str:
    if value is None:
        return "null"
    return str(value) if isinstance(value, int) else f"{value:.3f}"
