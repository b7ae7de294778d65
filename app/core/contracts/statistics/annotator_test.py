"""The alternative annotator test: is the machine at least as good as a person?

Calderon, Reichart and Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge:
How to Statistically Justify Replacing Human Annotators with LLMs", ACL 2025
(arXiv:2501.10970), with the authors' reference code (``alt_test`` in the notebook of
github.com/nitaytech/AltTest). For each person j in turn (leave one out):

1. On every item i that j labelled (and that the machine labelled, with at least
   ``min_people_per_item`` people including j), the machine's alignment
   ``S_f(i, j)`` is its mean agreement with the *remaining* people on i, and the
   person's ``S_h(i, j)`` is j's mean agreement with them.
2. Win indicators, ties counting for both: ``W_f = [S_f ≥ S_h]``, ``W_h = [S_h ≥ S_f]``.
   ``ρ_f`` and ``ρ_h`` are their means over j's items (ρ_f is the paper's advantage
   probability for person j).
3. H0: ``ρ_f ≤ ρ_h − ε`` (the person beats the machine by at least ε, the cost-benefit
   margin) against H1: ``ρ_f > ρ_h − ε``, by a one-sided t-test on the paired
   differences ``d = W_h − W_f``: H1 is ``mean(d) < ε`` (the paper's
   ``ttest_1samp(d, ε, alternative='less')``).
4. Benjamini–Yekutieli (2001) across the people tested, at level ``1 − confidence``
   (the paper's q); a rejected H0 means the machine *beats* that person.
5. The winning rate is the share of tested people beaten; the paper's machine passes
   at a winning rate of at least 0.5 (the contract decides that).

People with fewer than ``min_items_per_person`` usable items (30 in the paper, where the
t-test's normal approximation starts to hold) are skipped, as in the reference code,
and named with the reason. The paper recommends at least three people; with fewer
tested the winning rate is undefined (``None`` with a reason).

A degenerate t-test: when every difference d is the same value the statistic is ±∞
(or 0/0); the p-value is its limit, 0 when that value is below ε (scipy's
``ttest_1samp`` also gives 0) and 1 otherwise (not rejected: with d ≡ ε there is no
evidence against H0).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from app.core.contracts.statistics.distributions import t_cdf

ItemT = TypeVar("ItemT", bound=Hashable)
PersonT = TypeVar("PersonT", bound=Hashable)
LabelT = TypeVar("LabelT")

#: Alignment scores closer than this count as a tie (both win).
TIE_TOLERANCE = 1e-12
MIN_ITEMS_PER_PERSON = 30
MIN_PEOPLE_PER_ITEM = 2
MIN_PEOPLE = 3


def exact_match(candidate: object, reference: object) -> float:
    """1.0 when the two labels are equal, else 0.0 (the paper's accuracy scoring)."""
    return 1.0 if candidate == reference else 0.0


@dataclass(frozen=True, slots=True)
class AnnotatorComparison:
    """The machine against one left-out person.

    Attributes
    ----------
    n_items : int
        Items compared (labelled by the person, the machine and another person).
    p : float
        One-sided p-value of H0 "the person beats the machine by at least ε".
    advantage : float
        ``ρ_f − ρ_h``: how much more often the machine aligns at least as well with the
        others than the person does (in [−1, 1]; H0 is ``advantage ≤ −ε``).
    beaten : bool
        H0 rejected by Benjamini–Yekutieli: the machine beats this person.
    machine_win_rate, human_win_rate : float
        ``ρ_f`` and ``ρ_h``.
    machine_alignment, human_alignment : float
        Mean over the person's items of ``S_f`` and ``S_h``.
    """

    n_items: int
    p: float
    advantage: float
    beaten: bool
    machine_win_rate: float
    human_win_rate: float
    machine_alignment: float
    human_alignment: float


@dataclass(frozen=True, slots=True)
class AlternativeAnnotatorResult(Generic[PersonT]):
    """The alternative annotator test over every person.

    Attributes
    ----------
    winning_rate : float or None
        Share of tested people the machine beats; ``None`` with ``reason`` when fewer
        than ``min_people`` were tested.
    advantage_probability : float or None
        The paper's ρ: mean over tested people of ``ρ_f`` (for comparing machines).
    machine_alignment, human_alignment : float or None
        Mean of ``S_f`` and of ``S_h`` over all (tested person, item) comparisons.
    per_annotator : dict
        Tested person → :class:`AnnotatorComparison`, in order of first appearance.
    skipped : dict
        Person → why they were not tested.
    epsilon, level : float
        The margin and the Benjamini–Yekutieli level (``1 − confidence``).
    reason : str or None
        Why ``winning_rate`` is ``None``.
    """

    winning_rate: float | None
    advantage_probability: float | None
    machine_alignment: float | None
    human_alignment: float | None
    per_annotator: dict[PersonT, AnnotatorComparison]
    skipped: dict[PersonT, str]
    epsilon: float
    level: float
    reason: str | None = None


def margin_t_test(differences: npt.ArrayLike, margin: float) -> float:
    """One-sided one-sample t-test p-value of H0: mean ≥ ``margin`` vs H1: mean < margin.

    ``t = (mean(d) − margin) / (sd(d) / √n)`` with ``n − 1`` degrees of freedom and
    ``p = P(T ≤ t)``; the same as ``scipy.stats.ttest_1samp(d, margin,
    alternative='less')``, and as a paired ``ttest_rel`` of the two win indicators with
    the margin added to one side. Constant differences give the limit (0 when the value
    is below the margin, else 1) instead of a 0/0.

    Parameters
    ----------
    differences : array_like
        The paired differences, at least two.
    margin : float
        The margin ε.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 1 or d.size < 2:
        raise ValueError("a t-test needs at least two paired differences")
    if not np.all(np.isfinite(d)):
        raise ValueError("the differences hold a non-finite value")
    mean = float(d.mean())
    if np.all(d == d[0]):
        return 0.0 if mean < margin else 1.0
    sd = float(d.std(ddof=1))
    t = (mean - margin) / (sd / math.sqrt(d.size))
    return t_cdf(t, d.size - 1)


def benjamini_yekutieli(p_values: Sequence[float], level: float) -> list[bool]:
    """Which hypotheses the Benjamini–Yekutieli (2001) step-up procedure rejects.

    Sort the m p-values; find the largest rank r with ``p_(r) ≤ r · level / (m · H_m)``,
    ``H_m = Σ_{i≤m} 1/i``; reject the r smallest. The harmonic factor keeps the false
    discovery rate at ``level`` under any dependence between the tests, which matters
    here because every person's test shares the other people's labels.

    Parameters
    ----------
    p_values : sequence of float
        One p-value per hypothesis (may be empty).
    level : float
        The false discovery rate, in (0, 1).

    Returns
    -------
    list of bool
        Rejected or not, in the input's order.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    if m == 0:
        return []
    if np.any(~np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
        raise ValueError("p-values must lie in [0, 1]")
    order = np.argsort(p, kind="stable")
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    thresholds = np.arange(1, m + 1) / m * level / harmonic
    below = np.nonzero(p[order] <= thresholds)[0]
    rejected = np.zeros(m, dtype=bool)
    if below.size:
        rejected[order[: below[-1] + 1]] = True
    return [bool(r) for r in rejected]


@dataclass(slots=True)
class _Scores:
    machine: list[float]
    human: list[float]


def _mean_agreement(candidate: LabelT, others: Sequence[LabelT],
                    agreement: Callable[[LabelT, LabelT], float], item: Hashable) -> float:
    values = [float(agreement(candidate, other)) for other in others]
    score = math.fsum(values) / len(values)
    if not math.isfinite(score):
        raise ValueError(f"agreement returned a non-finite value on item {item!r}")
    return score


def _alignment_scores(human_labels: Mapping[ItemT, Mapping[PersonT, LabelT]],
                      machine: Mapping[ItemT, LabelT],
                      agreement: Callable[[LabelT, LabelT], float],
                      min_people_per_item: int) -> dict[PersonT, _Scores]:
    people: dict[PersonT, _Scores] = {}
    for item, labels in human_labels.items():
        for person in labels:
            people.setdefault(person, _Scores([], []))
        if item not in machine or len(labels) < min_people_per_item:
            continue
        for person, own in labels.items():
            others = [label for who, label in labels.items() if who != person]
            scores = people[person]
            scores.machine.append(_mean_agreement(machine[item], others, agreement, item))
            scores.human.append(_mean_agreement(own, others, agreement, item))
    return people


def alternative_annotator_test(
        human_labels: Mapping[ItemT, Mapping[PersonT, LabelT]],
        machine: Mapping[ItemT, LabelT], epsilon: float, confidence: float,
        agreement: Callable[[LabelT, LabelT], float] = exact_match, *,
        min_items_per_person: int = MIN_ITEMS_PER_PERSON,
        min_people_per_item: int = MIN_PEOPLE_PER_ITEM,
        min_people: int = MIN_PEOPLE) -> AlternativeAnnotatorResult[PersonT]:
    """Run the alternative annotator test (Calderon, Reichart and Dror 2025).

    Parameters
    ----------
    human_labels : Mapping
        Item → (person → label).
    machine : Mapping
        Item → the machine's label. Items it did not label are left out.
    epsilon : float
        The cost-benefit margin ε in [0, 1) (the paper suggests 0.1 for crowd workers,
        0.15 for skilled annotators, 0.2 for experts).
    confidence : float
        The Benjamini–Yekutieli level is ``1 − confidence``.
    agreement : callable
        ``agreement(candidate, reference) → float``, higher is better; exact match by
        default (a loss family gives ``1 − loss``).
    min_items_per_person : int
        People with fewer usable items are skipped (30, as in the paper).
    min_people_per_item : int
        Items with fewer people (the left-out one included) are left out; 2 as in the
        reference code, so at least one other person remains.
    min_people : int
        Fewer tested people leave the winning rate undefined (3, the paper's advice).

    Returns
    -------
    AlternativeAnnotatorResult
    """
    eps = float(epsilon)
    if not 0.0 <= eps < 1.0:
        raise ValueError(f"epsilon must lie in [0, 1), got {epsilon!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    if min_items_per_person < 2:
        raise ValueError("min_items_per_person must be at least 2 for a t-test")
    if min_people_per_item < 2:
        raise ValueError("min_people_per_item must be at least 2 (someone must remain)")
    level = 1.0 - float(confidence)
    scores = _alignment_scores(human_labels, machine, agreement, min_people_per_item)

    tested: list[tuple[PersonT, _Scores]] = []
    skipped: dict[PersonT, str] = {}
    for person, s in scores.items():
        if len(s.machine) < min_items_per_person:
            skipped[person] = (
                f"{len(s.machine)} items shared with the machine and another person, "
                f"fewer than the {min_items_per_person} a t-test needs")
        else:
            tested.append((person, s))

    stats = []
    for _, s in tested:
        f = np.asarray(s.machine)
        h = np.asarray(s.human)
        machine_wins = (f >= h - TIE_TOLERANCE).astype(np.float64)
        human_wins = (h >= f - TIE_TOLERANCE).astype(np.float64)
        p = margin_t_test(human_wins - machine_wins, eps)
        stats.append((f.size, p, float(machine_wins.mean()), float(human_wins.mean()),
                      float(f.mean()), float(h.mean())))
    beaten = benjamini_yekutieli([row[1] for row in stats], level)
    per_annotator = {
        person: AnnotatorComparison(n, p, rf - rh, won, rf, rh, sf, sh)
        for (person, _), (n, p, rf, rh, sf, sh), won in zip(tested, stats, beaten,
                                                             strict=True)}

    if not tested:
        return AlternativeAnnotatorResult(
            None, None, None, None, {}, skipped, eps, level,
            f"no person has {min_items_per_person} items labelled by the machine and "
            "another person")
    all_f = [v for _, s in tested for v in s.machine]
    all_h = [v for _, s in tested for v in s.human]
    reason = None
    winning_rate: float | None = sum(beaten) / len(beaten)
    if len(tested) < min_people:
        winning_rate = None
        reason = (f"only {len(tested)} people have {min_items_per_person} comparable items; "
                  f"the test needs at least {min_people}")
    return AlternativeAnnotatorResult(
        winning_rate, float(np.mean([c.machine_win_rate for c in per_annotator.values()])),
        math.fsum(all_f) / len(all_f), math.fsum(all_h) / len(all_h), per_annotator,
        skipped, eps, level, reason)
