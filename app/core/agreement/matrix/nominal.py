"""Potato's NOMINAL block for matrix rows whose sub-answers are unordered (``bws``).

As ``dispatcher.py`` ``_aggregate_nominal`` reports it: ``alpha_nominal`` (Accord's α),
``fleiss_kappa`` (Accord's Fleiss κ: each item over its own raters, marginals pooled),
``percent_agreement`` (per item the share of its annotator pairs that agree, then the
mean over items: Fleiss' P̄), ``cohen_kappa`` (per pair on the items it shares, pairs
with an undefined κ left out, mean over pairs; Potato repeats it as
``pairwise_cohen_kappa``), ``n_items``, ``n_aligned_items`` (items
every annotator answered), ``n_annotators``.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from app.core.agreement.categorical.alpha import alpha, counts_from_codes, nominal_metric
from app.core.agreement.categorical.kappa import cohen_kappa, fleiss_kappa
from app.core.agreement.categorical.units import code_rows
from app.core.agreement.coefficient import Coefficient
from app.core.agreement.continuous.block import Block
from app.core.agreement.continuous.pairs import Rows, annotator_count

NO_PAIRS = "no item was answered by two or more annotators"


def _percent(rows: Rows[str]) -> Coefficient:
    shares = []
    for by in rows.values():
        pairs = list(combinations(list(by.values()), 2))
        if pairs:
            shares.append(sum(a == b for a, b in pairs) / len(pairs))
    return Coefficient.of(sum(shares) / len(shares)) if shares else Coefficient.undefined(
        NO_PAIRS)


def nominal_block(rows: Rows[str]) -> Block:
    units = code_rows([(item, item, by) for item, by in rows.items()])
    n_values = len(units.values)
    counts = counts_from_codes(units.codes, n_values)
    kappas: list[float] = []
    for j, k in combinations(range(len(units.annotators)), 2):
        a, b = units.codes[:, j], units.codes[:, k]
        if ((a >= 0) & (b >= 0)).any():
            kappa = cohen_kappa(a, b, n_values)
            if kappa.value is not None:
                kappas.append(kappa.value)
    mean_kappa = (Coefficient.of(float(np.mean(kappas))) if kappas else Coefficient.undefined(
        "no annotator pair has a defined κ: every pair used one label on all it shares"))
    annotators = set(units.annotators)
    return Block(
        metrics={"alpha_nominal": alpha(counts, nominal_metric),
                 "fleiss_kappa": fleiss_kappa(counts),
                 "percent_agreement": _percent(rows),
                 "cohen_kappa": mean_kappa,
                 "pairwise_cohen_kappa": mean_kappa},
        counts={"n_items": len(rows),
                "n_aligned_items": sum(set(by) == annotators for by in rows.values()),
                "n_annotators": annotator_count(rows)},
    )
