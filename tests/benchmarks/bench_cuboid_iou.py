"""Exact 3D IoU of oriented boxes: accord versus a per-pair scipy oracle, and a lidar batch.

Run on purpose, from the project root::

    .venv/bin/python tests/benchmarks/bench_cuboid_iou.py

Prints three lines (seed 20261130):

1. **Any rotation.** 1,000,000 random pairs (sizes 0.2-5 m, uniformly random rotations,
   the second centre within ±6 m of the first on each axis, so about 10% overlap).
   Overlapping pairs mostly take the general clipping path.
2. **Yaw only.** 1,000,000 pairs of lidar-style boxes, rotated about the sensor's z axis
   only (same sizes, the second centre within ±6.7 m), so about 10% overlap again: every
   overlapping pair takes the exact shared-axis (right prism) fast path.

   For both, accord's :func:`~app.core.geometry.cuboids.cuboid_iou_pairs` (pre-filters
   included) runs on all pairs, best of three, and then on the overlapping pairs alone,
   for the cost per overlapping pair of the path they take. The oracle of
   ``tests/core/cuboid_cases.py`` (scipy's ``linprog`` Chebyshev centre,
   ``HalfspaceIntersection`` and ``ConvexHull``, one pair at a time) would take most of
   an hour on a million pairs, so it runs once on a random subsample of 2,000 pairs and
   its per-pair time is extrapolated; the output says so.
3. **A lidar study in one batch.** :func:`~app.core.geometry.cuboids.cuboid_iou_matrices`
   on 2,000 items × 3 annotator pairs of 40 × 40 boxes (4.5 × 1.9 × 1.6 m, placed
   uniformly in a 120 m × 120 m square; a quarter of the objects have a pitch and roll
   within ±0.03 rad, drawn anew for each annotator, the rest are yaw only; annotator
   ``k`` displaces each centre by N(0, 0.1 k m) per axis and the yaw by N(0, 0.025 k)
   rad). Best of three, checked against the oracle on 1,000 random cells that the
   sphere filter lets through. For scale, the same matrices one call each are timed on a
   tenth of the items and extrapolated.

Like the ``accord`` command, it first pins glibc's heap thresholds
(:func:`app.core.memory_tuning.tune_allocator`), so the kernel's block temporaries are not
paged in again on every call.

Exits 2 when a value on a subsample differs from the oracle by more than 1e-9, 1 when
accord is less than 50 times faster per pair than the oracle on line 1 or 2, else 0.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

N_PAIRS = 1_000_000
N_ORACLE = 2_000
SPREAD = 6.0
YAW_SPREAD = 6.7
"""Yaw-only boxes overlap a little more often at the same spread: this brings them to 10%."""
SEED = 20261130
REPEATS = 3
TOLERANCE = 1e-9
REQUIRED_RATIO = 50.0

ITEMS = 2_000
ANNOTATORS = 3
PER_ITEM = 40
CAR = (4.5, 1.9, 1.6)
TILTED_SHARE = 0.25
MAX_TILT = 0.03
N_BATCH_ORACLE = 1_000

Oracle = Callable[[np.ndarray, np.ndarray], float]


def random_quaternions(rng: np.random.Generator, n: int) -> np.ndarray:
    """Uniformly random rotations: normalized 4D Gaussian vectors."""
    q = rng.normal(size=(n, 4))
    normalized: np.ndarray = q / np.linalg.norm(q, axis=1, keepdims=True)
    return normalized


def yaw_quaternions(yaw: np.ndarray) -> np.ndarray:
    """Rotations about the sensor's z axis only: ``(0, 0, sin θ/2, cos θ/2)``."""
    return np.column_stack([np.zeros((len(yaw), 2)), np.sin(yaw / 2), np.cos(yaw / 2)])


def tilted_quaternions(yaw: np.ndarray, pitch: np.ndarray, roll: np.ndarray) -> np.ndarray:
    """Yaw, then pitch, then roll (intrinsic z-y-x), as the lidar study benchmark writes."""
    cy, sy = np.cos(yaw / 2), np.sin(yaw / 2)
    cp, sp = np.cos(pitch / 2), np.sin(pitch / 2)
    cr, sr = np.cos(roll / 2), np.sin(roll / 2)
    return np.column_stack([sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
                            cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy])


def make_pairs(yaw_only: bool) -> tuple[np.ndarray, np.ndarray]:
    """Box rows ``[cx, cy, cz, l, w, h, qx, qy, qz, qw]`` for both sides of every pair."""
    rng = np.random.default_rng(SEED + int(yaw_only))
    centers = rng.uniform(-50.0, 50.0, (N_PAIRS, 3))

    def turns() -> np.ndarray:
        if yaw_only:
            return yaw_quaternions(rng.uniform(-np.pi, np.pi, N_PAIRS))
        return random_quaternions(rng, N_PAIRS)

    a = np.column_stack([centers, rng.uniform(0.2, 5.0, (N_PAIRS, 3)), turns()])
    spread = YAW_SPREAD if yaw_only else SPREAD
    b = np.column_stack([centers + rng.uniform(-spread, spread, (N_PAIRS, 3)),
                         rng.uniform(0.2, 5.0, (N_PAIRS, 3)), turns()])
    return a, b


def best_of(repeats: int, run: Callable[[], object]) -> float:
    """Shortest wall time of ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def pairs_line(label: str, yaw_only: bool, oracle_iou: Oracle) -> tuple[str, int]:
    """Time accord on a million pairs and the oracle on a subsample; the line, exit code."""
    from app.core.geometry.cuboids import cuboid_iou_pairs

    a, b = make_pairs(yaw_only)
    values = cuboid_iou_pairs(a, b)
    accord_time = best_of(REPEATS, lambda: cuboid_iou_pairs(a, b))

    sample = np.random.default_rng(SEED + 1).choice(N_PAIRS, N_ORACLE, replace=False)
    start = time.perf_counter()
    expected = np.array([oracle_iou(a[i], b[i]) for i in sample])
    oracle_time = time.perf_counter() - start

    diff = np.abs(values[sample] - expected)
    if not diff.max() <= TOLERANCE:
        worst = int(np.argmax(diff))
        return (f"{label}: values differ on pair {sample[worst]}: accord "
                f"{values[sample[worst]]!r}, oracle {expected[worst]!r}"), 2

    overlapping = values > 0
    alone_a, alone_b = a[overlapping], b[overlapping]
    alone_time = best_of(REPEATS, lambda: cuboid_iou_pairs(alone_a, alone_b))
    accord_rate = N_PAIRS / accord_time
    oracle_rate = N_ORACLE / oracle_time
    ratio = accord_rate / oracle_rate
    verdict = "ok" if ratio >= REQUIRED_RATIO else f"below the {REQUIRED_RATIO:.0f}x goal"
    line = (f"cuboid IoU, {label}, {N_PAIRS:,} pairs ({overlapping.mean():.1%} overlapping): "
            f"accord {accord_time:.2f}s = {accord_rate:,.0f} pairs/s "
            f"(the overlapping ones alone: {alone_time / overlapping.sum() * 1e6:.1f} µs "
            f"per pair)  "
            f"scipy oracle {oracle_rate:,.0f} pairs/s (timed on {N_ORACLE:,} random pairs, "
            f"extrapolated: {N_PAIRS / oracle_rate:,.0f}s)  ratio {ratio:,.0f}x ({verdict}; "
            f"max |diff| {diff.max():.1e} on the subsample)")
    return line, 0 if ratio >= REQUIRED_RATIO else 1


def make_study() -> tuple[list[tuple[np.ndarray, np.ndarray]], list[np.ndarray]]:
    """The lidar-study batch: per item, the 3 annotator pairs' ``(40, 10)`` box arrays.

    Returns the pairs and, per pair, whether each cell involves a tilted box.
    """
    rng = np.random.default_rng(SEED + 2)
    truth = np.column_stack([rng.uniform(-60.0, 60.0, (ITEMS * PER_ITEM, 2)),
                             np.full(ITEMS * PER_ITEM, CAR[2] / 2)])
    yaw = rng.uniform(-np.pi, np.pi, ITEMS * PER_ITEM)
    tilted = rng.random(ITEMS * PER_ITEM) < TILTED_SHARE
    copies = []
    for k in range(1, ANNOTATORS + 1):
        noise = 0.1 * k
        tilt = np.where(tilted[:, None],
                        rng.uniform(-MAX_TILT, MAX_TILT, (ITEMS * PER_ITEM, 2)), 0.0)
        turned = tilted_quaternions(yaw + rng.normal(0.0, noise / 4, len(yaw)),
                                    tilt[:, 0], tilt[:, 1])
        boxes = np.column_stack([truth + rng.normal(0.0, noise, truth.shape),
                                 np.tile(CAR, (len(truth), 1)), turned])
        copies.append(boxes.reshape(ITEMS, PER_ITEM, 10))
    flags = tilted.reshape(ITEMS, PER_ITEM)
    pairs, involves_tilt = [], []
    for item in range(ITEMS):
        for i in range(ANNOTATORS):
            for j in range(i + 1, ANNOTATORS):
                pairs.append((copies[i][item], copies[j][item]))
                involves_tilt.append(flags[item][:, None] | flags[item][None, :])
    return pairs, involves_tilt


def batch_line(oracle_iou: Oracle) -> tuple[str, int]:
    """Time :func:`cuboid_iou_matrices` on the lidar study; check a sample of cells."""
    from app.core.geometry.cuboids import cuboid_iou_matrices

    pairs, involves_tilt = make_study()
    matrices = cuboid_iou_matrices(pairs)
    batch_time = best_of(REPEATS, lambda: cuboid_iou_matrices(pairs))
    tenth = pairs[:len(pairs) // 10]
    one_by_one = best_of(1, lambda: [cuboid_iou_matrices([pair]) for pair in tenth]) * 10

    values = np.concatenate([m.ravel() for m in matrices])
    tilt = np.concatenate([t.ravel() for t in involves_tilt])
    near = []  # (pair, i, j) of every cell the bounding spheres do not rule out
    for index, (a, b) in enumerate(pairs):
        reach = (np.linalg.norm(a[:, None, 3:6], axis=2)
                 + np.linalg.norm(b[None, :, 3:6], axis=2)) / 2
        i, j = np.nonzero(np.linalg.norm(a[:, None, 0:3] - b[None, :, 0:3], axis=2) <= reach)
        near.append(np.column_stack([np.full(i.size, index), i, j]))
    cells = np.concatenate(near)
    picked = cells[np.random.default_rng(SEED + 3).choice(len(cells), N_BATCH_ORACLE,
                                                          replace=False)]
    ours = np.array([matrices[p][i, j] for p, i, j in picked])
    expected = np.array([oracle_iou(pairs[p][0][i], pairs[p][1][j]) for p, i, j in picked])
    diff = np.abs(ours - expected)
    if not diff.max() <= TOLERANCE:
        worst = int(np.argmax(diff))
        return (f"lidar batch: values differ on cell {picked[worst].tolist()}: accord "
                f"{ours[worst]!r}, oracle {expected[worst]!r}"), 2

    overlapping = values > 0
    line = (f"cuboid_iou_matrices, lidar study {ITEMS:,} items x {len(pairs) // ITEMS} "
            f"annotator pairs x ({PER_ITEM} x {PER_ITEM}) boxes = {values.size:,} cells: "
            f"{batch_time:.2f}s  ({len(cells):,} past the sphere filter, "
            f"{overlapping.sum():,} overlapping: {(overlapping & ~tilt).sum():,} both yaw "
            f"only, {(overlapping & tilt).sum():,} with a tilted box)  one call per matrix "
            f"{one_by_one:.1f}s (a tenth timed, extrapolated)  max |diff| {diff.max():.1e} "
            f"vs the oracle on {N_BATCH_ORACLE:,} cells")
    return line, 0


def main() -> int:
    # This checkout's ``app`` (and its test oracle) first, whatever is installed.
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from app.core.memory_tuning import tune_allocator
    from tests.core.cuboid_cases import oracle_iou

    tune_allocator()  # glibc's heap thresholds pinned, as the accord command does
    codes = []
    for label, yaw_only in (("any rotation", False), ("yaw only", True)):
        line, code = pairs_line(label, yaw_only, oracle_iou)
        print(line, flush=True)
        codes.append(code)
    line, code = batch_line(oracle_iou)
    print(line, flush=True)
    codes.append(code)
    return max(codes)


if __name__ == "__main__":
    sys.exit(main())
