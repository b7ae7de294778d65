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
- ``pair_labels``: names for one pair's number in the pair matrix (a pair's Pearson r
  is no mean over pairs);
- ``no_pairs``: why the overview shows no annotator-pair matrix for it, where that is the
  kind's nature (STAPLE rates annotators against the consensus);
- ``also``: further detail views that draw its schemes when the report carries a metric
  (view → metric): the tracks view draws a cuboid or segment scheme that holds tracks
  (it reports ``identity.mota``).

A kind without a row is still shown on the overview with its metrics' common names; it
has no detail tab until its row names one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.project import ProjectData


@dataclass(frozen=True, slots=True)
class KindLook:
    detail: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    unit: str = "item"
    confusion: bool = False
    no_pairs: str = ""
    """Why the kind has no annotator-pair matrix, where that is its nature."""
    also: Mapping[str, str] = field(default_factory=dict)
    """Further detail views → the metric whose presence says a scheme is theirs to draw."""
    pair_labels: Mapping[str, str] = field(default_factory=dict)
    """Metric names for one annotator pair's number, where they differ from the card's."""


_IDENTITY = {"identity.mota": "MOTA (tracks, pooled)", "identity.idf1": "IDF1 (tracks, pooled)",
             "identity.id_switches": "ID switches (per direction)"}
"""Identity over tracks (3D sequences, video tracking), beside the set metrics."""
_TRACKS = {"tracks": "identity.mota"}
"""A scheme holding tracks (it reports identity) is drawn in the tracks view too."""

POOLED = ("each metric group is pooled over annotator pairs and units, as Potato 2.12.1 "
          "reports it: a number per pair would be another metric")
"""Why grounding, caption, episode and rollout schemes have no pair matrix."""
MATRIX_BLOCKS = ("Potato 2.12.1 scores a matrix scheme (bws, multirate, semantic "
                 "differential…) per row and pooled over every item × row, not per annotator "
                 "pair; the Matrices view shows each row")
"""Why a matrix scheme has no pair matrix (the overview said nobody shared an item)."""

LOOKS: dict[str, KindLook] = {
    "nominal": KindLook(detail="answers", confusion=True),
    "ordinal": KindLook(detail="answers", confusion=True,
                        labels={"kappa": "Weighted κ (quadratic, mean over pairs)"}),
    "multilabel": KindLook(detail="answers"),
    "trace": KindLook(detail="traces", unit="step", confusion=True,
                      labels={"alpha": "Step-level α"}),
    "cuboids": KindLook(detail="cuboids", labels=_IDENTITY, also=_TRACKS),
    "segments": KindLook(detail="tiers", labels=_IDENTITY, also=_TRACKS),
    "tiers": KindLook(detail="tiers"),
    "regions": KindLook(detail="regions"),
    "masks": KindLook(detail="masks", no_pairs="STAPLE rates each annotator against the "
                      "consensus, not pairs against each other"),
    # the rating kinds and spans (issue 37): on the overview's cards and in their views
    "continuous": KindLook(detail="numbers", pair_labels={"pearson_r": "Pearson r"}),
    "ranking": KindLook(detail="rankings", pair_labels={
        "kendall_tau": "Kendall τ (mean over the pair's shared items)"}),
    "matrix": KindLook(detail="matrices", no_pairs=MATRIX_BLOCKS),
    "spans": KindLook(detail="spans",
                      labels={"token_level_kappa": "token κ", "span_f1_exact": "exact F1",
                              "span_f1_partial": "partial F1", "char_alpha": "char α",
                              "gamma_mathet": "γ"}),
    # volumes (issue 38 part 2): the slice view
    "volumes": KindLook(detail="volumes", labels={"mean_dice": "mean Dice"}),
    # grounding, captions, episodes, rollouts (issue 38 part 3): answers side by side
    "grounding": KindLook(detail="answers", no_pairs=POOLED, unit="expression",
                          labels={"detection.alpha": "detection α",
                                  "detection.percent_agreement": "detection % agreement",
                                  "localization.mean_iou": "mean IoU",
                                  "localization.median_iou": "median IoU",
                                  "pointing.mean_pairwise_distance": "point distance",
                                  "coverage.answered_fraction": "answered"}),
    "captions": KindLook(detail="answers", no_pairs=POOLED, unit="region",
                         labels={"alpha": "caption α (words)",
                                 "mean_pairwise_distance": "mean word distance",
                                 "matching.n_matched_regions": "regions matched",
                                 "matching.n_unmatched_regions": "regions unmatched"}),
    "episodes": KindLook(detail="answers", no_pairs=POOLED, unit="episode",
                         labels={"phases.mean_agreement": "phases agreement",
                                 "phases.mean_matched_iou": "phases IoU",
                                 "phases.detection_f1": "phases F1",
                                 "outcome.outcome_alpha": "outcome α",
                                 "reward.reward_icc": "reward ICC(2,1)",
                                 "reward.reward_pearson_r": "reward r",
                                 "reward.reward_coverage": "reward overlap"}),
    "rollouts": KindLook(detail="answers", no_pairs=POOLED, unit="rollout",
                         labels={"detection.alpha": "break α",
                                 "localization.mean_offset": "offset (s)",
                                 "localization.sigma": "σ",
                                 "localization.ks": "KS",
                                 "category.alpha": "type α", "severity.alpha": "severity α",
                                 "preference.alpha": "preference α",
                                 "counterfactual.alpha": "counterfactual α",
                                 "coverage.answered_fraction": "answered"}),
}

NO_LOOK = KindLook()


def look_of(kind: str | None) -> KindLook:
    """The row of ``kind``; an empty row (no detail view) for a kind without one."""
    return LOOKS.get(kind or "", NO_LOOK)


def detail_views() -> dict[str, str]:
    """Kind name → the detail view that draws it."""
    return {kind: look.detail for kind, look in LOOKS.items() if look.detail}


def also_views(kind: str | None, metrics: Mapping[str, object]) -> set[str]:
    """The further detail views that draw a scheme of ``kind`` with these ``metrics``."""
    return {view for view, metric in look_of(kind).also.items() if metric in metrics}


def no_pairs_reason(result: SchemeResult) -> str:
    """Why ``result`` has no annotator-pair matrix where that is its nature: the kind's
    (STAPLE), or a scheme of tracks only, whose identity is pooled, not kept per pair."""
    if look_of(result.kind).no_pairs:
        return look_of(result.kind).no_pairs
    if "identity.mota" in result.metrics and not result.pairs:
        return (f"this scheme holds tracks only; MOTA, IDF1 and ID switches are pooled over "
                f"its {result.n_pairs} annotator pairs (both directions), not kept per pair. "
                "The Tracks view compares each pair's tracks frame by frame")
    return ""


UNDEFINED_PAIR = "no variation to correct against"
"""A pair's undefined value without a stored sentence (α and κ: one label throughout)."""


def pair_reason(result: SchemeResult, key: str, metric: str) -> str:
    """Why pair ``key``'s ``metric`` is undefined: the sentence the kind stored
    (``extra["pair_undefined"]``: numbers, rankings), else α's and κ's reason."""
    stored = result.extra.get("pair_undefined")
    reason = stored.get(key, {}).get(metric) if isinstance(stored, dict) else None
    return str(reason) if reason else UNDEFINED_PAIR


def kinds_drawn_by(view: str) -> frozenset[str]:
    """The kinds whose schemes the detail view ``view`` draws."""
    return frozenset(kind for kind, look in LOOKS.items() if look.detail == view)


def schemes_drawn_by(project: ProjectData, view: str) -> list[str]:
    """The project's schemes whose kind the detail view ``view`` draws, in report order
    (each view's scheme selector lists these)."""
    drawn = kinds_drawn_by(view)
    return [name for name, r in project.report.schemes.items() if r.kind in drawn]


def numbers_drawn(result: SchemeResult) -> bool:
    """Whether the numbers view draws ``result``: a number kind's scheme, or a slider
    (ordinal in Accord, its positions numbers, Potato's CONTINUOUS block its
    ``potato_iaa``: kinds.md A.3)."""
    return result.kind in kinds_drawn_by("numbers") or result.annotation_type == "slider"


def kinds_with_confusion() -> frozenset[str]:
    """The kinds the items view shows a confusion matrix for."""
    return frozenset(kind for kind, look in LOOKS.items() if look.confusion)
