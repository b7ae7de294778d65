"""Monte-Carlo benchmark: how often ``no_worse_than_human`` is met under Potato 2.12.1's
method, by how good the machine truly is (see ``tests/core/no_worse_simulation.py`` for
the simulated study: a MethodView, evaluated at look 1).

    .venv/bin/python -m tests.benchmarks.bench_no_worse_mc [--studies 1000] [--seed 20260]

Prints, per scenario and study size, the share of studies that are met and the share
that are violated (the machine's mean advantage below the people's by more than
epsilon), each with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from pathlib import Path


def _wilson(passed: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = passed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.core.no_worse_simulation import SCENARIOS, pass_share

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--studies", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20260)
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"{'scenario':58} {'items':>5} {'met share':>9}  95% interval    "
          f"{'violated':>8}  95% interval")
    for n_items in (60, 150):
        for k, scenario in enumerate(SCENARIOS):
            s = dataclasses.replace(scenario, n_items=n_items)
            share = pass_share(s, args.studies, args.seed + 100 * n_items + k)
            low, high = _wilson(share.passed, share.studies)
            vlow, vhigh = _wilson(share.violated, share.studies)
            print(f"{s.name:58} {n_items:5d} {share.share:9.3f}  [{low:.3f}, {high:.3f}]  "
                  f"{share.violated_share:8.3f}  [{vlow:.3f}, {vhigh:.3f}]"
                  + (f"  ({share.undefined} undefined)" if share.undefined else ""))
    print(f"{args.studies} studies per row, {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
