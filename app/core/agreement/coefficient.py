"""A coefficient's value, or the sentence that says why it has none.

Undefined is a value with a reason: every function that can meet 0/0 returns
``Coefficient(None, "why")`` rather than NaN, and never 1.0 for "no data".
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Coefficient:
    value: float | None
    reason: str | None = None

    @classmethod
    def of(cls, value: float) -> Coefficient:
        """A defined value; a non-finite one is a bug upstream, never output."""
        if not math.isfinite(value):
            raise ValueError(f"coefficient computed as {value}; undefined cases need a reason")
        return cls(float(value), None)

    @classmethod
    def undefined(cls, reason: str) -> Coefficient:
        return cls(None, reason)

    @property
    def defined(self) -> bool:
        return self.value is not None
