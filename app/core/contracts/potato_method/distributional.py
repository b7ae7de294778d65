"""``distributional`` as Potato 2.12.1 evaluates it: does the machine disagree as people do?

On a subjective task the spread of people's labels is part of the data, so this kind
compares distributions rather than single labels (``potato-engine.md`` §4,
``contracts/distributional.py``):

- every calibration item (dev and cert alike) that at least :data:`PEOPLE_NEEDED` people
  labelled gives the people's label distribution; the machine's is the routed output's
  own distribution when it has one, else its label as a one-hot vector (a label outside
  the schema's labels counts nowhere, which makes the vector uniform);
- the distance is the base-2 Jensen–Shannon distance, averaged over items, with a
  percentile bootstrap interval at the look's level (so testing ``max_distance`` again
  as labels arrive keeps the stated confidence);
- the human noise ceiling is the same distance between two halves of each item's people,
  from **one** shuffle per item drawn from a single ``random.Random(0)`` stream that runs
  on through the annotator groups, in order; a machine below it is as close to the
  people as they are to each other;
- with ``groups_by``, the same figures per annotator group, each group's distribution on
  an item built from that group's people only.

It is ``met`` when the interval's upper end is within ``max_distance`` (or there is no
``max_distance``), ``infeasible`` when even its lower end is above it (more items only
narrow the interval around a distance that is too large), otherwise ``insufficient``.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from app.core.contracts.potato_method.view import (
    MethodContract,
    MethodResult,
    MethodView,
    TierAnswer,
)
from app.core.slices import let_others_run

ITEMS_NEEDED = 20
PEOPLE_NEEDED = 3
RESAMPLES = 400
FIRST_SEED = 7
"""Resample ``b`` draws its indices from ``numpy.random.default_rng(FIRST_SEED + b)``."""
CEILING_SEED = 0

Vector = npt.NDArray[np.float64]


def _level(delta: float, look: int) -> float:
    """The level of look ``look``: ``delta · 6 / (π² k²)``, Potato's ``look_alpha``."""
    k = max(1, int(look))
    return delta * 6.0 / (math.pi ** 2 * k * k)


def _share(labels: Sequence[str], values: Iterable[Any]) -> Vector:
    """The labels' shares among ``values`` (compared as text); uniform when no value
    is one of the labels, so an item is never dropped for an unknown label."""
    counts = Counter(str(value) for value in values)
    v = np.array([float(counts.get(label, 0)) for label in labels], dtype=np.float64)
    total = v.sum()
    return v / total if total else np.full(len(labels), 1.0 / len(labels))


def _machine(labels: Sequence[str], answer: TierAnswer | None) -> Vector | None:
    """The machine's distribution on an item: its own probabilities when it gives any
    that sum above zero, else its label one-hot; ``None`` when it did not answer."""
    if answer is None or not answer.answered:
        return None
    if answer.distribution:
        v = np.array([float(answer.distribution.get(label, 0.0)) for label in labels],
                     dtype=np.float64)
        total = float(v.sum())
        if total > 0:
            normalised: Vector = v / total
            return normalised
    return _share(labels, [answer.value])


def js_distance(p: Vector, q: Vector) -> float:
    """Jensen–Shannon distance in base 2 (0 identical, 1 disjoint); ``0 · log 0 = 0``."""
    middle = 0.5 * (p + q)

    def divergence(a: Vector) -> float:
        keep = a > 0
        return float(np.sum(a[keep] * np.log2(a[keep] / middle[keep])))

    return math.sqrt(max(0.0, 0.5 * divergence(p) + 0.5 * divergence(q)))


@lru_cache(maxsize=32)
def _resamples(n: int) -> npt.NDArray[np.int64]:
    """The bootstrap's index rows for ``n`` items: row ``b`` from seed ``7 + b``. They
    depend only on ``n``, so they are drawn once per size."""
    rows = np.stack([np.random.default_rng(FIRST_SEED + b).integers(0, n, n)
                     for b in range(RESAMPLES)])
    rows.setflags(write=False)
    return rows


def _summary(view: MethodView, people_of: Sequence[tuple[TierAnswer | None, list[Any]]],
             alpha: float, shuffler: random.Random) -> dict[str, Any]:
    """The figures over the items with a machine answer and enough people.

    ``shuffler`` draws each such item's half-split; it is shared by the caller across
    the overall figures and every group, so the splits depend on that order.
    """
    labels = view.labels
    machine: list[float] = []
    ceiling: list[float] = []
    for answer, people in people_of:
        distribution = _machine(labels, answer)
        if distribution is None or len(people) < PEOPLE_NEEDED:
            continue
        machine.append(js_distance(distribution, _share(labels, people)))
        halves = list(people)
        shuffler.shuffle(halves)
        cut = len(halves) // 2
        ceiling.append(js_distance(_share(labels, halves[:cut]),
                                    _share(labels, halves[cut:])))
    n = len(machine)
    if n < ITEMS_NEEDED:
        return {"n_items": n}
    distances = np.array(machine, dtype=np.float64)
    # A numpy call per resample, each letting go of the interpreter lock inside: without
    # a hand-over between them the GUI thread waited 48 ms (app.core.slices.let_others_run)
    means = []
    for row in _resamples(n):
        means.append(float(np.mean(distances[row])))
        let_others_run()
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    mean = float(distances.mean())
    noise = float(np.mean(ceiling))
    return {"n_items": n, "machine_distance": mean, "interval": [float(lo), float(hi)],
            "human_ceiling": noise, "machine_within_ceiling": bool(mean <= noise)}


def _groups(view: MethodView, field: str) -> tuple[list[str], dict[str, str]]:
    """The annotator groups of ``field`` (sorted) and each grouped person's group."""
    group_of = {person: attrs[field] for person, attrs in view.person_groups.items()
                if attrs.get(field) is not None}
    return sorted(set(group_of.values())), group_of


def _people(view: MethodView, keep: Mapping[str, str] | None = None,
            group: str | None = None) -> list[tuple[TierAnswer | None, list[Any]]]:
    """Each calibration item's routed answer and people's labels (only ``group``'s
    people when ``keep`` maps persons to groups)."""
    return [(c.output, [label for person, label in c.people.items()
                        if keep is None or keep.get(person) == group])
            for c in view.calibration]


def evaluate_distributional(contract: MethodContract, view: MethodView,
                            look: int = 1) -> MethodResult:
    """Potato's verdict for a ``distributional`` contract at look ``look``."""
    result = MethodResult(state="insufficient", look=look)
    alpha = _level(1.0 - float(contract.confidence), look)
    result.alpha = alpha
    shuffler = random.Random(CEILING_SEED)
    overall = _summary(view, _people(view), alpha, shuffler)
    result.metrics["overall"] = overall
    field = contract.params.get("groups_by")
    if field:
        groups, group_of = _groups(view, field)
        if not groups:
            result.notes.append(f"groups_by: no annotator has a {field!r} answer, so "
                                "only the overall figures are reported.")
        result.metrics["groups"] = {g: _summary(view, _people(view, group_of, g), alpha,
                                                shuffler) for g in groups}
    if "machine_distance" not in overall:
        result.notes.append(f"Needs at least {ITEMS_NEEDED} items labeled by "
                            f"{PEOPLE_NEEDED} or more people.")
        result.projection = {"more_overlap_items": ITEMS_NEEDED - overall["n_items"]}
        result.ran = False
        return result
    target = contract.params.get("max_distance")
    lo, hi = overall["interval"]
    if target is None or hi <= float(target):
        result.state = "met"
    elif lo > float(target):
        result.state = "infeasible"
        result.notes.append(
            f"The machine's distribution is {overall['machine_distance']:.3f} from the "
            f"people's, and the interval's lower end is above max_distance "
            f"{float(target):g}. More items will not meet it; a source with better "
            "calibrated probabilities, or a looser target, might.")
    result.statement = (
        f"The machine's label distribution is {overall['machine_distance']:.3f} "
        f"(JS distance) from the people's on {overall['n_items']} items; two halves "
        f"of the people are {overall['human_ceiling']:.3f} from each other.")
    return result
