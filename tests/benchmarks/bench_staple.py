"""STAPLE on five raters × a 1024×1024 mask: accord versus SimpleITK's ``STAPLEImageFilter``.

Run on purpose, from the project root::

    .venv/bin/python tests/benchmarks/bench_staple.py

The truth is a disc with a square hole; the five raters erode or dilate it by a few
pixels and flip 1% to 20% of pixels at random (seed 20261130). Best of five runs of each
implementation on the same masks in the same process; SimpleITK gets its images ready
made, so only the filter is timed. Exits non-zero when any sensitivity, specificity or
pixel probability differs by more than 1e-6, or when accord is the slower one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

SIZE = 1024
RATERS = 5
SEED = 20261130
REPEATS = 5
TOLERANCE = 1e-6

T = TypeVar("T")


def make_masks() -> np.ndarray:
    """``(raters, SIZE, SIZE)`` boolean masks of one object, each rater with own habits."""
    rng = np.random.default_rng(SEED)
    yy, xx = np.mgrid[:SIZE, :SIZE]
    distance = np.hypot(yy - SIZE * 0.48, xx - SIZE * 0.52)
    hole = (np.abs(yy - SIZE * 0.45) < SIZE * 0.06) & (np.abs(xx - SIZE * 0.55) < SIZE * 0.06)
    masks = []
    for margin, flips in zip((-6.0, -2.0, 0.0, 3.0, 8.0), (0.01, 0.03, 0.05, 0.10, 0.20),
                             strict=True):
        mask = (distance < SIZE * 0.3 + margin) & ~hole
        mask ^= rng.random(mask.shape) < flips
        masks.append(mask)
    return np.array(masks)


def best_of(run: Callable[[], T], repeats: int = REPEATS) -> tuple[float, T]:
    """The fastest of ``repeats`` timed calls, and what the last call returned."""
    best = float("inf")
    value = run()
    for _ in range(repeats):
        start = time.perf_counter()
        value = run()
        best = min(best, time.perf_counter() - start)
    return best, value


def main() -> int:
    # This checkout's ``app`` first, whatever is installed.
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    import SimpleITK as sitk  # noqa: N813 - the package's own usual alias

    from app.core.agreement.masks.staple import StapleResult, staple

    masks = make_masks()
    images = [sitk.GetImageFromArray(m.astype(np.uint8)) for m in masks]

    def accord() -> StapleResult:
        return staple(masks)

    def oracle() -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        f = sitk.STAPLEImageFilter()
        f.SetForegroundValue(1.0)
        out = f.Execute(images)
        return (sitk.GetArrayFromImage(out), np.asarray(f.GetSensitivity()),
                np.asarray(f.GetSpecificity()), int(f.GetElapsedIterations()))

    accord_time, mine = best_of(accord)
    oracle_time, (probability, sensitivity, specificity, elapsed) = best_of(oracle)
    differences = {
        "probability": float(np.abs(mine.probability - probability).max()),
        "sensitivity": float(np.abs(mine.sensitivity - sensitivity).max()),
        "specificity": float(np.abs(mine.specificity - specificity).max()),
    }
    worst = max(differences.values())
    if not worst <= TOLERANCE:
        print(f"estimates differ: {differences}")
        return 2

    ratio = oracle_time / accord_time
    verdict = "accord faster" if accord_time < oracle_time else "accord slower"
    print(f"STAPLE {RATERS}x{SIZE}x{SIZE}: accord {accord_time:.3f}s  "
          f"SimpleITK {oracle_time:.3f}s  ratio {ratio:.1f}x ({verdict}); "
          f"{mine.iterations} iterations (ITK {elapsed + 1}), max difference {worst:.1e}")
    return 0 if accord_time < oracle_time else 1


if __name__ == "__main__":
    sys.exit(main())
