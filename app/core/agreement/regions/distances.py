"""The within- and between-item distance samples of a regions scheme, kept for the views.

:func:`~app.core.agreement.regions.chance.fill_region_chance` computes σ and KS from two
samples of localization distances ``d = (1 − GIoU) / 2``: matched pairs on the same item
(within) and object pairs from different items (between, the chance baseline). The
report used to keep only the two numbers; the regions view draws the two distributions,
and recomputing them on the GUI thread costs ~0.2 s on the small street demo (GIoU of
2,000 pairs), so the samples are kept in the result.

Why a subclass: ``SchemeResult.details`` of a regions scheme is the
:class:`~app.core.agreement.sets.agreement.SetAgreement` every set view reads;
:class:`RegionAgreement` *is* one (the same fields, shared, not copied) with the
localization samples beside them, so no existing reader changes and no JSON key moves
(``details`` is never serialized).

Histograms (a choice: the spec asks for "the distributions as a plot"): both samples
share one set of bin edges over ``[0, 1]`` (``d`` is in ``[0, 1]`` by construction),
20 bins, and each is normalized to a density (area 1) so a sample of 158 within-item
distances and one of 2,000 between-item draws read on one scale.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from app.core.agreement.regions.chance import Localization
from app.core.agreement.sets.agreement import SetAgreement

DISTANCE_BINS = 20


@dataclass(slots=True)
class RegionAgreement(SetAgreement):
    """A :class:`SetAgreement` with the localization samples σ and KS were computed from."""

    localization: Localization | None = None

    @classmethod
    def of(cls, sets: SetAgreement, localization: Localization | None) -> RegionAgreement:
        """``sets`` with ``localization`` beside it (fields shared, not copied)."""
        values = {f.name: getattr(sets, f.name) for f in fields(SetAgreement)}
        return cls(**values, localization=localization)


@dataclass(frozen=True, slots=True)
class DistanceHistograms:
    """Both samples binned on shared edges, as densities (area 1 each)."""

    edges: np.ndarray
    within: np.ndarray
    between: np.ndarray
    n_within: int
    n_between: int


def distance_histograms(localization: Localization, bins: int = DISTANCE_BINS
                        ) -> DistanceHistograms:
    """Densities of the within- and between-item distances on ``bins`` bins over [0, 1].

    An empty sample gives a zero density (there is nothing to draw), never NaN.
    """
    edges = np.linspace(0.0, 1.0, bins + 1)
    return DistanceHistograms(edges, _density(localization.within, edges),
                              _density(localization.between, edges),
                              int(localization.within.size), int(localization.between.size))


def _density(sample: np.ndarray, edges: np.ndarray) -> np.ndarray:
    counts, _ = np.histogram(np.clip(sample, 0.0, 1.0), bins=edges)
    total = counts.sum()
    if total == 0:
        return np.zeros(edges.size - 1)
    density: np.ndarray = counts / (total * np.diff(edges))
    return density


def item_within(localization: Localization, item: str) -> np.ndarray:
    """The within-item distances of the matched pairs on ``item``."""
    mask = np.fromiter((i == item for i in localization.within_items), dtype=bool,
                       count=len(localization.within_items))
    within: np.ndarray = localization.within[mask]
    return within
