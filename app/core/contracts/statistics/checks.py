"""Input checks shared by the statistics modules (:mod:`.binomial`, :mod:`.jensen_shannon`).

Each check raises ``TypeError`` or ``ValueError`` with a sentence naming the problem,
so nothing downstream has to return NaN for malformed input.
"""

from __future__ import annotations

from numbers import Integral


def _count(value: object, name: str) -> int:
    """An integer count, refusing floats (and bools) with ``TypeError``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(
            f"{name} must be an integer count, got {value!r} ({type(value).__name__}); "
            "rebuild counts from the labels, never from a float rate")
    return int(value)


def _counts(k: object, n: object) -> tuple[int, int]:
    k_, n_ = _count(k, "k"), _count(n, "n")
    if n_ < 0 or not 0 <= k_ <= n_:
        raise ValueError(f"need 0 <= k <= n, got k={k_}, n={n_}")
    return k_, n_


def _probability(value: float, name: str, *, open_interval: bool = True) -> float:
    v = float(value)
    ok = 0.0 < v < 1.0 if open_interval else 0.0 <= v <= 1.0
    if not ok:
        bounds = "(0, 1)" if open_interval else "[0, 1]"
        raise ValueError(f"{name} must lie in {bounds}, got {value!r}")
    return v
