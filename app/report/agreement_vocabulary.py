"""The words and the look of the agreement report: metric meanings, headings, the
stylesheet, and which metric heads a scheme or its pair matrix.

Kept apart from :mod:`app.report.agreement_html` (which assembles the page) so that the
wording can be read and changed in one place; the CSV takes its pair sentences from
here too.

The stylesheet is plain CSS that a browser renders fully and Qt's rich-text engine
(``QTextDocument``, used for previews) renders in part: colours, fonts, table cell
padding and backgrounds work in both; block borders and ``max-width`` only in a
browser. Colours are muted greys and one blue, readable in print.
"""

from __future__ import annotations

HEADLINE = {
    "nominal": "alpha",
    "ordinal": "alpha",
    "multilabel": "alpha",
    "trace": "alpha",
    "cuboids": "mean_agreement",
    "segments": "mean_agreement",
    "tiers": "mean_agreement",
    "regions": "mean_agreement",
    "masks": "mean_sensitivity",
}
MATRIX = {
    "nominal": "kappa",
    "ordinal": "kappa",
    "trace": "kappa",
    "multilabel": "alpha",
    "cuboids": "mean_agreement",
    "segments": "mean_agreement",
    "tiers": "mean_agreement",
    "regions": "mean_agreement",
}
MEANING = {
    "alpha": "Krippendorff's α over all units",
    "fleiss_kappa": "Fleiss' κ (varying number of raters per unit)",
    "kappa": "mean of Cohen's κ over annotator pairs",
    "percent_agreement": "share of agreeing annotator pairs, pooled over units",
    "mean_jaccard": "mean Jaccard similarity of the label sets",
    "mean_agreement": "mean item score: matched IoU over matched and unmatched objects",
    "mean_object_count_diff": "mean difference in object counts per pair and item (0 is best)",
    "detection_f1": "2 · matched / (objects of A + objects of B)",
    "mean_matched_iou": "mean IoU of matched objects",
    "detection_alpha": "detection: did both find the object (α over clusters)",
    "classification_alpha": "classification: did they give it the same label",
    "sigma": "localization: 1 − within-item / between-item distance",
    "ks": "localization: Kolmogorov–Smirnov, within- vs between-item distances",
    "mean_within_distance": "mean (1 − GIoU) / 2 of matched pairs on the same item",
    "mean_between_distance": "mean (1 − GIoU) / 2 of objects from different items",
    "mean_sensitivity": "STAPLE, mean over annotators (low: under-segments)",
    "mean_specificity": "STAPLE, mean over annotators (low: over-segments)",
}
NAME = {
    "alpha": "Krippendorff's α",
    "fleiss_kappa": "Fleiss' κ",
    "kappa": "Cohen's κ (mean over pairs)",
    "percent_agreement": "percent agreement",
    "mean_jaccard": "mean Jaccard similarity",
    "mean_agreement": "mean agreement (matched IoU)",
    "mean_object_count_diff": "mean object-count difference",
    "detection_f1": "detection F1",
    "mean_matched_iou": "mean IoU of matched objects",
    "detection_alpha": "detection α",
    "classification_alpha": "classification α",
    "sigma": "localization σ",
    "ks": "localization Kolmogorov–Smirnov",
    "mean_within_distance": "mean within-item distance",
    "mean_between_distance": "mean between-item distance",
    "mean_sensitivity": "mean sensitivity (STAPLE)",
    "mean_specificity": "mean specificity (STAPLE)",
    "n_units": "units compared",
}
"""A metric's short human name, for tables that cannot hold :data:`MEANING`'s sentence
(the certificate); the JSON keys stay the identifiers."""


def metric_name(key: str) -> str:
    """The human name of a metric key; an unknown key with its underscores as spaces."""
    return NAME.get(key, key.replace("_", " "))


COVERAGE = {
    "n_items_answered": "items answered by anyone",
    "n_items_scored": "items scored (two or more annotators)",
    "n_items_one_annotator": "items with one annotator only (not scored)",
    "n_items_unanswered": "items nobody answered",
    "n_items_below_cap": "scored items below their num_annotators_per_item cap",
    "n_items_over_budget": "items over the comparison budget (skipped whole)",
    "n_items_mask_size_mismatch": "items with masks of different sizes (skipped)",
}
CORRECTED_HEAD = (
    "Chance-corrected",
    "agreement beyond what chance alone would give: 0 is "
    "chance level, 1 is perfect, below 0 is worse than chance.",
)
UNCORRECTED_HEAD = (
    "Not chance-corrected",
    "raw overlap and shares: they include the "
    "agreement that chance alone would produce, so read them beside the "
    "chance-corrected numbers.",
)
STAPLE_HEAD = (
    "STAPLE estimates",
    "whose boundary to trust: per-annotator sensitivity and "
    "specificity, not agreement coefficients.",
)

STYLE = """
body { font-family: "Segoe UI", "Helvetica Neue", Arial, sans-serif; color: #24303a;
  background: #ffffff; max-width: 70em; margin: 1.5em auto; padding: 0 1.5em;
  line-height: 1.45; font-size: 15px; }
h1 { font-size: 26px; font-weight: 600; color: #1b2a35; margin: 0.2em 0 0.1em; }
h2 { font-size: 20px; font-weight: 600; color: #1b2a35; margin: 1.8em 0 0.3em;
  padding-bottom: 0.2em; border-bottom: 2px solid #d8dee3; }
h3 { font-size: 13px; font-weight: 600; color: #56656f; margin: 1.2em 0 0.3em;
  text-transform: uppercase; letter-spacing: 0.05em; }
p { margin: 0.3em 0 0.6em; }
.meta { color: #66737c; }
.kind { color: #56656f; font-weight: normal; font-size: 15px; }
.hint { color: #66737c; font-size: 13px; }
table { border-collapse: collapse; margin: 0.3em 0 0.9em; }
th, td { padding: 5px 12px; text-align: left; vertical-align: top;
  border-bottom: 1px solid #e4e8eb; }
th { background-color: #f2f4f6; color: #36444e; font-weight: 600; font-size: 13px; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.undefined, span.undefined { color: #8c5a14; font-style: italic; }
table.matrix td { text-align: center; min-width: 5.5em; border: 1px solid #ffffff; }
table.matrix th { text-align: center; }
td.self { background-color: #f7f8f9; color: #a3adb4; }
ul { margin: 0.2em 0 0.8em; padding-left: 1.4em; }
li { margin: 0.1em 0; }
.legend td { font-size: 12px; min-width: 3.5em; text-align: center; border: 1px solid #ffffff; }
p.footer { margin-top: 3em; color: #7a868e; font-size: 13px; border-top: 1px solid #e4e8eb;
  padding-top: 0.6em; }
"""

PAIR_UNDEFINED = {
    "alpha": "the two annotators gave one and the same label on every unit they share: "
    "α has no variation to correct against",
    "kappa": "the two annotators gave one and the same label on every unit they share: "
    "κ has no variation to correct against",
    "mean_matched_iou": "no object of this pair was matched, so there is no matched IoU",
}
"""Why a pair's metric is ``None`` (the report stores no sentence per pair); a
scheme-level reason for the same metric, when there is one, wins."""
PAIR_UNDEFINED_OTHER = "undefined for this pair"
