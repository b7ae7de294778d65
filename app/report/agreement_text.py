"""The agreement report as a readable text table (``accord agreement`` without --json).

Every number comes from the same result object as the JSON; undefined values print
their reason instead of a number. With machine raters, the line under the title says
who they are and that the headline is people only, and a last table gives each
scheme's headline metric for people, machines and everyone
(:mod:`app.report.agreement_vocabulary`, its last part).
"""

from __future__ import annotations

from app.core.agreement.compare import Comparison
from app.core.agreement.result import AgreementReport, SchemeResult
from app.report.agreement_vocabulary import partition_text, raters_sentence
from app.report.kinds.potato_values import potato_line
from app.report.kinds.words import words_for

LABELS = {
    "mean_agreement": "mean agreement",
    "mean_object_count_diff": "mean count difference",
    "detection_f1": "detection F1",
    "mean_matched_iou": "mean matched IoU",
    "detection_alpha": "detection α",
    "classification_alpha": "classification α",
    "sigma": "localization σ",
    "ks": "localization KS",
    "mean_within_distance": "mean within distance",
    "mean_between_distance": "mean between distance",
    "mean_sensitivity": "mean sensitivity",
    "mean_specificity": "mean specificity",
    "alpha": "Krippendorff α",
    "fleiss_kappa": "Fleiss κ",
    "kappa": "Cohen κ (mean of pairs)",
    "percent_agreement": "percent agreement",
    "mean_jaccard": "mean Jaccard",
    "n_units": "step units",
    "token_level_kappa": "token κ",
    "span_f1_exact": "span F1 exact",
    "span_f1_partial": "span F1 partial",
    "char_alpha": "char α",
    "gamma_mathet": "Mathet γ",
}
# KS is a distance between the within- and between-item distributions, not a coefficient
# corrected for chance (σ is: 0 at chance); it is listed as not chance-corrected.
CHANCE_CORRECTED = {"alpha", "fleiss_kappa", "kappa", "detection_alpha",
                    "classification_alpha", "sigma",
                    # the rating kinds' Potato names (issue 37)
                    "alpha_interval", "alpha_ordinal", "alpha_nominal", "cohen_kappa",
                    "pairwise_cohen_kappa", "weighted_kappa_linear",
                    "weighted_kappa_quadratic",
                    # the span kind's (issue 37)
                    "token_level_kappa", "char_alpha", "gamma_mathet",
                    # grounding, episodes, rollouts (issue 38; captions' "alpha" above)
                    "detection.alpha", "outcome.outcome_alpha", "category.alpha",
                    "severity.alpha", "preference.alpha", "counterfactual.alpha",
                    "localization.sigma"}
NO_NOTE = {"n_units", "mean_sensitivity", "mean_specificity"}


def _number(value: float | int | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, int):
        return str(value)
    return f"{value:.3f}"


def _pair(pair: dict[str, float | int | None]) -> str:
    size = pair.get("n_units", pair.get("n_items"))
    if "mean_agreement" in pair:
        return (f"agreement {_number(pair['mean_agreement']):>6}   "
                f"count diff {_number(pair['mean_object_count_diff']):>6}   "
                f"F1 {_number(pair['detection_f1']):>6}   n {size}")
    if "mean_dice" in pair:
        return f"mean Dice {_number(pair['mean_dice']):>6}   n {size}"
    if "span_f1_partial" in pair:
        return (f"span F1 partial {_number(pair['span_f1_partial']):>6}   "
                f"exact {_number(pair.get('span_f1_exact')):>6}   n {size}")
    if "pearson_r" in pair:  # numbers: r, then the two distances (scale units)
        return (f"r {_number(pair['pearson_r']):>6}   MAE {_number(pair.get('mae')):>6}   "
                f"RMSE {_number(pair.get('rmse')):>6}   n {size}")
    if "kendall_tau" in pair:  # rankings: means over the pair's shared items
        return (f"τ {_number(pair['kendall_tau']):>6}   footrule "
                f"{_number(pair.get('spearman_footrule')):>6}   n {size}")
    return (f"κ {_number(pair.get('kappa')):>6}   α {_number(pair.get('alpha')):>6}   "
            f"agree {_number(pair.get('percent_agreement')):>6}   n {size}")


def render_comparison(comparison: Comparison) -> str:
    lines = [f"Accord {comparison.a.version} — pilot rounds compared",
             f"  A: {comparison.a.project}", f"  B: {comparison.b.project}"]
    for name, entry in comparison.schemes.items():
        lines.append("")
        lines.append(f"{name}  ({entry['kind']})")
        for side in ("a", "b"):
            values = entry[side]
            parts = []
            for metric, value in values.items():
                if metric in ("intervals", "n_pairs"):
                    continue
                interval = values["intervals"].get(metric)
                span = f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else ""
                parts.append(f"{LABELS.get(metric, metric)} {_number(value)}{span}")
            lines.append(f"  {side.upper()}: " + "   ".join(parts)
                         + f"   pairs {values['n_pairs']}")
        if "reading" in entry:
            lines.append(f"  {entry['reading']}")
    return "\n".join(lines) + "\n"


def render(report: AgreementReport) -> str:
    lines = [
        f"Accord {report.version} — agreement for {report.project}",
        f"{report.n_items} items, {report.n_annotators} annotators",
    ]
    raters = raters_sentence(report)
    if raters:
        lines.append(raters)
    for result in report.schemes.values():
        lines.append("")
        lines.extend(_scheme(result))
    partitions = partition_text(report)
    if partitions:
        lines.append("")
        lines.extend(partitions)
    if report.notes:
        lines.append("")
        lines.append("Notes on the project:")
        lines.extend(f"  - {n}" for n in report.notes)
    return "\n".join(lines) + "\n"


def _scheme(result: SchemeResult) -> list[str]:
    head = f"{result.name}  ({result.annotation_type} → {result.kind or 'no measure'})"
    if result.not_computed is not None:
        return [head, f"  {result.not_computed}"]
    lines = [head, f"  {result.n_items} items scored, {result.n_pairs} pairs, "
                   f"{result.n_items_skipped} items skipped"
                   + (f", threshold {result.extra['threshold']}" if "threshold" in result.extra
                      else "")]
    width = max(len(v) for v in LABELS.values()) + 2
    if result.kind:
        words = words_for(result.kind)
        for name, value in result.metrics.items():
            label = words.labels.get(name) or LABELS.get(name, name)
            note = "chance-corrected" if name in CHANCE_CORRECTED else "not chance-corrected"
            if name in NO_NOTE:
                note = ""
            interval = result.intervals.get(name)
            if interval is not None:
                note = f"[{interval[0]:.3f}, {interval[1]:.3f}]  {note}"
            shown = _number(value)
            lines.append(f"  {label:<{width}}{shown:>8}   {note}".rstrip())
    potato = potato_line(result)
    if potato is not None:
        lines.append(f"  {potato}")
    reference = result.extra.get("categorical_reference")
    if isinstance(reference, dict):
        lines.append(f"  {'beside: α on ' + str(reference['scheme']):<{width}}"
                     f"{_number(reference.get('alpha')):>8}   same annotators, "
                     f"{reference['n_items']} items")
    for name, reason in result.undefined.items():
        lines.append(f"  {LABELS.get(name, name)} undefined: {reason}")
    annotators = result.extra.get("annotators")
    if isinstance(annotators, dict):
        lines.append("  annotators:")
        for name, values in annotators.items():
            lines.append(f"    {name:<24} sensitivity {_number(values['sensitivity']):>6}   "
                         f"specificity {_number(values['specificity']):>6}")
    if result.pairs:
        lines.append("  pairs:")
        why = result.extra.get("pair_undefined") or {}  # numbers, rankings: per pair
        for key, pair in result.pairs.items():
            lines.append(f"    {key:<24} " + _pair(pair))
            for metric, reason in why.get(key, {}).items():
                lines.append(f"      {LABELS.get(metric, metric)} undefined: {reason}")
    for note in result.notes:
        lines.append(f"  note: {note}")
    return lines
