"""Accord against the tool users compare it with: Potato 2.12.1, measured in one process.

Run on purpose, from the project root::

    .venv/bin/python tests/benchmarks/bench_vs_potato.py [--quick]

Potato (``potato-annotation==2.12.1``) is a benchmark-only dependency, in the ``test``
extra; Accord never needs it to run or to be tested. Without it this prints one sentence
and exits 0.

What it measures (seed 20261202), one line per comparison with the ratio and the largest
difference between the two tools' values:

1. **A lidar study end to end** (first, so that the process's peak memory is Potato's
   study and not the pair sets below). The study of ``bench_lidar_study.py`` written as a
   Potato project: the issue's 60 sweeps × 3 annotators × 20 boxes, then the benchmark's
   2,000 × 3 × 40 (``--quick``: the small one only). *Potato*: in this process, reading
   the annotators' ``user_state.json`` files, Potato's own ``normalize_spatial_object``
   and ``iou_cuboid_3d`` for every cross pair, and the spec's matching and scoring
   (``agreement.md``, Sets of objects: Hungarian on ``IoU · [IoU ≥ 0.25]``, then the item
   score, detection F1 and matched IoU), timed from reading to the four means. *Accord*:
   the whole ``accord agreement --json`` process (start-up, reading, bootstrap intervals,
   per-pair matrices: everything the command does), best of five, under
   ``/usr/bin/time -v`` for its peak memory. The four means must agree to 1e-9.
   Accord runs with its bytecode compiled once beforehand (a cache in the temporary
   folder, one untimed run), as an installed Accord has it (pip writes the ``.pyc``
   files, the frozen app holds them); where ``PYTHONDONTWRITEBYTECODE`` is set (this
   machine) a checkout has none, so the line also gives the time of the same runs
   compiling Accord's sources every time, and its ratio.
2. **Exact 3D IoU, pair by pair**: Potato's ``iou_cuboid_3d`` (one call per pair, its
   inputs built beforehand) against :func:`~app.core.geometry.cuboids.cuboid_iou_pairs`
   (one call for all, best of five) on the same 20,000 pairs of each set:

   - *overlapping, any rotation*: sizes 0.5-5 m, the second box's centre moved by
     N(0, 0.25 × size) per axis and its sizes scaled by U(0.7, 1.3), both boxes turned by
     independent uniformly random rotations; only overlapping pairs are kept;
   - *overlapping, yaw only*: the same, turned about the vertical axis only;
   - *random*: the recipe of ``bench_cuboid_iou.py`` (sizes 0.2-5 m, random rotations,
     centres within ±6 m per axis), about 10% overlapping.

   Where the two differ by more than 1e-9, the scipy oracle of
   ``tests/core/cuboid_cases.py`` decides on the most different pairs, and the line says
   whose value it confirms.

Times are CPU seconds (:func:`time.process_time` here, user + system of the child for
the ``accord`` process), so that other work on the machine favours neither side; the
study lines give the wall times too. The ratio is Potato's time over Accord's.

Exits 2 when Accord differs from the oracle (or, on the study, from the spec's
recomputation) by more than 1e-9, else 0. The ratios are printed, not asserted: the
goals (issue 17) are ≥ 100× on overlapping any-rotation and random pairs, ≥ 50× yaw only,
≥ 20× on the study end to end.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's ``app`` and its test oracle first
sys.path.insert(0, str(HERE))  # beside timing.py and the other benchmarks

SEED = 20261202
N_PAIRS = 20_000
REPEATS = 5
TOLERANCE = 1e-9
THRESHOLD = 0.25
BUDGET = 100_000_000
STUDIES = ((60, 20), (2_000, 40))
"""(sweeps, boxes per sweep) of the lidar studies: the issue's, then the benchmark's."""
N_ORACLE_CHECKS = 20
MISSING = (
    "Potato (potato-annotation 2.12.1, a benchmark-only extra) is not installed, "
    "so there is nothing to compare with: skipped."
)

Box = dict[str, Any]


# ----------------------------------------------------------------------------- pairs


def _random_rotations(rng: np.random.Generator, n: int) -> np.ndarray:
    q = rng.normal(size=(n, 4))
    unit: np.ndarray = q / np.linalg.norm(q, axis=1, keepdims=True)
    return unit


def _yaw_rotations(rng: np.random.Generator, n: int) -> np.ndarray:
    yaw = rng.uniform(-np.pi, np.pi, n)
    return np.column_stack([np.zeros((n, 2)), np.sin(yaw / 2), np.cos(yaw / 2)])


def overlapping_pairs(yaw_only: bool) -> tuple[np.ndarray, np.ndarray]:
    """:data:`N_PAIRS` overlapping pairs (perturbed copies), box rows ``(n, 10)``."""
    from app.core.geometry.cuboids import cuboid_iou_pairs

    rng = np.random.default_rng(SEED + int(yaw_only))
    n = N_PAIRS * 11 // 10
    turns = _yaw_rotations if yaw_only else _random_rotations
    centres, sizes = rng.uniform(-50.0, 50.0, (n, 3)), rng.uniform(0.5, 5.0, (n, 3))
    a = np.column_stack([centres, sizes, turns(rng, n)])
    b = np.column_stack(
        [
            centres + rng.normal(0.0, 0.25, (n, 3)) * sizes,
            sizes * rng.uniform(0.7, 1.3, (n, 3)),
            turns(rng, n),
        ]
    )
    keep = np.flatnonzero(cuboid_iou_pairs(a, b) > 0)[:N_PAIRS]
    assert keep.size == N_PAIRS, "too few overlapping pairs drawn"
    return a[keep], b[keep]


def random_pairs() -> tuple[np.ndarray, np.ndarray]:
    """:data:`N_PAIRS` pairs as ``bench_cuboid_iou.py`` draws them: about 10% overlap."""
    rng = np.random.default_rng(SEED + 2)
    centres = rng.uniform(-50.0, 50.0, (N_PAIRS, 3))
    a = np.column_stack(
        [centres, rng.uniform(0.2, 5.0, (N_PAIRS, 3)), _random_rotations(rng, N_PAIRS)]
    )
    b = np.column_stack(
        [
            centres + rng.uniform(-6.0, 6.0, (N_PAIRS, 3)),
            rng.uniform(0.2, 5.0, (N_PAIRS, 3)),
            _random_rotations(rng, N_PAIRS),
        ]
    )
    return a, b


def as_potato_boxes(rows: np.ndarray) -> list[Box]:
    """Box rows as the dicts Potato's ``normalize_spatial_object`` returns."""
    return [
        {
            "type": "cuboid_3d",
            "center": list(r[0:3]),
            "size": list(r[3:6]),
            "rotation": tuple(r[6:10]),
        }
        for r in rows.tolist()
    ]


def best_of(repeats: int, run: Callable[[], object]) -> float:
    """Shortest CPU time of ``repeats`` runs (this process, :func:`time.process_time`)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def pairs_line(label: str, a: np.ndarray, b: np.ndarray) -> tuple[str, int]:
    """Time both kernels on the same pairs; the printed line and an exit code."""
    from potato.server_utils.iaa.geometry import iou_cuboid_3d

    from app.core.geometry.cuboids import cuboid_iou_pairs
    from tests.core.cuboid_cases import oracle_iou

    ours = cuboid_iou_pairs(a, b)
    ours_time = best_of(REPEATS, lambda: cuboid_iou_pairs(a, b))
    boxes_a, boxes_b = as_potato_boxes(a), as_potato_boxes(b)
    start = time.process_time()
    theirs = np.array([iou_cuboid_3d(x, y) for x, y in zip(boxes_a, boxes_b, strict=True)])
    potato_time = time.process_time() - start

    diff = np.abs(ours - theirs)
    verdict, code = "", 0
    if diff.max() > TOLERANCE:  # the oracle decides on the most different pairs
        worst = np.argsort(diff)[::-1][:N_ORACLE_CHECKS]
        worst = worst[diff[worst] > TOLERANCE]
        truth = np.array([oracle_iou(a[i], b[i]) for i in worst])
        ours_off = float(np.abs(ours[worst] - truth).max())
        potato_off = float(np.abs(theirs[worst] - truth).max())
        verdict = (
            f"; on the {worst.size} most different pairs the scipy oracle is within "
            f"{ours_off:.1e} of Accord and {potato_off:.1e} of Potato"
        )
        code = 2 if ours_off > TOLERANCE else 0
    overlapping = float((ours > 0).mean())
    ratio = potato_time / ours_time
    line = (
        f"cuboid IoU, {label}, {len(a):,} pairs ({overlapping:.0%} overlapping): "
        f"Accord {len(a) / ours_time:,.0f} pairs/s, Potato {len(a) / potato_time:,.0f} "
        f"pairs/s, ratio {ratio:,.1f}x; largest difference {diff.max():.1e}{verdict}"
    )
    return line, code


# ----------------------------------------------------------------------------- study


def potato_study(project: Path) -> dict[str, float]:
    """The spec's four means over every pair of every item, with Potato's own kernel."""
    from potato.export.spatial_utils import normalize_spatial_object
    from potato.server_utils.iaa.geometry import iou_cuboid_3d
    from scipy.optimize import linear_sum_assignment

    answers: dict[str, dict[str, list[Box]]] = {}
    for state in sorted((project / "annotations").glob("*/user_state.json")):
        data = json.loads(state.read_text())
        for item, entries in data["instance_id_to_label_to_value"].items():
            for key, value in entries:
                if key.get("schema") == "objects":
                    boxes = [normalize_spatial_object(o) for o in json.loads(value)]
                    answers.setdefault(item, {})[data["user_id"]] = [
                        o for o in boxes if o is not None
                    ]
    scores, diffs, f1s, matched_ious = [], [], [], []
    for item in sorted(answers):
        by = answers[item]
        for x, y in itertools.combinations(sorted(by), 2):
            a, b = by[x], by[y]
            if not a and not b:
                scores.append(1.0)
                diffs.append(0)
                f1s.append(1.0)
                continue
            s = np.array([[iou_cuboid_3d(p, q) for q in b] for p in a]).reshape(len(a), len(b))
            weights = np.where(s >= THRESHOLD, s, 0.0)
            rows, cols = linear_sum_assignment(weights, maximize=True)
            keep = weights[rows, cols] > 0
            rows, cols = rows[keep], cols[keep]
            same = np.array(
                [a[i]["label"] == b[j]["label"] for i, j in zip(rows, cols, strict=True)],
                dtype=bool,
            )
            ious = s[rows, cols]
            credit = float(np.where(same, ious, ious / 2).sum())
            scores.append(credit / (len(a) + len(b) - rows.size))
            diffs.append(abs(len(a) - len(b)))
            f1s.append(2 * rows.size / (len(a) + len(b)))
            matched_ious.extend(ious.tolist())
    return {
        "mean_agreement": float(np.mean(scores)),
        "mean_object_count_diff": float(np.mean(diffs)),
        "detection_f1": float(np.mean(f1s)),
        "mean_matched_iou": float(np.mean(matched_ious)),
    }


def accord_runs(command: list[str]) -> tuple[float, float, float, str]:
    """Best CPU and wall seconds of :data:`REPEATS` runs of ``command``, their largest
    peak MiB, and the first run's stdout."""
    from timing import timed

    runs, cpu = [], []
    for _ in range(REPEATS):
        before = children_cpu()
        runs.append(timed(command))
        cpu.append(children_cpu() - before)
    return min(cpu), min(r[0] for r in runs), max(r[1] for r in runs), runs[0][2]


def study_line(sweeps: int, per_sweep: int, folder: Path) -> tuple[str, int]:
    import bench_lidar_study

    project = folder / f"lidar_{sweeps}x{per_sweep}"
    bench_lidar_study.PER_SWEEP = per_sweep  # the generator reads it when it runs
    bench_lidar_study.generate(project, sweeps)
    accord = [sys.executable, "-m", "app", "agreement", str(project), "--json",
              "--budget", str(BUDGET)]
    # Bytecode written once to a cache of its own (the untimed run), then read.
    cached = ["env", "-u", "PYTHONDONTWRITEBYTECODE",
              f"PYTHONPYCACHEPREFIX={folder / 'pycache'}", *accord]
    subprocess.run(cached, capture_output=True, check=True, cwd=ROOT)
    ours_time, ours_wall, ours_mib, stdout = accord_runs(cached)
    compiling = ""
    uncached_time = None
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        uncached_time, *_ = accord_runs(accord)
    report = json.loads(stdout)["schemes"]["objects"]["metrics"]

    start, start_wall = time.process_time(), time.perf_counter()
    theirs = potato_study(project)
    potato_time = time.process_time() - start
    potato_wall = time.perf_counter() - start_wall
    potato_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0

    diff = max(abs(report[k] - v) for k, v in theirs.items())
    code = 0 if diff <= TOLERANCE else 2
    if uncached_time is not None:
        compiling = (f"; compiling its sources every run (PYTHONDONTWRITEBYTECODE) "
                     f"{uncached_time:.2f}s CPU, ratio {potato_time / uncached_time:.1f}x")
    line = (
        f"lidar study {sweeps:,} sweeps x 3 annotators x {per_sweep} boxes, end to end: "
        f"accord agreement --json {ours_time:.2f}s CPU ({ours_wall:.2f}s wall, peak "
        f"{ours_mib:.0f} MiB; bytecode compiled once{compiling}), "
        f"Potato's iou_cuboid_3d + the spec's matching and scoring "
        f"{potato_time:.2f}s CPU ({potato_wall:.2f}s wall; this process's peak so far "
        f"{potato_mib:.0f} MiB), ratio {potato_time / ours_time:.1f}x;"
        f" largest difference of the four means {diff:.1e}"
    )
    return line, code


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the small lidar study only (skips the 2,000-sweep one)",
    )
    args = parser.parse_args(argv)
    if importlib.util.find_spec("potato") is None:
        print(MISSING)
        return 0
    codes = []
    with tempfile.TemporaryDirectory() as tmp:
        for sweeps, per_sweep in STUDIES[:1] if args.quick else STUDIES:
            line, code = study_line(sweeps, per_sweep, Path(tmp))
            print(line, flush=True)
            codes.append(code)
    for label, (a, b) in (
        ("overlapping, any rotation", overlapping_pairs(False)),
        ("overlapping, yaw only", overlapping_pairs(True)),
        ("random (about 10% overlapping)", random_pairs()),
    ):
        line, code = pairs_line(label, a, b)
        print(line, flush=True)
        codes.append(code)
    return max(codes)


if __name__ == "__main__":
    sys.exit(main())
