"""Turn a scheme's answers into coded units: the input of every categorical coefficient.

A *unit* is what two annotators can agree on: an item for categorical schemes, one step
of one trace for the trace schemes (``agreement.md``, Agent traces). The result is a
``(units, annotators)`` matrix of value codes with −1 where an annotator gave no value,
plus the value table the codes index.

Value tables, chosen so that no result depends on the order of names:

- nominal and trace: the observed labels, sorted (any order gives the same α and κ);
- ordinal: the scheme's full scale in its own order (``Scheme.scale``), so weighted κ
  uses the whole scale, not only the values used;
- multilabel: the distinct label sets observed, sorted by their sorted members.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from app.core.model import Answer, TraceJudgement


@dataclass(frozen=True, slots=True)
class CodedUnits:
    codes: np.ndarray
    annotators: tuple[str, ...]
    values: tuple[object, ...]
    unit_items: tuple[str, ...]
    unit_keys: tuple[str, ...]

    @property
    def n_units(self) -> int:
        return int(self.codes.shape[0])


Row = tuple[str, str, Mapping[str, object]]
"""(item id, unit key, annotator → value) for one unit."""


def code_rows(rows: Sequence[Row], values: Sequence[object] | None = None) -> CodedUnits:
    """Code units; ``values`` fixes the table (ordinal scale), else it is observed."""
    annotators = tuple(sorted({a for _, _, by in rows for a in by}))
    column = {a: j for j, a in enumerate(annotators)}
    if values is None:
        observed = {v for _, _, by in rows for v in by.values()}
        values = sorted(observed, key=_sort_key)
    index = {v: k for k, v in enumerate(values)}
    codes = np.full((len(rows), len(annotators)), -1, dtype=np.int64)
    for i, (_, _, by) in enumerate(rows):
        for annotator, value in by.items():
            codes[i, column[annotator]] = index[value]
    return CodedUnits(
        codes=codes,
        annotators=annotators,
        values=tuple(values),
        unit_items=tuple(item for item, _, _ in rows),
        unit_keys=tuple(key for _, key, _ in rows),
    )


def categorical_rows(answers: Mapping[str, Mapping[str, Answer]]) -> list[Row]:
    """One unit per item, in sorted item order."""
    return [(item, "", dict(answers[item])) for item in sorted(answers)]


def trace_rows(answers: Mapping[str, Mapping[str, Answer]]) -> list[Row]:
    """One unit per (item, step key) that at least one annotator labelled."""
    rows: list[Row] = []
    for item in sorted(answers):
        by_step: dict[str, dict[str, object]] = {}
        for annotator, answer in answers[item].items():
            if not isinstance(answer, TraceJudgement):
                continue
            for step, label in answer.labelled().items():
                by_step.setdefault(step, {})[annotator] = label
        for step in sorted(by_step, key=_step_order):
            rows.append((item, step, by_step[step]))
    return rows


def _step_order(key: str) -> tuple[int, int | str]:
    return (0, int(key)) if key.lstrip("-").isdigit() else (1, key)


def _sort_key(value: object) -> tuple[int, object]:
    if isinstance(value, frozenset):
        return (1, tuple(sorted(value)))
    return (0, str(value))


def restrict(units: CodedUnits, annotators: Iterable[str]) -> CodedUnits:
    """The same units seen by a subset of annotators only."""
    keep = [j for j, a in enumerate(units.annotators) if a in set(annotators)]
    return CodedUnits(units.codes[:, keep], tuple(units.annotators[j] for j in keep),
                      units.values, units.unit_items, units.unit_keys)
