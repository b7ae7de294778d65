"""Metric names and numbers in words, as the overview and the other views show them.

Pure text (no Qt), so the wording is one place: a metric key of the report
(``cli.md``) → a label a reader understands, a value → its printed form, and the
sentences for coverage and for the categorical reference beside a trace's α.

Choices (the spec is silent): three decimals for coefficients and shares, two for the
object-count difference (it is a count, not a share); a coefficient's interval is shown
as ``95% CI lo – hi`` with the report's stated level.

Honest numbers (issue 15, part 4):

- One headline per scheme, the same key in the card, the project tree and the pair
  heatmap's title (:func:`headline_key`): the chance-corrected coefficient where the kind
  has one (α; detection α for regions), else mean agreement (sets), else mean sensitivity
  (masks). A lead once saw "detection α 0.041", "agreement 0.46" and a heatmap of mean
  agreement for one scheme, three headlines that told three stories.
- KS is a distance between two distributions, not a chance-corrected coefficient: it is
  listed with the uncorrected numbers; σ (1 − within/between, 0 at chance) stays corrected.
- Fewer than :data:`SMALL_SAMPLE` scored items: every coefficient and interval gets a
  visible ⚠ and the card says why (α 1.000 on 4 items looked certain). 20 is the issue's
  threshold; the bootstrap over so few items has few distinct resamples.
- An interval whose ends are equal is degenerate, not precise: it is shown in words
  ("CI degenerate (every resample 1.000)"), never as ``CI 1.000 – 1.000``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from app.core.agreement.result import SchemeResult
from app.report.kinds.potato_values import potato_line
from app.ui.views.kinds import look_of

CORRECTED = ("alpha", "fleiss_kappa", "kappa", "detection_alpha", "classification_alpha",
             "sigma",
             # the rating kinds, under Potato's names (issue 37)
             "alpha_interval", "alpha_ordinal", "alpha_nominal", "weighted_kappa_linear",
             "weighted_kappa_quadratic", "cohen_kappa", "pairwise_cohen_kappa",
             # the span kind's (issue 37)
             "token_level_kappa", "char_alpha", "gamma_mathet",
             # grounding, episodes, rollouts (issue 38; captions' is "alpha")
             "detection.alpha", "outcome.outcome_alpha", "category.alpha", "severity.alpha",
             "preference.alpha", "counterfactual.alpha", "localization.sigma")
"""Metrics corrected for (or read against) chance agreement."""

UNCORRECTED = ("percent_agreement", "mean_agreement", "mean_object_count_diff",
               "detection_f1", "mean_matched_iou", "mean_jaccard", "ks",
               "mean_within_distance", "mean_between_distance", "mean_sensitivity",
               "mean_specificity",
               "pearson_r", "mae", "rmse", "spearman_rho", "kendall_tau", "spearman_footrule",
               "icc_2_k", "span_f1_exact", "span_f1_partial")
"""Metrics that say nothing of agreement beyond chance."""

PAIR_ORDER = ("alpha", "kappa", "percent_agreement", "mean_agreement", "detection_f1",
              "mean_matched_iou", "mean_object_count_diff", "span_f1_partial",
              "span_f1_exact", "mean_dice", "pearson_r", "kendall_tau")
"""Pair-matrix metrics in the order offered (the first present is the default)."""

LABELS = {
    "alpha": "Krippendorff's α",
    "fleiss_kappa": "Fleiss' κ",
    "kappa": "Cohen's κ (mean over pairs)",
    "detection_alpha": "Detection α (found the same objects)",
    "classification_alpha": "Classification α (gave the same label)",
    "sigma": "Localization σ (vs. between-item chance)",
    "ks": "KS, within vs. between items",
    "percent_agreement": "Percent agreement",
    "mean_agreement": "Mean agreement (item score)",
    "mean_object_count_diff": "Mean object-count difference",
    "detection_f1": "Detection F1",
    "mean_matched_iou": "Mean IoU of matched objects",
    "mean_jaccard": "Mean Jaccard",
    "mean_within_distance": "Mean within-item distance",
    "mean_between_distance": "Mean between-item distance",
    "mean_sensitivity": "Mean sensitivity (STAPLE)",
    "mean_specificity": "Mean specificity (STAPLE)",
    "alpha_interval": "Krippendorff's α (interval)",
    "alpha_ordinal": "Krippendorff's α (ordinal)",
    "alpha_nominal": "Krippendorff's α (nominal)",
    "weighted_kappa_linear": "Weighted κ (linear, mean over pairs)",
    "weighted_kappa_quadratic": "Weighted κ (quadratic, mean over pairs)",
    "cohen_kappa": "Cohen's κ (mean over pairs)",
    "pairwise_cohen_kappa": "Cohen's κ (Potato's second name)",
    "pearson_r": "Pearson r (mean over pairs)",
    "mae": "Mean absolute error (mean over pairs)",
    "rmse": "Root mean squared error (mean over pairs)",
    "icc_2_k": "ICC(2,k) (items every annotator rated)",
    "spearman_rho": "Spearman ρ (mean over pairs)",
    "kendall_tau": "Kendall τ (mean over pairs and items)",
    "spearman_footrule": "Spearman footrule (distance; 0 identical, 1 reversed)",
    "token_level_kappa": "Token κ (character BIO tags)",
    "char_alpha": "Character α (nominal, not unitizing α)",
    "gamma_mathet": "Mathet's γ (best alignment vs. chance)",
    "span_f1_exact": "Span F1, exact (mean over pairs and items)",
    "span_f1_partial": "Span F1, partial (half overlap, one to one)",
}

HEADLINES = ("alpha", "detection_alpha", "mean_agreement", "mean_sensitivity",
             "alpha_interval", "kendall_tau", "gamma_mathet", "mean_dice",
             "detection.alpha", "outcome.outcome_alpha")
"""The headline of a scheme: the first of these its report has."""

SHORT = {"alpha": "α", "detection_alpha": "detection α", "mean_agreement": "agreement",
         "mean_sensitivity": "sensitivity", "alpha_interval": "interval α",
         "kendall_tau": "τ", "gamma_mathet": "γ", "detection.alpha": "detection α",
         "outcome.outcome_alpha": "outcome α", "mean_dice": "Dice"}
"""The headline's name where there is room for one word (the project tree)."""

SMALL_SAMPLE = 20
"""Below this many scored items a coefficient and its interval carry a warning."""

WARN = "⚠"


def headline_key(metrics: Mapping[str, object]) -> str | None:
    """The scheme's one headline metric (see the module docstring), or None."""
    return next((key for key in HEADLINES if key in metrics), None)


def small_sample(result: SchemeResult) -> bool:
    """Whether the scheme was scored on too few items to trust its coefficients."""
    return result.not_computed is None and 0 < result.n_items < SMALL_SAMPLE


def small_sample_text(result: SchemeResult) -> str:
    """The card's sentence for a small sample ('' when the sample is not small)."""
    if not small_sample(result):
        return ""
    n = result.n_items
    return (f"{WARN} Only {n} item{'s' if n != 1 else ''} scored: with fewer than "
            f"{SMALL_SAMPLE}, α, κ and their intervals can look certain and are not; "
            "read them as a pilot's, not a study's.")


def short_headline(result: SchemeResult) -> str:
    """The headline in a few characters, e.g. ``detection α 0.04`` (``—`` undefined)."""
    key = headline_key(result.metrics)
    if key is None:
        return ""
    value = result.metrics[key]
    shown = "—" if value is None else f"{float(value):.2f}"
    warn = f" {WARN}" if small_sample(result) and value is not None else ""
    return f"{SHORT[key]} {shown}{warn}"


def metric_label(key: str, kind: str | None = None, *, pair: bool = False) -> str:
    """A reader's name for a metric key; ``pair``: for one annotator pair's number, where
    the kind names it otherwise (a pair's Pearson r is no mean over pairs)."""
    special = (look_of(kind).pair_labels.get(key) if pair else None) or look_of(
        kind).labels.get(key)
    if special:
        return special
    if key.startswith("dice_by_label."):  # a volume scheme's labels (Potato's names)
        return f"Dice, {key.removeprefix('dice_by_label.')}"
    return LABELS.get(key, key.replace("_", " "))


def fmt(key: str, value: float | int) -> str:
    """A metric value as printed (three decimals; two for the count difference)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return f"{value:.2f}" if key == "mean_object_count_diff" else f"{value:.3f}"


def headline_tip(result: SchemeResult) -> str:
    """The headline in full words, for a tooltip where the short form may be cut."""
    key = headline_key(result.metrics)
    if key is None:
        return ""
    value = result.metrics[key]
    shown = "undefined" if value is None else fmt(key, value)
    return f"{metric_label(key, result.kind)}: {shown} over {result.n_items} items"


def interval_text(interval: Sequence[float] | None, key: str, level: float | None,
                  *, small: bool = False) -> str:
    """An interval in words; a degenerate one says so; a small sample's is flagged."""
    if not interval:
        return ""
    lo, hi = interval
    share = f"{level * 100:.0f}% " if level else ""
    warn = f"{WARN} " if small else ""
    if fmt(key, lo) == fmt(key, hi):
        return f"{warn}{share}CI degenerate (every resample {fmt(key, lo)})"
    return f"{warn}{share}CI {fmt(key, lo)} – {fmt(key, hi)}"


def value_text(result: SchemeResult, key: str) -> str:
    """A metric's value in HTML: bold, 'undefined' in words, ⚠ on a small sample."""
    value = result.metrics.get(key)
    if value is None:
        return "<i style='color:#8A4B00'>undefined</i>"
    warn = (f" <span style='color:#8A4B00'>{WARN}</span>"
            if small_sample(result) and key in CORRECTED else "")
    return f"<b>{fmt(key, value)}</b>{warn}"


def headline(result: SchemeResult) -> str:
    """The card's headline number in HTML (or the reason it has none)."""
    key = headline_key(result.metrics)
    if key is None:
        return ""
    label = escape(metric_label(key, result.kind))
    value = result.metrics[key]
    if value is None:
        return f"{label}: <i style='color:#8A4B00'>undefined</i>"
    warn = (f" <span style='color:#8A4B00'>{WARN} {result.n_items} items</span>"
            if small_sample(result) else "")
    return f"{label}: <b style='font-size:large'>{fmt(key, value)}</b>{warn}"


def coverage_text(result: SchemeResult) -> str:
    """Items answered, scored and skipped, and the pairs, in one line."""
    c = result.coverage
    answered = c.get("n_items_answered", result.n_items)
    parts = [f"<b>{result.n_items:,}</b> of {answered:,} answered items scored"]
    if c.get("n_items_one_annotator"):
        parts.append(f"{c['n_items_one_annotator']:,} with one annotator")
    if c.get("n_items_over_budget"):
        parts.append(f"{c['n_items_over_budget']:,} over the comparison budget")
    if c.get("n_items_unanswered"):
        parts.append(f"{c['n_items_unanswered']:,} not answered")
    if c.get("n_items_below_cap"):
        parts.append(f"{c['n_items_below_cap']:,} below their annotator cap")
    n_units = result.metrics.get("n_units")
    if isinstance(n_units, int):
        parts.append(f"{n_units:,} step units")
    parts.append(f"{result.n_pairs:,} pairs")
    return "Coverage: " + " · ".join(parts)


def card_notes(result: SchemeResult) -> list[str]:
    """A card's notes, then Potato 2.12.1's own numbers where the scheme has them
    (``potato_iaa``: the reports' line, e.g. the null Potato prints for spans)."""
    line = potato_line(result)
    return [*result.notes, line] if line else list(result.notes)


def reference_text(result: SchemeResult) -> str:
    """For a trace: its step-level α beside the α of the simpler categorical scheme."""
    ref = result.extra.get("categorical_reference")
    if result.kind != "trace":
        return ""
    own = result.metrics.get("alpha")
    own_text = "undefined" if own is None else fmt("alpha", own)
    if not ref:
        return (f"Step-level α {own_text}; the study has no simpler categorical scheme "
                "answered by the same annotators to read it against.")
    other = ref.get("alpha")
    other_text = (f"undefined ({escape(str(ref.get('undefined', '')))})" if other is None
                  else f"<b>{fmt('alpha', other)}</b>")
    return (f"Step-level α <b>{own_text}</b> beside α {other_text} on "
            f"<b>{escape(str(ref.get('scheme')))}</b> ({escape(str(ref.get('kind')))}, "
            f"{ref.get('n_items')} items, the same annotators): both are chance-corrected, "
            "so they read on one scale.")
