"""The certificate's agreement between people: page 1's table and the full section.

Two sources of people's labels meet here. The agreement report (``accord agreement``)
reads the annotation files and the blind labels of the people in Potato's labelling
engine (:mod:`app.core.formats.potato.engine.people`); the contracts read the
calibration panels, items several people labelled for the labeling engine
(``cert["panels"]``, built by :mod:`app.core.certificate.panels`). A scheme nobody
answered in the annotation files (a project older than Accord reading the engine's
people, or one whose engine labels were all given seeing the machine's) but with fifty
5-person panels a contract used is therefore described by its panels, with
Krippendorff's α on them, never as "nobody answered this scheme".

Metrics are named in words (:func:`~app.report.agreement_vocabulary.metric_name`);
an interval is printed where the agreement report computed one (the bootstrap over
items of set agreement), and the text promises no more than that.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.report.agreement_vocabulary import COVERAGE, HEADLINE, NAME, metric_name
from app.report.html_parts import e, interval, num, table

INTERVAL_NOTE = (
    "Intervals are 95% percentile bootstrap intervals over items, printed where "
    "the agreement report computes them (set agreement: boxes, segments, tiers, "
    "cuboids, regions); coded-unit coefficients (α, κ) are point values."
)


IDENTIFIER = re.compile(
    r"\b(" + "|".join(sorted((k for k in NAME if "_" in k), key=len, reverse=True)) + r")\b"
)


def humanise(text: object) -> str:
    """A note of the agreement report with its metric identifiers as human names
    ("mean_agreement" → "mean agreement (matched IoU)"), then escaped."""
    return e(IDENTIFIER.sub(lambda m: metric_name(m.group(1)), str(text)))


def _count(value: Any, one: str, many: str) -> str:
    return f"{num(value)} {one if value == 1 else many}"


def panels_sentence(panels: Mapping[str, Any]) -> str:
    """ "50 items, 5 people each (10 people, 250 labels)" and α on them, as HTML."""
    sizes = panels.get("sizes") or {}
    each = " and ".join(
        f"{_count(n, 'item', 'items')} with {e(k)} people" for k, n in sizes.items()
    )
    if len(sizes) == 1:
        (k,) = sizes
        each = f"{_count(panels.get('n_items'), 'item', 'items')}, {e(k)} people each"
    used = ", ".join(map(str, panels.get("contracts") or []))
    alpha = panels.get("alpha")
    coefficient = (
        f"Krippendorff's α ({e(panels.get('alpha_metric'))}) on these panels <b>{num(alpha)}</b>"
        if alpha is not None
        else f"Krippendorff's α on these panels is undefined: {e(panels.get('alpha_undefined'))}"
    )
    people = _count(panels.get("n_people"), "person", "people")
    return (
        f"Panels in the calibration labels: {each} ({people}, "
        f"{_count(panels.get('n_labels'), 'label', 'labels')}), read by the contracts on "
        f"this scheme ({e(used)}). {coefficient}."
    )


def _headline(s: Mapping[str, Any]) -> str:
    metrics = s.get("metrics") or {}
    key = HEADLINE.get(str(s.get("kind")), next(iter(metrics), ""))
    if key not in metrics:
        return e(s.get("not_computed") or "not computed")
    value = metrics[key]
    if value is None:
        return f"{e(metric_name(key))}: undefined"
    iv = (s.get("intervals") or {}).get(key)
    return f"{e(metric_name(key))} <b>{num(value)}</b>" + (f" {interval(iv)}" if iv else "")


def _answered(s: Mapping[str, Any]) -> bool:
    return bool((s.get("coverage") or {}).get("n_items_answered", s.get("n_items")))


def agreement_summary(cert: Mapping[str, Any]) -> str:
    """Page 1's agreement table: one row per scheme, its headline and its panels."""
    agreement = cert.get("agreement") or {}
    coverage = agreement.get("coverage") or {}
    panels: Mapping[str, Any] = cert.get("panels") or {}
    rows = []
    for name, s in (agreement.get("schemes") or {}).items():
        p = panels.get(name)
        files = (
            f"{_headline(s)} on {num(s.get('n_items'))} items"
            if _answered(s)
            else "nobody answered it"
        )
        panel = f"{num(p.get('n_items'))} panels; α {num(p.get('alpha'))}" if p else "—"
        rows.append([f"<b>{e(name)}</b>", files, panel])
    if not rows:
        return ""
    return (
        f"<p><b>Agreement between people</b> ({num(coverage.get('n_items'))} items, "
        f"{_count(coverage.get('n_annotators'), 'annotator', 'annotators')}, in the "
        "annotation files or the labelling engine; panels: items several people labelled "
        "for the contracts)</p>"
        + table(["Scheme", "Annotators", "Calibration panels"], rows, (24, 48, 28))
        + machine_raters(agreement)
    )


def _metrics(s: Mapping[str, Any]) -> str:
    intervals = s.get("intervals") or {}
    undefined = s.get("undefined") or {}
    metrics: Mapping[str, Any] = s.get("metrics") or {}
    reasons = {undefined.get(k, "") for k, v in metrics.items() if v is None}
    if metrics and all(v is None for v in metrics.values()) and len(reasons) == 1:
        return f"All undefined: {humanise(reasons.pop())}."
    lines = []
    for key, value in metrics.items():
        if value is None:
            lines.append(f"{e(metric_name(key))}: undefined ({humanise(undefined.get(key, ''))})")
        else:
            extra = f" {interval(intervals[key])}" if key in intervals else ""
            lines.append(f"{e(metric_name(key))} <b>{num(value)}</b>{extra}")
    return "<br/>".join(lines)


def _coverage(cov: Mapping[str, Any]) -> str:
    return "<br/>".join(
        f"{e(COVERAGE.get(k, k.replace('_', ' ')))}: {num(v)}" for k, v in cov.items() if v
    )


def agreement_section(cert: Mapping[str, Any]) -> str:
    agreement = cert.get("agreement") or {}
    coverage = agreement.get("coverage") or {}
    panels: Mapping[str, Any] = cert.get("panels") or {}
    out = [
        '<h2 style="font-size:14pt; margin-top:18px;">Agreement between people</h2>',
        f"<p>{num(coverage.get('n_items'))} items, "
        f"{_count(coverage.get('n_annotators'), 'annotator', 'annotators')} in the "
        "annotation files or the labelling engine. A coefficient that is undefined is given "
        f"with its reason, never as a number. {INTERVAL_NOTE}</p>",
        machine_raters(agreement, partitions=True),
    ]
    rows = []
    for name, s in (agreement.get("schemes") or {}).items():
        scheme = (
            f"<b>{e(name)}</b><br/><span style='color:#57606a;'>"
            f"{e(s.get('kind') or s.get('annotation_type'))}</span>"
        )
        if s.get("not_computed"):
            body = e(s["not_computed"])
        else:
            body = _metrics(s)
            if s.get("notes"):
                body += "<br/><i>" + "<br/>".join(humanise(n) for n in s["notes"]) + "</i>"
        if name in panels:
            body += ("<br/>" if body else "") + panels_sentence(panels[name])
            if not _answered(s):
                body += (
                    " The coefficients above found nobody's answers to this scheme; "
                    "the contracts read these panels."
                )
        rows.append(
            [
                scheme,
                f"{num(s.get('n_items'))} scored<br/>"
                f"<span style='font-size:7.5pt;'>{_coverage(s.get('coverage') or {})}"
                "</span>",
                body,
            ]
        )
    out.append(table(["Scheme", "Items", "Agreement"], rows, (24, 24, 52)))
    return "".join(out)


PARTITION_WORDS = (("machine_machine", "among the machine raters"),
                   ("pooled", "over everyone together"))


def machine_raters(agreement: Mapping[str, Any], *, partitions: bool = False) -> str:
    """With declared machine raters: who they are and that the coefficients are over
    people only; with ``partitions``, each scheme's headline among the machines and over
    everyone (the agreement report's ``partitions``). '' without machine raters."""
    block = agreement.get("annotators") or {}
    if not block.get("n_machine"):
        return ""
    machines = "; ".join(str(v) for v in (block.get("machine_detail") or {}).values())
    out = (f"<p>{_count(block.get('n_human'), 'person', 'people')} and "
           f"{_count(block.get('n_machine'), 'machine rater', 'machine raters')} "
           f"({e(machines)}): every coefficient here is over people only.")
    parts = agreement.get("partitions") or {}
    if partitions and parts:
        for key, words in PARTITION_WORDS:
            schemes = (parts.get(key) or {}).get("schemes") or {}
            shown = "; ".join(f"{e(name)}: {_headline(s)}" for name, s in schemes.items()
                              if not s.get("not_computed"))
            if shown:
                out += f" {words[0].upper()}{words[1:]}: {shown}."
    return out + "</p>"
