"""What the matrices view shows, from a matrix scheme's result (no Qt): each row's block
and the pooled one as table rows, and one row's answers per item and annotator.

Where the spec is silent: a cell is coloured on the overview's ramp (red less
agreement, blue more, :func:`app.ui.palette.heat_color`) only for the coefficients
whose 1 is perfect agreement (α, κ, r, ρ, ICC, percent agreement); the errors and
distances (MAE, RMSE) are left white, since their scale is the answers' own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

POOLED = "pooled (every item × row)"
UNCOLOURED = frozenset({"mae", "rmse"})


@dataclass(frozen=True, slots=True)
class Cell:
    value: float | None
    reason: str | None

    @property
    def coloured(self) -> bool:
        return self.value is not None


@dataclass(frozen=True, slots=True)
class MatrixTable:
    scale: str
    metrics: tuple[str, ...]
    rows: tuple[str, ...]
    cells: dict[tuple[str, str], Cell]
    n_items: dict[str, int]


def matrix_table(details: Any) -> MatrixTable | None:
    """Rows × metrics of a matrix scheme's ``SchemeResult.details`` (a ``MatrixResult``),
    the pooled block last; ``None`` for anything else."""
    rows = getattr(details, "rows", None)
    pooled = getattr(details, "pooled", None)
    if not isinstance(rows, Mapping) or pooled is None:
        return None
    blocks = {**rows, POOLED: pooled}
    metrics = tuple(pooled.metrics)
    cells = {}
    for name, block in blocks.items():
        for key in metrics:
            c = block.metrics.get(key)
            cells[(name, key)] = Cell(None if c is None else c.value,
                                      "not computed for this row" if c is None else c.reason)
    return MatrixTable(str(getattr(details, "scale", "")), metrics, tuple(blocks), cells,
                       {name: int(b.counts.get("n_items", 0)) for name, b in blocks.items()})


def shade(key: str, value: float | None) -> float | None:
    """Where ``value`` falls on the overview's ramp, or ``None`` (not coloured)."""
    if value is None or key in UNCOLOURED:
        return None
    return min(max(float(value), 0.0), 1.0)


def row_answers(answers: Mapping[str, Mapping[str, Any]], row: str,
                annotators: Sequence[str]) -> list[tuple[str, dict[str, str]]]:
    """One row's answers: per item (sorted), each annotator's value for ``row`` as
    stored; items where nobody answered the row are left out."""
    out = []
    for item in sorted(answers):
        by = answers[item]
        values = {}
        for a in annotators:
            answer = by.get(a)
            if answer is not None and hasattr(answer, "as_dict"):
                got = answer.as_dict().get(row)
                if got is not None and got != "":
                    values[a] = str(got)
        if values:
            out.append((item, values))
    return out


def member_text(record: Mapping[str, Any], value: str) -> str | None:
    """What a best-worst answer (a position letter) chose: ``"D: <text>"`` from the
    generated tuple's members (``_bws_items``, :mod:`app.core.formats.potato.bws`), so
    the answers table can say which option "D" was; ``None`` for any other item."""
    members = record.get("_bws_items")
    if not isinstance(members, list):
        return None
    for member in members:
        if isinstance(member, dict) and member.get("position") == value:
            return f"{value}: {member.get('text', '')}"
    return None
