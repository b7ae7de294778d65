"""Metric names and numbers in words, as the overview and the other views show them.

Pure text (no Qt), so the wording is one place: a metric key of the report
(``cli.md``) → a label a reader understands, a value → its printed form, and the
sentences for coverage and for the categorical reference beside a trace's α.

Choices (the spec is silent): three decimals for coefficients and shares, two for the
object-count difference (it is a count, not a share); a coefficient's interval is shown
as ``95% CI lo – hi`` with the report's stated level.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from app.core.agreement.result import SchemeResult

CORRECTED = ("alpha", "fleiss_kappa", "kappa", "detection_alpha", "classification_alpha",
             "sigma", "ks")
"""Metrics corrected for (or read against) chance agreement."""

UNCORRECTED = ("percent_agreement", "mean_agreement", "mean_object_count_diff",
               "detection_f1", "mean_matched_iou", "mean_jaccard", "mean_within_distance",
               "mean_between_distance", "mean_sensitivity", "mean_specificity")
"""Metrics that say nothing of agreement beyond chance."""

PAIR_ORDER = ("alpha", "kappa", "percent_agreement", "mean_agreement", "detection_f1",
              "mean_matched_iou", "mean_object_count_diff")
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
}

HEADLINES = ("alpha", "detection_alpha", "mean_agreement", "mean_sensitivity")


def metric_label(key: str, kind: str | None = None) -> str:
    """A reader's name for a metric key."""
    if key == "kappa" and kind == "ordinal":
        return "Weighted κ (quadratic, mean over pairs)"
    if key == "alpha" and kind == "trace":
        return "Step-level α"
    return LABELS.get(key, key.replace("_", " "))


def fmt(key: str, value: float | int) -> str:
    """A metric value as printed (three decimals; two for the count difference)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return f"{value:.2f}" if key == "mean_object_count_diff" else f"{value:.3f}"


def interval_text(interval: Sequence[float] | None, key: str, level: float | None) -> str:
    if not interval:
        return ""
    lo, hi = interval
    share = f"{level * 100:.0f}% " if level else ""
    return f"{share}CI {fmt(key, lo)} – {fmt(key, hi)}"


def headline(result: SchemeResult) -> str:
    """The card's headline number in HTML (or the reason it has none)."""
    for key in HEADLINES:
        if key in result.metrics:
            value = result.metrics[key]
            label = escape(metric_label(key, result.kind))
            if value is None:
                return f"{label}: <i style='color:#8A4B00'>undefined</i>"
            return f"{label}: <b style='font-size:large'>{fmt(key, value)}</b>"
    return ""


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
