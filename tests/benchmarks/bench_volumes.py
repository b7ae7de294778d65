"""Dice over label volumes: Accord versus Potato 2.12.1's ``volume_report``, in one run.

Run on purpose, from the project root::

    .venv/bin/python tests/benchmarks/bench_volumes.py [--volumes 50] [--size 256]

3 annotators × ``--volumes`` items, each a ``size³`` volume with two labels (a large
"organ" ellipsoid and three small "lesion" ones; every annotator draws the same truth
moved by a voxel or two and scaled by a few percent, seed 382), stored as Potato's widget
saves them (``{"_data": JSON}``, slices encoded by Potato's own ``rle_encode``). Both
sides start from the same stored strings and parse them: Potato's ``volume_report``
(``json.loads``, ``label_volume`` decoding every slice into full boolean volumes, numpy
``logical_and``) against Accord's ``parse_answer`` reading and ``volume_agreement`` (run
intervals, binary search; no volume built). Prints both times and the ratio; exits
non-zero when the rounded numbers differ or Accord is the slower.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SEED = 382
LABELS = ["Organ", "Lesion"]
USERS = ("a", "b", "c")


def _ellipsoid(shape: tuple[int, int, int], centre: np.ndarray, radii: np.ndarray
               ) -> np.ndarray:
    """Boolean ellipsoid, computed in its bounding box only."""
    out = np.zeros(shape, bool)
    lo = np.maximum(np.floor(centre - radii).astype(int), 0)
    hi = np.minimum(np.ceil(centre + radii).astype(int) + 1, shape)
    i, j, k = np.ogrid[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]]
    out[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]] = (
        ((i - centre[0]) / radii[0]) ** 2 + ((j - centre[1]) / radii[1]) ** 2
        + ((k - centre[2]) / radii[2]) ** 2 < 1)
    return out


def make_rows(n: int, size: int) -> dict[str, dict[str, dict[str, str]]]:
    from potato.media.volume_masks import rle_encode

    shape = (size, size, size)
    rng = np.random.default_rng(SEED)
    rows: dict[str, dict[str, dict[str, str]]] = {}
    for item in range(n):
        organ = (rng.uniform(0.4, 0.6, 3) * size, rng.uniform(0.2, 0.3, 3) * size)
        lesions = [(rng.uniform(0.3, 0.7, 3) * size, rng.uniform(0.03, 0.06, 3) * size)
                   for _ in range(3)]
        for user in USERS:
            volumes = {}
            for label, objects in (("Organ", [organ]), ("Lesion", lesions)):
                vol = np.zeros(shape, bool)
                for centre, radii in objects:
                    vol |= _ellipsoid(shape, centre + rng.normal(0, 1.0, 3),
                                      radii * (1 + rng.normal(0, 0.03, 3)))
                volumes[label] = vol
            masks = {label: {str(k): rle_encode(vol[:, :, k].T) for k in range(size)
                             if vol[:, :, k].any()} for label, vol in volumes.items()}
            answer = {"volume": f"v{item}.nii.gz", "shape": list(shape), "labels": LABELS,
                      "masks": masks, "shapes": []}
            rows.setdefault(f"v{item:03d}", {})[user] = {"_data": json.dumps(answer)}
    return rows


def accord(rows: dict[str, dict[str, dict[str, str]]]) -> Any:
    from app.core.agreement.volumes.report import volume_agreement
    from app.core.formats.potato.answers import parse_answer
    from app.core.formats.potato.place import Place
    from app.core.model import Kind, Scheme, VolumeMasks

    scheme = Scheme("seg", "volume_annotation", Kind.VOLUMES, labels=tuple(LABELS))
    answers: dict[str, dict[str, VolumeMasks]] = {}
    for item, by in rows.items():
        for user, value in by.items():
            parsed = parse_answer(scheme, list(value.items()), [],
                                  Place(Path("user_state.json"), item, "seg", user)).answer
            assert isinstance(parsed, VolumeMasks)
            answers.setdefault(item, {})[user] = parsed
    return volume_agreement(answers, LABELS)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--volumes", type=int, default=50)
    parser.add_argument("--size", type=int, default=256)
    args = parser.parse_args(argv)
    from potato.server_utils.iaa.volume_agreement import volume_report

    accord(make_rows(1, 8))  # imports, outside the timing
    start = time.perf_counter()
    rows = make_rows(args.volumes, args.size)
    mb = sum(len(v["_data"]) for by in rows.values() for v in by.values()) / 1e6
    print(f"data: {len(USERS)} annotators x {args.volumes} volumes of {args.size}^3, "
          f"2 labels, {mb:.1f} MB of stored JSON, made in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    ours = accord(rows)
    t_accord = time.perf_counter() - start
    start = time.perf_counter()
    theirs = volume_report(rows, {"labels": LABELS})
    t_potato = time.perf_counter() - start
    same = (theirs["n_items"] == ours.n_items
            and theirs["n_pairs_by_label"] == ours.n_pairs_by_label
            and all(round(v, 4) == theirs["dice_by_label"][k]
                    for k, v in ours.dice_by_label.items() if v is not None))
    print(f"Accord  {t_accord:8.2f} s   mean_dice {ours.mean_dice:.6f}  "
          f"by label { {k: round(v, 6) for k, v in ours.dice_by_label.items() if v} }")
    print(f"Potato  {t_potato:8.2f} s   mean_dice {theirs['mean_dice']}  "
          f"by label {theirs['dice_by_label']}")
    print(f"ratio   {t_potato / t_accord:8.1f}x  (goal >= 20x)   same numbers: {same}")
    return 0 if same and t_accord < t_potato else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
