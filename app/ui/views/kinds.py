"""The window's side of the kind table: each agreement kind's view and words, by name.

The core's table (``app/core/agreement/kinds/``) says what a kind reads and computes;
how the window shows it is the window's, so it lives here, one row per kind:

- ``detail``: the docked detail view that draws its schemes (``dock_layout.py`` shows
  only the detail tabs of the kinds a project has; the regions, masks, traces and
  answers views list the schemes of the kinds they draw);
- ``labels``: metric names where the kind changes a metric's sense (an ordinal κ is
  quadratic-weighted; a trace α is over steps), on the cards and in the pair matrix;
- ``unit``: what one unit is, in words (a trace's units are its steps);
- ``confusion``: whether the items view shows its label-by-label confusion matrix;
- ``no_pairs``: why the overview shows no annotator-pair matrix for it, where that is the
  kind's nature (STAPLE rates annotators against the consensus).

A kind without a row is still shown on the overview with its metrics' common names; it
has no detail tab until its row names one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class KindLook:
    detail: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    unit: str = "item"
    confusion: bool = False
    no_pairs: str = ""
    """Why the kind has no annotator-pair matrix, where that is its nature."""


_IDENTITY = {"identity.mota": "MOTA (tracks, pooled)", "identity.idf1": "IDF1 (tracks, pooled)",
             "identity.id_switches": "ID switches (per direction)"}
"""Identity over tracks (3D sequences, video tracking), beside the set metrics."""

LOOKS: dict[str, KindLook] = {
    "nominal": KindLook(detail="answers", confusion=True),
    "ordinal": KindLook(detail="answers", confusion=True,
                        labels={"kappa": "Weighted κ (quadratic, mean over pairs)"}),
    "multilabel": KindLook(detail="answers"),
    "trace": KindLook(detail="traces", unit="step", confusion=True,
                      labels={"alpha": "Step-level α"}),
    "cuboids": KindLook(detail="cuboids", labels=_IDENTITY),
    "segments": KindLook(detail="tiers", labels=_IDENTITY),
    "tiers": KindLook(detail="tiers"),
    "regions": KindLook(detail="regions"),
    "masks": KindLook(detail="masks", no_pairs="STAPLE rates each annotator against the "
                      "consensus, not pairs against each other"),
    # the rating kinds and spans (issue 37): on the overview's cards and in their views
    "continuous": KindLook(detail="numbers"),
    "ranking": KindLook(detail="rankings"),
    "matrix": KindLook(detail="matrices"),
    "spans": KindLook(detail="spans",
                      labels={"token_level_kappa": "token κ", "span_f1_exact": "exact F1",
                              "span_f1_partial": "partial F1", "char_alpha": "char α",
                              "gamma_mathet": "γ"}),
    # volumes (issue 38 part 2): the slice view
    "volumes": KindLook(detail="volumes", labels={"mean_dice": "mean Dice"}),
}

NO_LOOK = KindLook()


def look_of(kind: str | None) -> KindLook:
    """The row of ``kind``; an empty row (no detail view) for a kind without one."""
    return LOOKS.get(kind or "", NO_LOOK)


def detail_views() -> dict[str, str]:
    """Kind name → the detail view that draws it."""
    return {kind: look.detail for kind, look in LOOKS.items() if look.detail}


def kinds_drawn_by(view: str) -> frozenset[str]:
    """The kinds whose schemes the detail view ``view`` draws."""
    return frozenset(kind for kind, look in LOOKS.items() if look.detail == view)


def kinds_with_confusion() -> frozenset[str]:
    """The kinds the items view shows a confusion matrix for."""
    return frozenset(kind for kind, look in LOOKS.items() if look.confusion)
