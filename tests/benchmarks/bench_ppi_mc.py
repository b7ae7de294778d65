"""Monte-Carlo coverage of ``ppi`` under Potato 2.12.1's method, on many simulated studies.

Run from the project root: ``.venv/bin/python tests/benchmarks/bench_ppi_mc.py
[--studies 1000] [--seed 20261205]``.

Each study is a finite population of 1,000 items with a known truth per item, one machine
tier that labels every item (right with probability ``accuracy``, else one of the other
classes at random; one-hot, so the class term is 0/1), and ``n`` calibration labels drawn
uniformly without replacement (equal inclusion probabilities, so Potato's estimator is
PPI++). ``evaluate_ppi`` runs at look 1 with confidence 0.9, so every interval is stated
at ``1 − look_level(1, 0.9) = 0.9392``. An interval *covers* when it holds the class's
prevalence over the whole population (the estimand: a finite-population mean).

It prints two tables:

1. by setting (class mix × calibration labels × machine accuracy): the share of intervals
   that cover, with its exact 95% (Clopper–Pearson) interval, the same for the class
   named ``rare`` alone (a third of the items in the balanced mix), and the mean width
   of the ppi interval against the mean width of the human-only interval
   (``human_only``, the one from the people's labels alone);
2. by the number of calibration labels of the class (its labels among the ``n``): the
   same coverage share with its exact interval, and how many of the misses lie wholly
   below the truth.

It reports; like ``bench_no_worse_mc.py`` it has no pass or fail. The second table is the
evidence for the "coverage not assured" flag (``ppi`` on fewer than 3 labels of a class,
issue 36). The Clopper–Pearson interval is computed with ``scipy.stats.beta``, not with
Accord's own binomial code.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

N_POPULATION = 1000
CONFIDENCE = 0.9
MIXES: dict[str, tuple[float, ...]] = {"balanced 1/3 each": (1 / 3, 1 / 3, 1 / 3),
                                       "rare class 10%": (0.1, 0.45, 0.45),
                                       "rare class 4%": (0.04, 0.48, 0.48)}
LABELS = ("rare", "b", "c")
SIZES = (30, 50, 200)
ACCURACIES = (0.9, 0.7)
BINS: tuple[tuple[int, int], ...] = ((0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5),
                                     (6, 10), (11, 30), (31, 10_000))


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact two-sided interval of a binomial share (scipy's beta quantiles)."""
    from scipy.stats import beta

    if n == 0:
        return 0.0, 1.0
    tail = (1 - level) / 2
    low = 0.0 if k == 0 else float(beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - tail, k + 1, n - k))
    return low, high


@dataclass
class Tally:
    """Intervals seen, covered, missed wholly below the truth, and their widths."""

    intervals: int = 0
    covered: int = 0
    below: int = 0
    widths: list[float] = field(default_factory=list)
    human_widths: list[float] = field(default_factory=list)

    def add(self, covered: bool, below: bool, width: float, human_width: float) -> None:
        self.intervals += 1
        self.covered += int(covered)
        self.below += int(below)
        self.widths.append(width)
        self.human_widths.append(human_width)

    def share(self) -> str:
        if not self.intervals:
            return f"{'—':>6}  {'':17}"
        low, high = clopper_pearson(self.covered, self.intervals)
        return f"{self.covered / self.intervals:6.3f}  [{low:.3f}, {high:.3f}]"


def study(rng: random.Random, mix: Sequence[float], n: int, accuracy: float) -> Any:
    """One simulated study as a MethodView, and each class's population prevalence."""
    from app.core.contracts.potato_method.view import (
        CalibrationItem,
        MethodView,
        PopulationItem,
        TierAnswer,
    )

    truth = rng.choices(LABELS, weights=mix, k=N_POPULATION)
    pi = n / N_POPULATION
    population: list[Any] = []
    answers: list[Any] = []
    for i, value in enumerate(truth):
        guess = value if rng.random() < accuracy else rng.choice(
            [x for x in LABELS if x != value])
        answer = TierAnswer(guess, 0.9, "ok")
        answers.append(answer)
        population.append(PopulationItem(f"i{i}", (answer,), None, pi, answer))
    drawn = rng.sample(range(N_POPULATION), n)
    calibration = tuple(CalibrationItem(f"i{i}", truth[i], "dev", pi, (answers[i],),
                                        answers[i]) for i in drawn)
    prevalence = {label: truth.count(label) / N_POPULATION for label in LABELS}
    view = MethodView(scheme="s", labels=LABELS, tiers=("model",), calibration=calibration,
                      population=tuple(population), output_complete=True)
    labelled = {label: sum(1 for i in drawn if truth[i] == label) for label in LABELS}
    return view, prevalence, labelled


def _bin(k: int) -> str:
    for low, high in BINS:
        if low <= k <= high:
            return f"{low}" if low == high else (f"{low}+" if high >= 10_000
                                                   else f"{low}–{high}")
    raise ValueError(k)


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from app.core.contracts.potato_method.ppi import evaluate_ppi
    from app.core.contracts.potato_method.view import MethodContract
    from app.core.contracts.statistics.looks import look_level

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--studies", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261205)
    args = parser.parse_args()
    contract = MethodContract("prevalence", "ppi", "s", CONFIDENCE,
                              {"estimand": "prevalence"})
    stated = 1 - look_level(1, CONFIDENCE)
    start = time.perf_counter()
    by_labels: dict[str, Tally] = {}
    rows: list[str] = []
    for m, (mix_name, mix) in enumerate(MIXES.items()):
        for n in SIZES:
            for a, accuracy in enumerate(ACCURACIES):
                rng = random.Random(args.seed + 1000 * m + 10 * n + a)
                every, rarest = Tally(), Tally()
                for _ in range(args.studies):
                    view, prevalence, labelled = study(rng, mix, n, accuracy)
                    result = evaluate_ppi(contract, view, 1)
                    estimates = result.metrics["estimates"]["all"]
                    for label in LABELS:
                        entry = estimates[label]
                        truth = prevalence[label]
                        covered = entry["lo"] <= truth <= entry["hi"]
                        human = entry["human_only"]
                        args_ = (covered, entry["hi"] < truth, entry["hi"] - entry["lo"],
                                 human["hi"] - human["lo"])
                        every.add(*args_)
                        if label == "rare":
                            rarest.add(*args_)
                        by_labels.setdefault(_bin(labelled[label]), Tally()).add(*args_)
                width = sum(every.widths) / every.intervals
                human_width = sum(every.human_widths) / every.intervals
                rows.append(f"{mix_name:18} {n:4d} {accuracy:8.1f}  {every.share()}  "
                            f"{rarest.share()}  {width:7.3f} {human_width:7.3f} "
                            f"{width / human_width:6.2f}")
    print(f"ppi at look 1, confidence {CONFIDENCE}: every interval stated at level "
          f"{stated:.4f}; {args.studies} studies per setting, population {N_POPULATION}, "
          f"seed {args.seed}")
    print()
    print(f"{'class mix':18} {'n':>4} {'accuracy':>8}  {'coverage':>6}  {'exact 95%':17}  "
          f"{'rare':>6}  {'exact 95%':17}  {'width':>7} {'human':>7} {'ratio':>6}")
    print("\n".join(rows))
    print()
    print(f"{'labels of the class':>19} {'intervals':>9}  {'coverage':>6}  {'exact 95%':17}  "
          f"{'misses':>6} {'below':>6}")
    for low, _ in BINS:
        key = _bin(low)
        tally = by_labels.get(key)
        if tally is None:
            continue
        print(f"{key:>19} {tally.intervals:9d}  {tally.share()}  "
              f"{tally.intervals - tally.covered:6d} {tally.below:6d}")
    print(f"{time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
