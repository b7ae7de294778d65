"""Monte-Carlo validity of ``selective_risk`` on many simulated studies.

Run from the project root: ``.venv/bin/python tests/benchmarks/bench_selective_risk_mc.py
[studies]`` (5,000 by default). For each scenario (confidences that mean something, or
a flat error the confidence does not predict; one look with every label in, or a test
after every batch of 30 labels on the scheduler's schedule) it prints the share of
studies where the contract is met while the true error of the accepted labels on the
whole population is above 0.1, with its exact 95% (Clopper–Pearson) interval, and
exits non-zero when that interval lies wholly above 1 − confidence = 0.1.
The simulation is the one of ``tests/core/test_selective_risk.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from scipy import stats as sps


def main() -> int:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from tests.core.test_selective_risk import one_look_study, sequential_study

    studies = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    failed = False
    for flat in (False, True):
        for schedule in ("one look", "every batch"):
            start = time.perf_counter()
            met = bad = 0
            for seed in range(studies):
                tiers = 1 + seed % 2
                if schedule == "one look":
                    m, v = one_look_study(seed, tiers, flat=flat)
                else:
                    m, v, _ = sequential_study(100_000 + seed, tiers, flat=flat)
                met += m
                bad += v
            low = 0.0 if bad == 0 else float(sps.beta.ppf(0.025, bad, studies - bad + 1))
            high = 1.0 if bad == studies else float(sps.beta.ppf(0.975, bad + 1, studies - bad))
            failed = failed or low > 0.1
            scenario = "flat error" if flat else "calibrated"
            print(f"{scenario:10s} {schedule:11s}: {studies} studies, met {met / studies:.3f}, "
                  f"violations {bad} = {bad / studies:.4f} [95% {low:.4f}, {high:.4f}] "
                  f"(bound 0.1), {time.perf_counter() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
