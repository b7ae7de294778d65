"""The agreement report as one standalone HTML page: inline CSS, no script, no fetch.

The page is for reading and handing on (a reviewer opens it offline, or attaches it to a
ticket), so it carries everything itself: one file, a stylesheet in ``<style>``, no
JavaScript, no image, font or link to anything outside, and a Content-Security-Policy
that forbids every fetch (see :mod:`app.report.html_escape`). It states no generation
date, so the same project gives the same bytes.

Every string from the user's files (scheme names, annotator names, item ids, notes,
the project path, reader messages) goes through :func:`app.report.html_escape.text`;
anchors are ``scheme-1``, ``scheme-2``... by position, never built from a name.

Layout, per scheme: the headline numbers with their bootstrap intervals in two tables
headed "Chance-corrected" and "Not chance-corrected" (STAPLE's sensitivity and
specificity under their own heading: they are estimates per annotator, not agreement
coefficients); an undefined number shows the word "undefined" and its reason as a
sentence, never NaN or a bare dash; the annotator-pair matrix of the kind's main pair
metric (Cohen κ for categorical kinds and traces, α for multilabel, mean agreement for
sets of objects) as a coloured table, one muted blue scale from 0 to 1 with values
below 0 in a muted rose, then every pair number in a plain table; coverage as
sentences; method details (threshold, bootstrap, chance baseline); notes. When an
annotator's name holds ``|`` the pair keys cannot be split safely, so the matrix is
left out and the pair table alone is shown.
"""

from __future__ import annotations

from typing import Any

from app.core.agreement.result import AgreementReport, SchemeResult
from app.report.agreement_text import CHANCE_CORRECTED, LABELS
from app.report.agreement_vocabulary import (
    CORRECTED_HEAD,
    COVERAGE,
    HEADLINE,
    MATRIX,
    MEANING,
    PAIR_UNDEFINED,
    PAIR_UNDEFINED_OTHER,
    STAPLE_HEAD,
    STYLE,
    UNCORRECTED_HEAD,
    partition_html,
)
from app.report.html_escape import csp_meta, text
from app.report.kinds.potato_values import potato_line
from app.report.kinds.words import words_for

_LOW, _HIGH, _NEGATIVE = (246, 248, 249), (47, 104, 143), "#ecd2cd"


def render_html(report: AgreementReport) -> str:
    title = f"Agreement report — {report.project}"
    parts = ['<!DOCTYPE html>', '<html lang="en">', "<head>", '<meta charset="utf-8">',
             csp_meta(), '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{text(title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
             "<h1>Agreement report</h1>",
             f'<p class="meta">Project <b>{text(report.project)}</b> · {report.n_items} items'
             f" · {report.n_annotators} annotators · Accord {text(report.version)}</p>"]
    parts.extend(_summary(report))
    parts.extend(partition_html(report))  # machine raters: who, and the partitions
    for index, result in enumerate(report.schemes.values(), start=1):
        parts.extend(_scheme(result, index))
    if report.notes:
        parts.append("<h2>Notes on the project</h2>")
        parts.append(_list(report.notes))
    parts.append('<p class="footer">Written by Accord from the same result as <code>accord '
                 "agreement --json</code>. Intervals are percentile bootstrap intervals over "
                 "items; each scheme states its resamples, level and seed.</p>")
    parts.extend(["</body>", "</html>", ""])
    return "\n".join(parts)


def _summary(report: AgreementReport) -> list[str]:
    if not report.schemes:
        return ['<p class="undefined">This project has no annotation scheme to report.</p>']
    spans = any(r.intervals for r in report.schemes.values())
    rows = ["<table>", "<tr><th>scheme</th><th>kind</th><th>headline</th><th>value</th>"
            + ("<th>95% interval</th>" if spans else "")
            + "<th>items scored</th><th>pairs</th></tr>"]
    for index, result in enumerate(report.schemes.values(), start=1):
        link = f'<a href="#scheme-{index}">{text(result.name)}</a>'
        if result.not_computed is not None or not result.kind:
            rows.append(f"<tr><td>{link}</td><td>{text(result.kind or '—')}</td>"
                        f'<td colspan="{5 if spans else 4}" class="undefined">not computed'
                        "</td></tr>")
            continue
        metric = HEADLINE.get(result.kind, next(iter(result.metrics), ""))
        value = result.metrics.get(metric)
        rows.append(f"<tr><td>{link}</td><td>{text(result.kind)}</td>"
                    f"<td>{text(_label(result, metric))} {_tag(metric)}</td>"
                    f"{_value_cell(value)}"
                    + (f'<td class="num">{_interval(result.intervals.get(metric))}</td>'
                       if spans else "") +
                    f'<td class="num">{result.n_items}</td><td class="num">{result.n_pairs}'
                    "</td></tr>")
    rows.append("</table>")
    return ["<h2>Summary</h2>", *rows]


def _scheme(result: SchemeResult, index: int) -> list[str]:
    out = [f'<h2 id="scheme-{index}">{text(result.name)} '
           f'<span class="kind">· {text(result.kind or "no measure")}</span></h2>',
           f'<p class="meta">annotation type {text(result.annotation_type)}</p>']
    if result.not_computed is not None:
        out.append(f'<p class="undefined">{text(_sentence(result.not_computed))}</p>')
        out.extend(_notes(result))
        return out
    groups: list[tuple[tuple[str, str], list[str]]] = [
        (CORRECTED_HEAD, [m for m in result.metrics if m in CHANCE_CORRECTED]),
        (UNCORRECTED_HEAD, [m for m in result.metrics
                            if (m in MEANING or m in words_for(result.kind).meanings)
                            and m not in CHANCE_CORRECTED and not m.startswith("mean_s")]),
        (STAPLE_HEAD, [m for m in result.metrics if m.startswith(("mean_sens", "mean_spec"))]),
    ]
    for (head, hint), metrics in groups:
        if metrics:
            out.append(f"<h3>{head}</h3>")
            out.append(f'<p class="hint">{hint}</p>')
            out.extend(_metric_table(result, metrics))
    bootstrap = result.extra.get("bootstrap")
    if isinstance(bootstrap, dict) and result.intervals:
        out.append(f'<p class="hint">Intervals: {float(bootstrap["level"]):.0%} percentile '
                   f'bootstrap over {text(bootstrap["over"])}, {int(bootstrap["resamples"]):,}'
                   f' resamples, seed {int(bootstrap["seed"])}.</p>')
    potato = potato_line(result)
    if potato is not None:
        out.append(f'<p class="potato">{text(potato)}</p>')
    reference = result.extra.get("categorical_reference")
    if isinstance(reference, dict):
        out.append(f'<p>Beside it: α on the categorical scheme <b>{text(reference["scheme"])}'
                   f"</b> by the same annotators is {_plain(reference.get('alpha'))} "
                   f"({int(reference['n_items'])} items); both are on the same scale.</p>")
    out.extend(_annotators(result))
    out.extend(_pairs(result))
    out.extend(_coverage(result))
    out.extend(_method(result))
    out.extend(_notes(result))
    return out


def _metric_table(result: SchemeResult, metrics: list[str]) -> list[str]:
    spans = any(m in result.intervals for m in metrics)
    rows = ["<table>", "<tr><th>metric</th><th>value</th>"
            + ("<th>95% interval</th>" if spans else "") + "<th>what it measures</th></tr>"]
    for metric in metrics:
        value = result.metrics[metric]
        meaning = words_for(result.kind).meanings.get(metric) or text(MEANING.get(metric, ""))
        if value is None:
            reason = result.undefined.get(metric, "no value was computed")
            meaning = (f'<span class="undefined">Undefined: {text(_sentence(reason))}</span>'
                       f"<br>{meaning}")
        span = (f'<td class="num">{_interval(result.intervals.get(metric))}</td>' if spans
                else "")
        rows.append(f"<tr><td>{text(_label(result, metric))}</td>{_value_cell(value)}{span}"
                    f"<td>{meaning}</td></tr>")
    rows.append("</table>")
    return rows


def _annotators(result: SchemeResult) -> list[str]:
    annotators = result.extra.get("annotators")
    if not isinstance(annotators, dict) or not annotators:
        return []
    rows = ["<h3>Per annotator</h3>", "<table>", "<tr><th>annotator</th><th>sensitivity</th>"
            "<th>specificity</th><th>item/label runs</th></tr>"]
    for name, values in annotators.items():
        rows.append(f"<tr><td>{text(name)}</td>{_value_cell(values.get('sensitivity'))}"
                    f"{_value_cell(values.get('specificity'))}"
                    f'<td class="num">{int(values.get("n_runs", 0))}</td></tr>')
    rows.append("</table>")
    if any(v.get(k) is None for v in annotators.values() for k in ("sensitivity",
                                                                    "specificity")):
        rows.append('<p class="hint">Undefined: no run of that annotator had foreground '
                    "(for sensitivity) or background (for specificity) to measure it on.</p>")
    return rows


def _pairs(result: SchemeResult) -> list[str]:
    if not result.pairs:
        return []
    out: list[str] = []
    metric = MATRIX.get(result.kind or "", "")
    names = _annotator_names(result.pairs)
    if names is not None and metric:
        out.extend(_matrix(result, metric, names))
    columns = [m for m in next(iter(result.pairs.values())) if not m.startswith("n_")]
    size = next((m for m in next(iter(result.pairs.values())) if m.startswith("n_")), None)
    out.append("<h3>Every annotator pair</h3>")
    out.append("<table><tr><th>pair</th>" + "".join(
        f"<th>{text(_label(result, m, pair=True))}</th>" for m in columns)
        + (f"<th>{'units' if size == 'n_units' else 'items'}</th>" if size else "") + "</tr>")
    undefined: dict[str, str] = {}
    for key, pair in result.pairs.items():
        cells = []
        for m in columns:
            cells.append(_value_cell(pair.get(m)))
            if pair.get(m) is None:  # numbers, rankings: the pair's own sentence first
                undefined[m] = (result.extra.get("pair_undefined") or {}).get(key, {}).get(
                    m) or result.undefined.get(m) or PAIR_UNDEFINED.get(m, PAIR_UNDEFINED_OTHER)
        shown = " – ".join(text(n) for n in key.split("|")) if names else text(key)
        rows = f'<td class="num">{int(pair[size] or 0)}</td>' if size else ""
        out.append(f"<tr><td>{shown}</td>{''.join(cells)}{rows}</tr>")
    out.append("</table>")
    for m, reason in undefined.items():
        out.append(f'<p class="hint"><span class="undefined">{text(_label(result, m, pair=True))} '
                   f"undefined</span> for a pair: {text(_sentence(reason))}</p>")
    return out


def _matrix(result: SchemeResult, metric: str, names: list[str]) -> list[str]:
    label = _label(result, metric, pair=True)
    out = [f"<h3>Annotator pairs — {text(label)}</h3>", '<table class="matrix">',
           "<tr><th></th>" + "".join(f"<th>{text(n)}</th>" for n in names) + "</tr>"]
    for a in names:
        cells = [f"<th>{text(a)}</th>"]
        for b in names:
            if a == b:
                cells.append('<td class="self">·</td>')
                continue
            pair = result.pairs.get("|".join(sorted((a, b))))
            value = None if pair is None else pair.get(metric)
            if pair is None:
                cells.append('<td class="self">no shared items</td>')
            elif value is None:
                cells.append('<td class="undefined">undefined</td>')
            else:
                cells.append(_coloured(float(value)))
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    legend = [_coloured(v, f"{v:g}") for v in (0.0, 0.25, 0.5, 0.75, 1.0)]
    out.append('<table class="legend"><tr><td>scale</td>' + "".join(legend)
               + f'<td style="background-color: {_NEGATIVE}">below 0</td></tr></table>')
    return out


def _coloured(value: float, shown: str | None = None) -> str:
    if value < 0:
        return (f'<td style="background-color: {_NEGATIVE}; color: #5a2a22">'
                f"{shown or _plain(value)}</td>")
    t = min(value, 1.0)
    rgb = tuple(round(lo + (hi - lo) * t) for lo, hi in zip(_LOW, _HIGH, strict=True))
    colour = "#ffffff" if t > 0.55 else "#24303a"
    return (f'<td style="background-color: #{rgb[0]:02x}{rgb[1]:02x}{rgb[2]:02x}; '
            f'color: {colour}">{shown or _plain(value)}</td>')


def _coverage(result: SchemeResult) -> list[str]:
    cov = result.coverage
    first = (f"{cov.get('n_items_scored', result.n_items)} items scored (two or more "
             "annotators)")
    if "n_items_answered" in cov:
        first += (f" of {cov['n_items_answered']} answered; "
                  f"{cov.get('n_items_one_annotator', 0)} with one annotator only, "
                  f"{cov.get('n_items_unanswered', 0)} answered by nobody")
    lines = [first + f"; {result.n_items_skipped} skipped in all.",
             f"{result.n_pairs} annotator pairs compared"
             + (f", {result.extra['n_empty_pairs']} of them with two empty answers (score 1)."
                if "n_empty_pairs" in result.extra else ".")]
    n_units = result.extra.get("n_units")
    if isinstance(n_units, int):
        lines.append(f"{n_units} step units with two or more labels.")
    told = {"n_items_scored", "n_items_answered", "n_items_one_annotator",
            "n_items_unanswered"}
    lines.extend(f"{text(COVERAGE.get(k, k.replace('_', ' ')))}: {int(v)}."
                 for k, v in cov.items() if k not in told and v)
    return ["<h3>Coverage</h3>", _list(lines, escape=False)]


def _method(result: SchemeResult) -> list[str]:
    extra, lines = result.extra, []
    if "threshold" in extra:
        lines.append(f"matching threshold IoU ≥ {_plain(extra['threshold'])}")
    if "comparisons" in extra:
        lines.append(f"{int(extra['comparisons']):,} object comparisons")
    baseline = extra.get("chance_baseline")
    if isinstance(baseline, dict):
        lines.append(f"chance baseline: {int(baseline['n_pairs']):,} between-item pairs"
                     + (" (all of them)" if baseline.get("all_between_item_pairs") else
                        f", drawn with seed {int(baseline['seed'])}"))
    if "ks_pvalue" in extra:
        lines.append(f"KS p-value {float(extra['ks_pvalue']):.3g}")
    if "n_clusters" in extra:
        lines.append(f"{int(extra['n_clusters'])} detection clusters")
    pairs = extra.get("kappa_pairs")
    if isinstance(pairs, dict):
        defined = int(pairs["defined"])
        lines.append(f"κ averaged over {defined} annotator pair{'' if defined == 1 else 's'}, "
                     f"{int(pairs['left_out'])} left out as undefined")
    truth = extra.get("truth")
    if isinstance(truth, dict):
        lines.append(f"truth annotator {text(truth['annotator'])}: mean Dice of STAPLE "
                     f"{_plain(truth.get('mean_dice_staple'))}, of majority vote "
                     f"{_plain(truth.get('mean_dice_majority'))}")
    for carrier in extra.get("disagreement_items", []):
        lines.append(f"item {text(carrier['item'])} carries {float(carrier['share']):.0%} "
                     "of the within-item distance")
    for message in extra.get("rejected", []):
        lines.append(f"answer left out: {text(message)}")
    return ["<h3>Method and details</h3>", _list(lines, escape=False)] if lines else []


def _notes(result: SchemeResult) -> list[str]:
    return ["<h3>Notes</h3>", _list(result.notes)] if result.notes else []


def _annotator_names(pairs: dict[str, Any]) -> list[str] | None:
    names: set[str] = set()
    for key in pairs:
        if key.count("|") != 1:
            return None
        names.update(key.split("|"))
    return sorted(names)


def _label(result: SchemeResult, metric: str, *, pair: bool = False) -> str:
    words = words_for(result.kind)
    special = (words.pair_labels if pair else words.labels).get(metric)
    if special:
        return special
    if metric == "kappa" and pair:
        return "Cohen κ"
    return LABELS.get(metric, metric.replace("_", " "))


def _tag(metric: str) -> str:
    if metric in CHANCE_CORRECTED:
        return '<span class="hint">(chance-corrected)</span>'
    if metric.startswith(("mean_sens", "mean_spec")):
        return '<span class="hint">(STAPLE estimate)</span>'
    return '<span class="hint">(not chance-corrected)</span>'


def _value_cell(value: float | int | None) -> str:
    if value is None:
        return '<td class="num undefined">undefined</td>'
    return f'<td class="num">{_plain(value)}</td>'


def _plain(value: object) -> str:
    if value is None:
        return '<span class="undefined">undefined</span>'
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return f"{float(value):.3f}".replace("-", "\u2212")
    return text(value)


def _interval(interval: list[float] | None) -> str:
    return f"{_plain(interval[0])} – {_plain(interval[1])}" if interval else ""


def _sentence(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        return reason
    return reason[0].upper() + reason[1:] + ("" if reason.endswith((".", "!", "?")) else ".")


def _list(lines: list[str], *, escape: bool = True) -> str:
    items = "".join(f"<li>{text(line) if escape else line}</li>" for line in lines)
    return f"<ul>{items}</ul>"
