"""The subjective half of the ``sentiment_reviews`` demo: ``offensiveness``, for ``distributional``.

Why: ``distributional`` is the contract for tasks where people disagree for reasons that
are part of the data (``contracts.md``). It is only worth showing against a *known*
split of opinion, so every review here has a true distribution of human answers, one
per age band, and the machine's probabilities follow the pool's mix of them.

The truth model (the README states it and ``truth.jsonl`` holds it per item):

- each review has an *edge*: ``plain`` (50%), ``crude`` (30%: swearing about the
  product) or ``insulting`` (20%: aimed at people). The crude and insulting ones carry
  one more sentence, appended to the review's text (from their own dice, so nothing of
  the sentiment half moves);
- an edge has one true answer distribution per age band (:data:`TRUE_BY_BAND`): people
  aged 35 and over find crude and insulting wording offensive far more often than
  people aged 18-34; each review's distributions are those jittered a little;
- the annotator pool is 70% ``18-34`` (7 of 10 people), so the *overall* distribution
  is ``0.7 · young + 0.3 · older``; ``gemma-12b``'s ``probs`` are that overall
  distribution with a little multiplicative noise (a model tuned on crowd ratings of
  this pool). So it is close to people overall and closer to the younger band than to
  the older one, which is what ``groups_by: age_band`` should show.

Choices where nothing fixes them (each with its reason):

- **Only dev.** The 50 requests are blind calibration requests drawn uniformly
  (``pi`` = 50/480) and all sent to ``dev``: ``distributional`` reads dev labels only
  and spends no look, so a cert half would hold 250 labels nothing reads.
- **Panels of five, both bands in each.** Every item is labelled by
  ``distribution_k`` = 5 people, alternately 3 younger + 2 older and 2 + 3, so each
  band has the 2 people per item that a group's numbers need, and the two bands have
  the same number of people on average (a band with fewer people per item would look
  farther from the machine from sampling noise alone). The panels so over-represent
  the older band against the pool (half the seats for 30% of the people); the machine
  still follows the pool, which is the population the study's labels stand for.
- **Strong enough to be seen.** Each band has 2 or 3 people per item, whose answers
  are a coarse picture of its distribution; with the pool at 60/40 and fewer crude or
  insulting reviews, one seed in four showed the bands less than 0.03 apart. At 70/30
  with these shares, 40 seeds of 40 put the older band at least 0.038 farther.
- **Only gemma predicts the schema.** No contract gates ``offensiveness`` (a subjective
  label has no single right answer for ``selective_risk`` to bound), so the estimate
  reads the first tier with a prediction on the schema: the logprob tier,
  whose ``probs`` are a full distribution. distilbert (a sentiment classifier) has none.

The numbers the README states are computed here from the plan in pure Python
(Jensen-Shannon distance in base 2, and the split-half distance averaged over *every*
split of each panel rather than the one random split per item of Potato's method); the
tests recompute them from the files with ``scipy.spatial.distance.jensenshannon``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import _labeling_writer as lw
import _potato_writer as pw

SCHEMA = "offensiveness"
LABELS = ("not_offensive", "somewhat_offensive", "offensive")
BANDS = ("18-34", "35+")
PEOPLE = {"gus": "18-34", "hana": "18-34", "ivo": "18-34", "june": "18-34",
          "kofi": "18-34", "lena": "18-34", "rui": "18-34", "mara": "35+", "nils": "35+",
          "olga": "35+"}
"""The offensiveness annotators and their prestudy ``age_band`` (all read both languages)."""
POOL_SHARE = {band: sum(b == band for b in PEOPLE.values()) / len(PEOPLE) for band in BANDS}
"""The pool's share of each band (7 and 3 of 10): the weights of the overall truth."""
EDGES = ("plain", "crude", "insulting")
EDGE_SHARES = (0.50, 0.30, 0.20)
TRUE_BY_BAND: dict[str, dict[str, tuple[float, float, float]]] = {
    "plain": {"18-34": (0.95, 0.04, 0.01), "35+": (0.85, 0.12, 0.03)},
    "crude": {"18-34": (0.70, 0.25, 0.05), "35+": (0.10, 0.40, 0.50)},
    "insulting": {"18-34": (0.40, 0.45, 0.15), "35+": (0.05, 0.25, 0.70)},
}
"""Edge → age band → true shares of (not, somewhat, offensive) before the item's jitter."""
N_DRAWN = 50
K = 5
MAX_DISTANCE = 0.3
JITTER = 0.25
"""Sigma of the log-normal factor on each share of an item's true distributions."""
MACHINE_NOISE = 0.15
"""Sigma of the log-normal factor on each share of the machine's probabilities."""

EDGE_TEXT: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {
    "crude": {
        "en": {"positive": (" Damn good, honestly.", " Bloody brilliant thing."),
               "negative": (" What a piece of crap.", " Total junk, damn it."),
               "neutral": (" Whatever, it's a damn gadget.",)},
        "es": {"positive": (" Joder, qué bueno.", " Está de la leche, la verdad."),
               "negative": (" Una mierda.", " Vaya porquería, joder."),
               "neutral": (" Un cacharro más, joder.",)},
    },
    "insulting": {
        "en": {"positive": (" Only idiots would pay more elsewhere.",
                            " My useless brother-in-law broke his; mine still works."),
               "negative": (" Whoever designed this is an idiot.", " The seller is a clown."),
               "neutral": (" The manual reads like it was written by a drunk.",)},
        "es": {"positive": (" Solo un idiota pagaría más en otra tienda.",
                            " El inútil de mi cuñado rompió el suyo; el mío sigue bien."),
               "negative": (" El que diseñó esto es un idiota.", " El vendedor es un payaso."),
               "neutral": (" El manual parece escrito por un borracho.",)},
    },
}


@dataclass(frozen=True)
class OffTruth:
    """One review's edge and true answer distributions (per band and overall)."""

    edge: str
    by_band: dict[str, dict[str, float]]
    overall: dict[str, float]


@dataclass(frozen=True)
class OffPlan:
    truth: dict[str, OffTruth]
    suffix: dict[str, str]
    """item → the sentence appended to its text ("" for plain reviews)."""
    machine: dict[str, dict[str, float]]
    """item → gemma-12b's probabilities (rounded down to 4 places, summing to at most 1)."""
    draws: tuple[lw.Draw, ...]


def _normalise(weights: Sequence[float]) -> list[float]:
    total = math.fsum(weights)
    return [w / total for w in weights]


def _noisy(dice: pw.Dice, shares: Sequence[float], sigma: float) -> list[float]:
    return _normalise([s * math.exp(dice.gauss(0.0, sigma)) for s in shares])


def _floor4(shares: Sequence[float]) -> dict[str, float]:
    """Rounded down to 4 places, so the total never exceeds 1 (the reader refuses more)."""
    return {label: math.floor(s * 10000) / 10000 for label, s in zip(LABELS, shares,
                                                                       strict=True)}


def _sample(dice: pw.Dice, shares: Mapping[str, float]) -> str:
    u, acc = dice.unit(), 0.0
    for label in LABELS:
        acc += shares[label]
        if u < acc:
            return label
    return LABELS[-1]


def make_offensiveness(seed: int, reviews: Sequence[tuple[str, str, str]]) -> OffPlan:
    """The truth, text suffixes, machine probabilities and 50 five-person dev requests.

    ``reviews`` is ``(id, language, reading)`` per review, in item order; each part has
    its own dice (``seed``, ``seed + 1``, ``seed + 2``).
    """
    dice = pw.Dice(seed)
    truth: dict[str, OffTruth] = {}
    suffix: dict[str, str] = {}
    for item, language, reading in reviews:
        u = dice.unit()
        edge = EDGES[0] if u < EDGE_SHARES[0] else \
            EDGES[1] if u < EDGE_SHARES[0] + EDGE_SHARES[1] else EDGES[2]
        by_band = {band: _floor4(_noisy(dice, TRUE_BY_BAND[edge][band], JITTER))
                   for band in BANDS}
        overall = _floor4([math.fsum(POOL_SHARE[b] * by_band[b][label] for b in BANDS)
                           for label in LABELS])
        truth[item] = OffTruth(edge, by_band, overall)
        suffix[item] = "" if edge == "plain" else dice.pick(EDGE_TEXT[edge][language][reading])
    mdice = pw.Dice(seed + 1)
    machine = {item: _floor4(_noisy(mdice, [t.overall[x] for x in LABELS], MACHINE_NOISE))
               for item, t in truth.items()}
    return OffPlan(truth, suffix, machine, _draws(pw.Dice(seed + 2), truth))


def _draws(dice: pw.Dice, truth: Mapping[str, OffTruth]) -> tuple[lw.Draw, ...]:
    pi = round(N_DRAWN / len(truth), 6)
    drawn = sorted(dice.shuffled(sorted(truth))[:N_DRAWN])
    young = [p for p, b in PEOPLE.items() if b == "18-34"]
    older = [p for p, b in PEOPLE.items() if b == "35+"]
    draws: list[lw.Draw] = []
    for k, item in enumerate(drawn, start=1):
        n_young = 3 if k % 2 else 2
        panel = dice.shuffled(young)[:n_young] + dice.shuffled(older)[:K - n_young]
        for person in sorted(panel):
            label = _sample(dice, truth[item].by_band[PEOPLE[person]])
            draws.append(lw.Draw(f"off-{k:03d}", item, SCHEMA, "calibration", pi, "dev",
                                 lw.Answer(person, label)))
    return tuple(draws)


# ----------------------------------------------------------------------- numbers


def js_distance(p: Sequence[float], q: Sequence[float]) -> float:
    """Jensen-Shannon distance in base 2 of two weight vectors (normalised first)."""
    a, b = _normalise(p), _normalise(q)
    m = [(x + y) / 2 for x, y in zip(a, b, strict=True)]

    def kl(x: Sequence[float]) -> float:
        return math.fsum(xi * math.log2(xi / mi) for xi, mi in zip(x, m, strict=True)
                         if xi > 0)

    return math.sqrt(max(0.0, (kl(a) + kl(b)) / 2))


def _counts(labels: Sequence[str]) -> list[float]:
    return [float(sum(x == label for x in labels)) for label in LABELS]


def _split_half(labels: Sequence[str]) -> float:
    """The split-half distance averaged over every way to pick the first ⌊k/2⌋ people."""
    half = len(labels) // 2
    values = []
    for first in combinations(range(len(labels)), half):
        a = [labels[i] for i in first]
        b = [labels[i] for i in range(len(labels)) if i not in first]
        values.append(js_distance(_counts(a), _counts(b)))
    return math.fsum(values) / len(values)


@dataclass(frozen=True)
class Summary:
    n_items: int
    mean_js: float
    sd: float
    ceiling: float
    truth_floor: float
    """The mean distance of the *true* distribution to the same people: sampling noise."""


@dataclass(frozen=True)
class OffNumbers:
    overall: Summary
    groups: dict[str, Summary]
    edges: dict[str, int]
    drawn_edges: dict[str, int]


def _summary(panels: Mapping[str, Sequence[str]], machine: Mapping[str, dict[str, float]],
             true: Mapping[str, dict[str, float]]) -> Summary:
    distances = [js_distance([machine[i][x] for x in LABELS], _counts(panels[i]))
                 for i in panels]
    mean = math.fsum(distances) / len(distances)
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in distances) / (len(distances) - 1))
    floor = math.fsum(js_distance([true[i][x] for x in LABELS], _counts(panels[i]))
                      for i in panels) / len(panels)
    ceiling = math.fsum(_split_half(panels[i]) for i in panels) / len(panels)
    return Summary(len(distances), mean, sd, ceiling, floor)


def off_numbers(plan: OffPlan) -> OffNumbers:
    """What the README states, from the plan alone."""
    panels: dict[str, list[tuple[str, str]]] = {}
    for d in plan.draws:
        assert d.answer is not None
        panels.setdefault(d.item, []).append((d.answer.annotator, str(d.answer.label)))
    overall = _summary({i: [y for _, y in p] for i, p in panels.items()}, plan.machine,
                       {i: plan.truth[i].overall for i in panels})
    groups = {}
    for band in BANDS:  # Potato's method: an item counts for a band with 3 of its people
        mine = {i: ys for i, p in panels.items()
                if len(ys := [y for who, y in p if PEOPLE[who] == band]) >= 3}
        groups[band] = _summary(mine, plan.machine,
                                {i: plan.truth[i].by_band[band] for i in mine})
    edges = {e: sum(t.edge == e for t in plan.truth.values()) for e in EDGES}
    drawn = {e: sum(plan.truth[i].edge == e for i in panels) for e in EDGES}
    return OffNumbers(overall, groups, edges, drawn)


def truth_record(t: OffTruth) -> dict[str, object]:
    """The ``truth.jsonl`` fields of one review's offensiveness truth."""
    return {"offensiveness_edge": t.edge, "offensiveness": t.overall,
            "offensiveness_by_age_band": t.by_band}


def _against(s: Summary) -> str:
    """Where a band's distance stands against its own split-half ceiling, in words."""
    if s.mean_js < s.ceiling - 0.02:
        return "below its ceiling (the machine is closer to it than its halves are)"
    if s.mean_js <= s.ceiling + 0.02:
        return "at about its ceiling (as far as its halves are from each other)"
    return "above its ceiling (farther than its halves are from each other)"


def readme_section(plan: OffPlan) -> list[str]:
    """The README's lines about the subjective schema and what Accord should report."""
    n = off_numbers(plan)
    o = n.overall
    first_look = 0.1 * 6 / math.pi ** 2  # Potato's level at look 1, confidence 0.9
    half = lw.normal_quantile(1 - first_look / 2) * o.sd / math.sqrt(o.n_items)
    young, older = n.groups["18-34"], n.groups["35+"]
    pool_young = POOL_SHARE["18-34"]
    n_young = sum(b == "18-34" for b in PEOPLE.values())
    shares = "; ".join(f"{e}: " + ", ".join(f"{band} " + "/".join(f"{v:.2f}" for v in
                                                                  TRUE_BY_BAND[e][band])
                                            for band in BANDS) for e in EDGES)
    return [
        "## A subjective schema: `offensiveness` (for `distributional`)",
        "",
        "Is the review offensive? (`not_offensive` / `somewhat_offensive` / `offensive`). "
        "There is no single right answer: people disagree, and *who* they are is part of "
        "the answer. The truth (in `truth.jsonl`: `offensiveness_edge`, the overall "
        "distribution `offensiveness` and `offensiveness_by_age_band`):",
        "",
        f"- each review has an edge: {n.edges['plain']} are *plain*, {n.edges['crude']} "
        f"*crude* (one more sentence swearing about the product) and {n.edges['insulting']} "
        "*insulting* (one more sentence aimed at people);",
        "- per edge and age band, the true shares of (not / somewhat / offensive) are "
        f"{shares}; each review's are these jittered a little. People aged 35 and over "
        "find crude and insulting wording offensive far more often;",
        f"- the annotator pool is {pool_young:.0%} `18-34` ({n_young} of {len(PEOPLE)} "
        "people; `labeling/annotators.jsonl`, prestudy answer `age_band`), so the overall "
        f"distribution is {pool_young:.1f} · younger + {1 - pool_young:.1f} · older;",
        "- **gemma-12b**'s `probs` for `offensiveness` are that overall distribution with a "
        "little noise: close to people overall, closer to the 18-34 band than to the 35+ "
        "band. distilbert labels sentiment only (its source's `schemas: [sentiment]`), so "
        "the cascade of `offensiveness` is gemma alone and the estimate reads its `probs`.",
        "",
        f"{N_DRAWN} blind calibration requests (`off-001`...), drawn uniformly (`pi` = "
        f"{N_DRAWN}/480: {n.drawn_edges['plain']} plain, {n.drawn_edges['crude']} crude, "
        f"{n.drawn_edges['insulting']} insulting), all to dev, each answered by "
        f"`humans.distribution_k` = {K} people: alternately 3 of the 18-34 band and 2 of "
        "the 35+ band, and 2 and 3, so each band has at least 2 people on every item (the "
        "panels give the older band half the seats; the machine still follows the pool).",
        "",
        "## What `accord label certify` should show for `disagreement`",
        "",
        f"`disagreement` (distributional, `max_distance` {MAX_DISTANCE}, `groups_by: "
        "age_band`, confidence 0.9) is **met**:",
        "",
        f"- mean Jensen-Shannon distance (base 2) between gemma's probabilities and the "
        f"{K} people's answers: **{o.mean_js:.3f}** over {o.n_items} items; the bootstrap "
        "interval (Potato's method: 400 resamples at the first look's level, 93.9%) should "
        f"be about ±{half:.3f}, so its upper end, about {o.mean_js + half:.3f}, is under "
        f"{MAX_DISTANCE}; the evaluation spends look 1, as every estimate does in Potato;",
        f"- noise ceiling (2 people against the other 3): about **{o.ceiling:.3f}** on "
        "average over every split; Potato's method draws one split per item (seed 0), so "
        "its ceiling differs in the second decimal. The machine is closer to the people "
        "than they are to each other;",
        f"- the *true* overall distribution itself is {o.truth_floor:.3f} away from the same "
        "people: five answers are a coarse picture of a distribution, so that is about "
        "the best any machine can score here. This is why `max_distance` is "
        f"{MAX_DISTANCE}, not the 0.15 of the spec's example: with {K} people per item, "
        "0.15 is out of reach for a perfect machine, and Accord would call it infeasible;",
        f"- by `age_band`: **18-34 {young.mean_js:.3f}** (ceiling about {young.ceiling:.3f}) "
        f"over {young.n_items} items and **35+ {older.mean_js:.3f}** (ceiling about "
        f"{older.ceiling:.3f}) over {older.n_items}: Potato's method counts an item for a "
        "band only when 3 of its people labelled it. The 35+ band is farther from the "
        f"machine, as built: gemma follows a pool that is {pool_young:.0%} aged 18-34. A "
        "band's numbers rest on 3 people per item, so both are farther than the overall "
        "distance; what "
        "the truth explains is the gap between them, and where each stands against its "
        f"own ceiling: the 18-34 band is {_against(young)}, the 35+ band "
        f"{_against(older)}. Groups are reported, not judged: the state follows the "
        "overall interval.",
        "",
        "`distributional` is an estimate: it accepts no label. With no `selective_risk` "
        "or `threshold_legacy` contract on `offensiveness`, no machine label is delivered "
        "for it, so `accord label export` lists its other items as `pending` (Potato's "
        "export status); the sentiment rows are unchanged.",
        "",
    ]
