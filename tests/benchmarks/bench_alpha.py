"""Nominal Krippendorff's α on a million cells: accord versus the ``krippendorff`` package.

Run on purpose, from the project root::

    .venv/bin/python tests/benchmarks/bench_alpha.py

50,000 units × 20 annotators (10% missing, 5 categories, seed 20261130), best of five
runs of each implementation on the same array in the same process. Exits non-zero when
the two values differ by more than 1e-9 or when accord is the slower one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

N_UNITS = 50_000
N_ANNOTATORS = 20
N_CATEGORIES = 5
MISSING = 0.10
SEED = 20261130
REPEATS = 5
TOLERANCE = 1e-9


def make_data() -> np.ndarray:
    """Annotators × units reliability data with ``NaN`` for missing ratings."""
    rng = np.random.default_rng(SEED)
    data = rng.integers(0, N_CATEGORIES, size=(N_ANNOTATORS, N_UNITS)).astype(np.float64)
    data[rng.random(data.shape) < MISSING] = np.nan
    return data


def best_of(run: Callable[[], float], repeats: int = REPEATS) -> tuple[float, float]:
    """The fastest of ``repeats`` timed calls, and the value the last call returned."""
    best = float("inf")
    value = float("nan")
    for _ in range(repeats):
        start = time.perf_counter()
        value = run()
        best = min(best, time.perf_counter() - start)
    return best, value


def main() -> int:
    # This checkout's ``app`` first, whatever is installed.
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    import krippendorff

    from app.core.agreement.categorical.alpha import alpha_from_reliability

    data = make_data()

    def accord() -> float:
        result = alpha_from_reliability(data, "nominal")
        if result.value is None:
            raise SystemExit(f"accord returned no value: {result.reason}")
        return result.value

    def oracle() -> float:
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))

    accord_time, accord_value = best_of(accord)
    oracle_time, oracle_value = best_of(oracle)
    if not abs(accord_value - oracle_value) <= TOLERANCE:
        print(f"values differ: accord {accord_value!r}, krippendorff {oracle_value!r}")
        return 2

    ratio = oracle_time / accord_time
    verdict = "accord faster" if accord_time < oracle_time else "accord slower"
    print(f"nominal alpha {N_UNITS}x{N_ANNOTATORS}: accord {accord_time:.3f}s  "
          f"krippendorff {oracle_time:.3f}s  ratio {ratio:.2f}x ({verdict})")
    return 0 if accord_time < oracle_time else 1


if __name__ == "__main__":
    sys.exit(main())
