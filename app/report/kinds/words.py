"""Each agreement kind's words in the reports (text, HTML, CSV, certificate), one row each.

A row says which metric heads the kind's schemes (the cards, the partitions table, the
certificate's agreement section), which metric colours its annotator-pair matrix, and
the names and meanings of the metrics whose sense the kind changes (an ordinal κ is
quadratic-weighted). A metric not named in a row keeps its common name
(``agreement_text.LABELS``) and meaning (``agreement_vocabulary.MEANING``).

A kind without a row is still reported: its first metric heads it, it has no pair
matrix colour and its metrics keep their common names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class KindWords:
    headline: str
    """The metric that heads a scheme of this kind."""
    matrix: str | None = None
    """The metric of its annotator-pair matrix; ``None``: no pair matrix (STAPLE)."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """Metric names where this kind's differ, for the scheme's number (a mean)."""
    pair_labels: Mapping[str, str] = field(default_factory=dict)
    """Metric names where this kind's differ, for one annotator pair's number."""
    meanings: Mapping[str, str] = field(default_factory=dict)
    """What a metric measures, where this kind changes it."""


_SETS = KindWords(headline="mean_agreement", matrix="mean_agreement")
_TRACKS = KindWords(
    headline="mean_agreement", matrix="mean_agreement",
    labels={"identity.mota": "MOTA (pooled)", "identity.idf1": "IDF1 (pooled)",
            "identity.id_switches": "ID switches"},
    meanings={"identity.mota": "1 − (misses + extras + ID switches) / reference "
                               "object-frames, both annotators in turn the reference, "
                               "pooled over pairs and items",
              "identity.idf1": "2 · object-frames matched under the best track-to-track "
                               "assignment / both annotators' object-frames",
              "identity.id_switches": "times a track was matched to another track than "
                                      "before, per direction (both directions' total "
                                      "halved)"})
"""Set kinds whose answers can hold tracks (3D sequences, video tracking): identity over
the tracks beside the set metrics (``agreement/identity/``)."""

_RATING_NAMES = {
    "pearson_r": "Pearson r", "mae": "MAE", "rmse": "RMSE",
    "alpha_interval": "Krippendorff α (interval)", "icc_2_k": "ICC(2,k)",
    "weighted_kappa_linear": "weighted κ (linear)",
    "weighted_kappa_quadratic": "weighted κ (quadratic)", "spearman_rho": "Spearman ρ",
    "alpha_ordinal": "Krippendorff α (ordinal)", "alpha_nominal": "Krippendorff α (nominal)",
    "fleiss_kappa": "Fleiss' κ", "percent_agreement": "percent agreement",
    "cohen_kappa": "Cohen κ (mean over pairs)",
    "pairwise_cohen_kappa": "Cohen κ (Potato's alias)",
}
"""Potato's names of the rating blocks' metrics, in words (the matrix kind's rows)."""

WORDS: dict[str, KindWords] = {
    "nominal": KindWords(headline="alpha", matrix="kappa"),
    "ordinal": KindWords(
        headline="alpha", matrix="kappa",
        labels={"kappa": "Cohen κ (quadratic, mean)"},
        pair_labels={"kappa": "Cohen κ (quadratic)"},
        meanings={"kappa": "mean of quadratic-weighted Cohen's κ over annotator pairs "
                           "(full scale)"}),
    "multilabel": KindWords(headline="alpha", matrix="alpha"),
    "trace": KindWords(headline="alpha", matrix="kappa"),
    "cuboids": _TRACKS,
    "segments": _TRACKS,
    "tiers": _SETS,
    "regions": _SETS,
    "masks": KindWords(headline="mean_sensitivity"),
    "continuous": KindWords(
        headline="alpha_interval", matrix="pearson_r",
        pair_labels={"pearson_r": "Pearson r", "mae": "MAE", "rmse": "RMSE"},
        labels={"alpha_interval": "Krippendorff α (interval)",
                "icc_2_k": "ICC(2,k)", "pearson_r": "Pearson r (mean over pairs)",
                "mae": "MAE (mean over pairs)", "rmse": "RMSE (mean over pairs)"},
        meanings={"icc_2_k": "two-way random, absolute agreement, mean of k raters, on "
                             "the items every annotator rated",
                  "mae": "mean absolute difference between two annotators' numbers, mean "
                         "over pairs (0 is identical; in the scale's units)"}),
    "ranking": KindWords(
        headline="kendall_tau", matrix="kendall_tau",
        pair_labels={"kendall_tau": "Kendall τ (mean over shared items)",
                     "spearman_footrule": "Spearman footrule (distance)"},
        labels={"kendall_tau": "Kendall τ (mean over pairs and items)",
                "spearman_footrule": "Spearman footrule (distance)"},
        meanings={"spearman_footrule": "Σ|position difference| / ⌊n²/2⌋ on the shared "
                                       "options: 0 identical, 1 reversed"}),
    "spans": KindWords(
        headline="gamma_mathet", matrix="span_f1_partial",
        labels={"token_level_kappa": "token κ (character BIO)",
                "span_f1_exact": "span F1, exact", "span_f1_partial": "span F1, partial",
                "char_alpha": "char α (nominal)", "gamma_mathet": "Mathet γ"},
        meanings={"span_f1_partial": "spans of one label overlapping by at least half of "
                                     "either, matched one to one; mean over annotator pairs "
                                     "and items",
                  "char_alpha": "Krippendorff's nominal α over characters (Potato's "
                                "krippendorff_alpha_u), not unitizing α",
                  "gamma_mathet": "Mathet et al.'s γ: one best alignment of all "
                                  "annotators' spans against chance (seeded shuffles)"}),
    "matrix": KindWords(
        headline="alpha",
        labels={"alpha": "Krippendorff α (pooled rows, the scheme's scale)",
                **{name: f"{label} (pooled rows)" for name, label in _RATING_NAMES.items()}}),
    "volumes": KindWords(
        headline="mean_dice", matrix="mean_dice",
        labels={"mean_dice": "mean Dice (over labels)"},
        pair_labels={"mean_dice": "mean Dice"},
        meanings={"mean_dice": "2|A∩B| / (|A|+|B|) of two annotators' 3-D label masks, "
                               "per label the mean over items and pairs (pairs where "
                               "neither painted the label left out), then the mean over "
                               "labels"}),
    # kinds.md B §2.9-2.12: one metric group per layer, Potato's dotted names
    "grounding": KindWords(
        headline="detection.alpha",
        labels={"detection.alpha": "detection α (located / not present)",
                "detection.percent_agreement": "detection, percent agreement",
                "localization.mean_iou": "localization, mean IoU",
                "localization.median_iou": "localization, median IoU",
                "pointing.mean_pairwise_distance": "pointing distance (image units)",
                "coverage.answered_fraction": "answered fraction"},
        meanings={"detection.alpha": "Krippendorff's nominal α over each expression's "
                                     "answer: located or not present",
                  "localization.mean_iou": "per pair that both located an expression, "
                                           "matched similarity / the larger region count "
                                           "(one region each: IoU); mean over such pairs",
                  "pointing.mean_pairwise_distance": "distance between two annotators' "
                                                     "points in normalized image units "
                                                     "(0 is the same point)",
                  "coverage.answered_fraction": "answered / possible (expression, "
                                                "annotator) answers"}),
    "captions": KindWords(
        headline="alpha",
        labels={"alpha": "caption α (token distance)",
                "mean_pairwise_distance": "mean token distance",
                "matching.n_matched_regions": "regions matched",
                "matching.n_unmatched_regions": "regions unmatched"},
        meanings={"alpha": "Krippendorff's α over the captions of matched regions, "
                           "δ = 1 − Jaccard of their words (stop words dropped)",
                  "mean_pairwise_distance": "mean token distance between two captions "
                                            "of one region (0 same words; not "
                                            "chance-corrected)"}),
    "episodes": KindWords(
        headline="outcome.outcome_alpha",
        labels={"phases.mean_agreement": "phases, mean agreement",
                "phases.mean_matched_iou": "phases, matched temporal IoU",
                "phases.detection_f1": "phases, detection F1",
                "outcome.outcome_alpha": "outcome α (nominal)",
                "reward.reward_icc": "reward ICC(2,1)",
                "reward.reward_pearson_r": "reward Pearson r",
                "reward.reward_coverage": "reward, shared time"},
        meanings={"reward.reward_icc": "two reward curves resampled on 200 points where "
                                       "both drew, ICC(2,1) per pair, mean over pairs "
                                       "and episodes",
                  "reward.reward_coverage": "share of the 200 points both curves cover"}),
    "rollouts": KindWords(
        headline="detection.alpha",
        labels={"detection.alpha": "break detection α (0.5 s window)",
                "localization.mean_offset": "break offset, mean (s)",
                "localization.median_offset": "break offset, median (s)",
                "localization.sigma": "localization σ (vs. chance offsets)",
                "localization.ks": "localization KS (vs. chance offsets)",
                "localization.n_matched_pairs": "matched breaks",
                "category.alpha": "break type α", "severity.alpha": "severity α (ordinal)",
                "preference.alpha": "preference α", "counterfactual.alpha":
                "counterfactual verdict α", "coverage.answered_fraction":
                "answered streams"},
        meanings={"detection.alpha": "nominal α over clusters of break marks within "
                                     "0.5 s: each answering annotator marked it or not",
                  "localization.sigma": "1 − mean matched offset / mean offset between "
                                        "marks of different rollouts",
                  "localization.ks": "Kolmogorov-Smirnov distance between matched and "
                                     "chance offsets (1: fully separated)"}),
}

NO_WORDS = KindWords(headline="")


def words_for(kind: str | None) -> KindWords:
    """The row of ``kind``; a row with no special words for a kind without one."""
    return WORDS.get(kind or "", NO_WORDS)
