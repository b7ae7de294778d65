"""Monte-Carlo validity of ``selective_risk`` under Potato 2.12.1's method, on many
simulated studies.

Run from the project root: ``.venv/bin/python tests/benchmarks/bench_selective_risk_mc.py
[studies]`` (5,000 by default). For each scenario (confidences that mean something, or
a flat error the confidence does not predict; one look with every label in, or a test
after every batch of 30 labels at looks 1, 2, 3, … until the first met) it prints the
share of studies met and the share where the contract is met while the true error of the
accepted labels on the whole population is above 0.1, with its exact 95%
(Clopper–Pearson) interval, and exits non-zero when that interval lies wholly above
1 − confidence = 0.1. The simulation (a MethodView evaluated by
``evaluate_selective_risk``) is ``tests/core/selective_risk_simulation.py``, the one of
``tests/core/test_selective_risk_mc.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def main() -> int:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from tests.core.selective_risk_simulation import CONFIDENCE, SCHEDULES, scenario_share

    studies = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    bound = 1 - CONFIDENCE
    failed = False
    for scenario in ("calibrated", "flat error"):
        for schedule in SCHEDULES:
            start = time.perf_counter()
            share = scenario_share(scenario, schedule, studies)
            low, high = share.interval()
            failed = failed or low > bound
            print(f"{scenario:10s} {schedule:11s}: {studies} studies, "
                  f"met {share.met / studies:.3f}, false certifications {share.false} = "
                  f"{share.false / studies:.4f} [95% {low:.4f}, {high:.4f}] "
                  f"(bound {bound:.1f}), {time.perf_counter() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
