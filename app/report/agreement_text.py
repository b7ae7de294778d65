"""The agreement report as a readable text table (``accord agreement`` without --json).

Every number comes from the same result object as the JSON; undefined values print
their reason instead of a number.
"""

from __future__ import annotations

from app.core.agreement.result import AgreementReport, SchemeResult

LABELS = {
    "alpha": "Krippendorff α",
    "fleiss_kappa": "Fleiss κ",
    "kappa": "Cohen κ (mean of pairs)",
    "percent_agreement": "percent agreement",
    "mean_jaccard": "mean Jaccard",
    "n_units": "step units",
}
CHANCE_CORRECTED = {"alpha", "fleiss_kappa", "kappa"}


def _number(value: float | int | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, int):
        return str(value)
    return f"{value:.3f}"


def render(report: AgreementReport) -> str:
    lines = [
        f"Accord {report.version} — agreement for {report.project}",
        f"{report.n_items} items, {report.n_annotators} annotators",
    ]
    for result in report.schemes.values():
        lines.append("")
        lines.extend(_scheme(result))
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
                   f"{result.n_items_skipped} items skipped"]
    width = max(len(v) for v in LABELS.values()) + 2
    if result.kind:
        kappa_level = "quadratic-weighted " if result.kind == "ordinal" else ""
        for name, value in result.metrics.items():
            label = LABELS.get(name, name)
            if name == "kappa" and kappa_level:
                label = "Cohen κ (quadratic, mean)"
            note = "chance-corrected" if name in CHANCE_CORRECTED else "not chance-corrected"
            if name == "n_units":
                note = ""
            shown = _number(value)
            lines.append(f"  {label:<{width}}{shown:>8}   {note}".rstrip())
    reference = result.extra.get("categorical_reference")
    if isinstance(reference, dict):
        lines.append(f"  {'beside: α on ' + str(reference['scheme']):<{width}}"
                     f"{_number(reference.get('alpha')):>8}   same annotators, "
                     f"{reference['n_items']} items")
    for name, reason in result.undefined.items():
        lines.append(f"  {LABELS.get(name, name)} undefined: {reason}")
    if result.pairs:
        lines.append("  pairs:")
        for key, pair in result.pairs.items():
            size = pair.get("n_units", pair.get("n_items"))
            lines.append(f"    {key:<24} κ {_number(pair.get('kappa')):>6}   "
                         f"α {_number(pair.get('alpha')):>6}   "
                         f"agree {_number(pair.get('percent_agreement')):>6}   n {size}")
    for note in result.notes:
        lines.append(f"  note: {note}")
    return lines
