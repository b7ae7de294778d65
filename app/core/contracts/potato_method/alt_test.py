"""The alternative annotator test (Calderon, Reichart and Dror, ACL 2025) as Potato 2.12.1
runs it for ``no_worse_than_human``.

An absolute accuracy target against one person's labels partly measures that person's
noise. The alt-test asks the relative question: leaving each person out in turn, does
the machine agree with the *remaining* people on that person's items at least as often
as the person does, up to an allowance ``epsilon`` in the machine's favour? The machine
passes when that is shown for at least half of the people, with the false discovery rate
across them controlled by Benjamini–Yekutieli (the people's hypotheses share data, so
they are dependent) at the look's level. ``potato-engine.md`` §4 gives the rules this
module follows, with file and line in ``server_utils/alt_test.py``:

- alignment of a label with the remaining people: ``accuracy``, the share of them it
  equals (not a match with their majority), or ``neg_rmse``, minus the root mean square
  distance to them for numeric labels;
- a tie in alignment is a win for both sides;
- per person, a one-sided test that the mean of ``W^h − W^f`` is below ``epsilon``:
  Student's t, or Wilcoxon's signed-rank test when fewer than 30 items per person are
  required; identical differences have no variance and are decided directly;
- only items with a machine label and at least 2 people count; people with fewer usable
  items than required are left out; fewer than 3 people tested is no answer at all.

The result is a plain dict with Potato's keys (``per_annotator``'s ``llm_advantage``,
``llm_alignment`` …), so a record Potato wrote can be compared with it key for key.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from app.core.contracts.statistics.distributions import t_cdf

PASS_SHARE = 0.5
"""The machine passes when the test is won against at least this share of people."""
PEOPLE_NEEDED = 3
PEOPLE_PER_ITEM = 2
"""One person left out and at least one remaining to align with."""

Alignment = Callable[[Any, Sequence[Any]], float]


def _agreement(label: Any, others: Sequence[Any]) -> float:
    """The share of ``others`` that ``label`` equals."""
    if not others:
        raise ValueError("no remaining people to align with")
    return sum(1.0 for other in others if label == other) / len(others)


def _number(value: Any) -> float:
    if isinstance(value, bool):
        return float(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"neg_rmse needs numeric labels; got {value!r}") from None
    if math.isnan(number):
        raise ValueError("neg_rmse got a NaN label")
    return number


def _closeness(label: Any, others: Sequence[Any]) -> float:
    """Minus the root mean square distance from ``label`` to ``others`` (numeric)."""
    if not others:
        raise ValueError("no remaining people to align with")
    x = _number(label)
    squares = [(x - _number(other)) ** 2 for other in others]
    return -math.sqrt(sum(squares) / len(squares))


ALIGNMENTS: dict[str, Alignment] = {"accuracy": _agreement, "neg_rmse": _closeness}


def by_adjust(p_values: Sequence[float], q: float) -> tuple[list[float], list[bool]]:
    """Benjamini–Yekutieli: the adjusted p-values and which hypotheses are rejected.

    Valid under any dependence between the tests. With the ``m`` non-NaN p-values
    sorted and ``c(m) = Σ 1/k``, the hypotheses ranked up to the largest ``k`` with
    ``p_(k) ≤ k q / (m c(m))`` are rejected (step-up, read from the thresholds);
    the adjusted value of rank ``r`` is ``min over k ≥ r of min(1, m c(m) p_(k) / k)``.
    A NaN p-value is never rejected, is adjusted to NaN and does not count in ``m``.
    """
    values = [float(p) for p in p_values]
    adjusted = [math.nan] * len(values)
    rejected = [False] * len(values)
    ranked = sorted((i for i, p in enumerate(values) if not math.isnan(p)),
                    key=lambda i: values[i])
    m = len(ranked)
    if m == 0:
        return adjusted, rejected
    harmonic = sum(1.0 / k for k in range(1, m + 1))
    smallest = 1.0
    for rank in range(m, 0, -1):
        index = ranked[rank - 1]
        smallest = min(smallest, values[index] * m * harmonic / rank)
        adjusted[index] = min(1.0, smallest)
    last = 0
    for rank in range(1, m + 1):
        if values[ranked[rank - 1]] <= rank / (m * harmonic) * q:
            last = rank
    for rank in range(1, last + 1):
        rejected[ranked[rank - 1]] = True
    return adjusted, rejected


def below_margin_p(differences: Sequence[int], epsilon: float, test: str) -> float:
    """One-sided p-value for "the mean of ``differences`` is below ``epsilon``"."""
    n = len(differences)
    mean = sum(differences) / n
    if all(d == differences[0] for d in differences):
        # No variance: the statistic is infinite and the answer certain.
        return 0.0 if mean < epsilon else 1.0
    if test == "ttest":
        values = np.asarray(differences, dtype=np.float64)
        spread = math.sqrt(float(np.var(values, ddof=1)) / n)
        return t_cdf((float(np.mean(values)) - epsilon) / spread, n - 1)
    if test == "wilcoxon":
        shifted = [d - epsilon for d in differences]
        if all(s == 0 for s in shifted):
            return 1.0
        from scipy import stats  # only this test needs scipy.stats' machinery

        return float(stats.wilcoxon(shifted, alternative="less").pvalue)
    raise ValueError(f"unknown test {test!r}; use 'ttest' or 'wilcoxon'")


def _no_answer(reason: str, *, epsilon: float, alpha: float, metric: str, test: str,
               n_items: int = 0, n_annotators: int = 0,
               skipped: list[dict[str, Any]] | None = None,
               dropped: int = 0) -> dict[str, Any]:
    return {"passed": None, "winning_rate": None, "advantage_probability": None,
            "epsilon": epsilon, "alpha": alpha, "metric": metric, "test": test,
            "n_items": n_items, "n_annotators": n_annotators, "per_annotator": [],
            "skipped_annotators": skipped or [], "n_items_dropped": dropped,
            "insufficient": reason}


def alternative_annotator_test(machine: Mapping[str, Any],
                               people: Mapping[str, Mapping[str, Any]], *,
                               epsilon: float, alpha: float, metric: str = "accuracy",
                               test: str = "ttest",
                               items_needed: int = 30) -> dict[str, Any]:
    """The alt-test of ``machine`` (item → label) against ``people`` (person → item →
    label); ``None`` labels are missing. Returns Potato's result keys; ``passed`` is
    ``None`` (with the reason under ``insufficient``) when the data cannot answer."""
    if metric not in ALIGNMENTS:
        raise ValueError(f"unknown metric {metric!r}; use one of {sorted(ALIGNMENTS)}")
    if test not in ("ttest", "wilcoxon"):
        raise ValueError(f"unknown test {test!r}; use 'ttest' or 'wilcoxon'")
    align = ALIGNMENTS[metric]
    common: dict[str, Any] = {"epsilon": epsilon, "alpha": alpha, "metric": metric,
                              "test": test}
    said = {item: label for item, label in machine.items() if label is not None}
    labels = {person: {item: label for item, label in own.items() if label is not None}
              for person, own in people.items()}
    # item → the people who labelled it, in the people's order.
    labellers: dict[str, list[str]] = {}
    for person, own in labels.items():
        for item in own:
            labellers.setdefault(item, []).append(person)
    usable = {item for item, who in labellers.items()
              if len(who) >= PEOPLE_PER_ITEM and item in said}
    dropped = len(labellers) - len(usable)
    if not labels:
        return _no_answer("no human annotations", **common)
    if not usable:
        return _no_answer(f"no items have both an LLM label and at least "
                          f"{PEOPLE_PER_ITEM} human labels", dropped=dropped, **common)
    tested: list[tuple[str, dict[str, Any]]] = []
    p_values: list[float] = []
    skipped: list[dict[str, Any]] = []
    for person, own in labels.items():
        items = [item for item in own if item in usable]
        if len(items) < items_needed:
            skipped.append({"annotator_id": str(person), "n_items": len(items),
                            "reason": f"{len(items)} usable items, fewer than the "
                                      f"{items_needed} required"})
            continue
        machine_wins: list[int] = []
        person_wins: list[int] = []
        machine_scores: list[float] = []
        person_scores: list[float] = []
        for item in items:
            rest = [labels[other][item] for other in labellers[item] if other != person]
            theirs = align(own[item], rest)
            ours = align(said[item], rest)
            machine_wins.append(1 if ours >= theirs else 0)
            person_wins.append(1 if theirs >= ours else 0)
            machine_scores.append(ours)
            person_scores.append(theirs)
        n = len(items)
        p_values.append(below_margin_p([h - f for h, f in zip(person_wins, machine_wins,
                                                              strict=True)],
                                       epsilon, test))
        tested.append((person, {"n_items": n,
                                "llm_advantage": sum(machine_wins) / n,
                                "human_advantage": sum(person_wins) / n,
                                "llm_alignment": sum(machine_scores) / n,
                                "human_alignment": sum(person_scores) / n}))
    if len(tested) < PEOPLE_NEEDED:
        reasons = [f"{len(tested)} annotator(s) have at least {items_needed} usable "
                   f"items; the test needs {PEOPLE_NEEDED}"]
        if skipped:
            reasons.append("short: " + ", ".join(f"{s['annotator_id']} ({s['n_items']})"
                                                 for s in skipped))
        return _no_answer("; ".join(reasons), n_items=len(usable), n_annotators=len(tested),
                          skipped=skipped, dropped=dropped, **common)
    adjusted, rejected = by_adjust(p_values, alpha)
    per_person = [{"annotator_id": str(person), "n_items": row["n_items"], "p_value": p,
                   "p_value_adjusted": adj, "rejected": rej,
                   **{k: v for k, v in row.items() if k != "n_items"}}
                  for (person, row), p, adj, rej in zip(tested, p_values, adjusted, rejected,
                                                        strict=True)]
    won = sum(rejected) / len(tested)
    return {"passed": won >= PASS_SHARE, "winning_rate": won,
            "advantage_probability": sum(row["llm_advantage"] for _, row in tested)
            / len(tested), **common, "n_items": len(usable), "n_annotators": len(tested),
            "per_annotator": per_person, "skipped_annotators": skipped,
            "n_items_dropped": dropped, "insufficient": None}
