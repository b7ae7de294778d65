"""The certificate as HTML for Qt's rich-text engine, built from the certificate data alone.

Pure (no Qt): the PDF module lays this out with a ``QTextDocument``. The order follows
the reader's questions: **what is certified and at what confidence** (the summary),
then one section per contract, the agreement between people, the inputs, how to verify,
and the method notes with the papers cited.

**Escaping.** Every string that can come from the user's files (project, scheme, label,
tier, annotator and contract names, notes, paths, values) goes through :func:`e`
(``html.escape`` with quotes) before it reaches the HTML; numbers go through the
formatters below. Nothing from a file is ever written as markup, so a label named
``<img src="file:///etc/hostname">`` prints as those characters. The PDF module adds a
second guard (a document that loads no resource it was not given).

Only the subset of HTML/CSS that ``QTextDocument`` supports is used (tables with
attributes, inline ``background-color``, ``page-break-before``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.report.certificate_methods import method_notes
from app.report.certificate_sections import contract_section
from app.report.html_parts import Image, badge, e, interval, num, pct, table


def _header(cert: Mapping[str, Any]) -> str:
    project = cert.get("project") or {}
    return (
        '<p style="font-size:8pt; color:#57606a; margin:0;">ACCORD CERTIFICATE</p>'
        f'<h1 style="font-size:20pt; margin-top:2px; margin-bottom:2px;">{e(project.get("name"))}'
        "</h1>"
        f'<p style="color:#444; margin-top:0;">{_count(project.get("n_items"), "item")} · '
        f'{_count(project.get("n_annotators"), "annotator")} · '
        f'{_count(len(project.get("schemes") or {}), "scheme")} · stated at '
        f'<b>{e(cert.get("generated_at"))}</b> · Accord {e(cert.get("accord_version"))}</p>')


def _summary(cert: Mapping[str, Any]) -> str:
    out = ['<h2 style="font-size:14pt;">Summary: what is certified, at what confidence</h2>']
    contracts: Mapping[str, Any] = cert.get("contracts") or {}
    if not contracts:
        out.append(f'<p><b>No contracts.</b> {e(cert.get("labels_absent") or "")}. This '
                   "certificate states the agreement between annotators only; it certifies "
                   "no machine labels.</p>")
    else:
        met = sum(1 for c in contracts.values() if c.get("state") == "met")
        certified = [i for i, c in contracts.items() if c.get("certifies")]
        out.append(f"<p>{met} of {len(contracts)} contracts met. "
                   + (f"Certified machine labels: <b>{e(', '.join(certified))}</b>. "
                      if certified else "<b>No machine labels are certified.</b> ")
                   + "A met contract at confidence c is still wrong with probability at most "
                   "1 − c; no contract says the labels are free of errors.</p>")
        rows = [[f"<b>{e(i)}</b><br/><span style='color:#57606a;'>{e(c.get('kind'))}</span>",
                 e(c.get("claim")),
                 pct(c.get("confidence"), 0) if c.get("confidence") is not None else "—",
                 badge(str(c.get("state")))] for i, c in contracts.items()]
        out.append(table(["Contract", "Claim", "Confidence", "State"], rows, (19, 50, 14, 17)))
        out.append(_accepted(cert))
    unsupported = cert.get("unsupported_schemas") or []
    if unsupported:
        out.append(f"<p><b>Unsupported schemas</b> (no loss family, so no contract covers "
                   f"them): {e(', '.join(map(str, unsupported)))}.</p>")
    out.append(_agreement_summary(cert))
    out.append(_ledger(cert))
    out.append(f"<p><b>Inputs</b>: {num(len(cert.get('inputs') or []))} files hashed (listed at "
               "the end). Content hash "
               f'<span style="font-family:DejaVu Sans Mono; font-size:7.5pt;">'
               f"{e(cert.get('content_hash'))}</span>.</p>")
    return "".join(out)


def _coverage_text(cov: Mapping[str, Any]) -> str:
    names = {"n_items_answered": "answered", "n_items_scored": "scored",
             "n_items_one_annotator": "one annotator only", "n_items_unanswered": "unanswered",
             "n_items_below_cap": "below the per-item cap"}
    return " · ".join(f"{e(names.get(k, k.replace('_', ' ')))} {num(v)}" for k, v in cov.items())


def _headline(s: Mapping[str, Any]) -> str:
    metrics = s.get("metrics") or {}
    for name in ("alpha", "mean_agreement", "mean_sensitivity", "percent_agreement"):
        if name in metrics:
            value = metrics[name]
            iv = (s.get("intervals") or {}).get(name)
            return (f"{e(name)} {num(value)}" + (f" {interval(iv)}" if iv else "")
                    if value is not None else f"{e(name)} undefined")
    return "not computed" if s.get("not_computed") else "—"


def _agreement_summary(cert: Mapping[str, Any]) -> str:
    agreement = cert.get("agreement") or {}
    coverage = agreement.get("coverage") or {}
    items = "".join(
        f"<li><b>{e(name)}</b> ({e(s.get('kind') or s.get('annotation_type'))}): "
        f"{_headline(s)}; {num(s.get('n_items'))} items scored</li>"
        for name, s in (agreement.get("schemes") or {}).items())
    return (f"<p><b>Agreement between people</b>: {num(coverage.get('n_items'))} items, "
            f"{num(coverage.get('n_annotators'))} annotators.</p><ul>{items}</ul>")


def _accepted(cert: Mapping[str, Any]) -> str:
    out = ["<p><b>Machine labels accepted, by source</b></p><ul>"]
    accepted: Mapping[str, Any] = cert.get("machine_labels_accepted") or {}
    statuses: Mapping[str, Any] = cert.get("export_statuses") or {}
    for schema in sorted(set(accepted) | set(statuses)):
        a = accepted.get(schema) or {}
        by = ", ".join(f"{e(k)} {num(v)}" for k, v in (a.get("by_source") or {}).items())
        kind = "certified" if a.get("certified") else "not certified"
        counts = "; ".join(f"{e(k)} {num(v)}" for k, v in (statuses.get(schema) or {}).items())
        out.append(f"<li><b>{e(schema)}</b>: {by or 'none'} ({num(a.get('total', 0))} "
                   f"labels, {kind}). Every item: {counts or '—'}.</li>")
    out.append("</ul>")
    for u in cert.get("uncertified") or []:
        measured = (pct(u.get("measured_error")) if u.get("measured_error") is not None
                    else e(u.get("measured_error_reason") or "not measurable"))
        out.append(
            '<p style="background-color:#fff4d6;">&nbsp;<b>Uncertified:</b> contract '
            f"{e(u.get('contract'))} on {e(u.get('schema'))} accepts machine labels at "
            f"confidence ≥ {num(u.get('threshold'), 2)} without a test; measured error on the "
            f"calibration labels {measured}; {num(u.get('accepted_uncertified'))} labels "
            "delivered as accepted_uncertified.</p>")
    return "".join(out)


def _count(value: Any, word: str) -> str:
    """``"1 scheme"``, ``"3 schemes"`` (the number as :func:`num` prints it)."""
    return f"{num(value)} {word}" if value == 1 else f"{num(value)} {word}s"


def _ledger(cert: Mapping[str, Any]) -> str:
    ledger = cert.get("ledger") or {}
    state = ("intact" if ledger.get("ok", True) else
             f'<span style="color:#b3261e;"><b>damaged</b>: {e(ledger.get("problem"))}</span>')
    return (f"<p><b>Looks ledger</b>: {state}, {_count(ledger.get('lines'), 'line')}, head "
            f'<span style="font-family:DejaVu Sans Mono; font-size:7.5pt;">'
            f"{e(ledger.get('head'))}</span>.</p>")


def _agreement(cert: Mapping[str, Any]) -> str:
    agreement = cert.get("agreement") or {}
    coverage = agreement.get("coverage") or {}
    out = ['<h2 style="font-size:14pt; margin-top:18px;">Agreement between people</h2>',
           f"<p>{num(coverage.get('n_items'))} items, {num(coverage.get('n_annotators'))} "
           "annotators. Each scheme's coefficients with their intervals; a coefficient that is "
           "undefined is given with its reason, never as a number.</p>"]
    rows = []
    for name, s in (agreement.get("schemes") or {}).items():
        if s.get("not_computed"):
            rows.append([f"<b>{e(name)}</b>", e(s.get("kind") or s.get("annotation_type")),
                         "—", e(s["not_computed"])])
            continue
        intervals = s.get("intervals") or {}
        metrics = []
        for metric, value in (s.get("metrics") or {}).items():
            if value is None:
                reason = (s.get("undefined") or {}).get(metric, "")
                metrics.append(f"{e(metric)}: undefined ({e(reason)})")
            else:
                extra = f" {interval(intervals[metric])}" if metric in intervals else ""
                metrics.append(f"{e(metric)} <b>{num(value)}</b>{extra}")
        cov_text = _coverage_text(s.get("coverage") or {})
        rows.append([f"<b>{e(name)}</b>", e(s.get("kind")),
                     f"{num(s.get('n_items'))}<br/>"
                     f"<span style='font-size:7.5pt;'>{cov_text}</span>",
                     "<br/>".join(metrics) + ("<br/><i>" + e("; ".join(map(str, s["notes"])))
                                              + "</i>" if s.get("notes") else "")])
    out.append(table(["Scheme", "Kind", "Items (coverage)", "Metrics"], rows, (16, 12, 20, 52)))
    return "".join(out)


def _inputs(cert: Mapping[str, Any]) -> str:
    rows = [[e(f.get("path")), e(f.get("role")), num(f.get("bytes")),
             f'<span style="font-family:DejaVu Sans Mono;">{e(f.get("sha256"))}</span>']
            for f in cert.get("inputs") or []]
    return ('<h2 style="font-size:14pt;">Inputs</h2><p>Every file the numbers were computed '
            "from, with its SHA-256. Media files are not hashed.</p>"
            + table(["File", "Role", "Bytes", "SHA-256"], rows, (34, 11, 10, 45), small=True))


def _verify(cert: Mapping[str, Any]) -> str:
    return ('<h2 style="font-size:14pt;">Verify this certificate</h2>'
            "<p>The data behind every number above is attached to this PDF as "
            "<i>accord-certificate.json</i>. Run <tt>accord verify FILE.pdf</tt> to check that "
            "the attachment is intact, and <tt>accord verify FILE.pdf --project PROJECT</tt> to "
            "recompute the certificate from the project and list every difference.</p>"
            '<p>Content hash (SHA-256 of the canonical JSON):<br/><span style="font-family:'
            f'DejaVu Sans Mono; font-size:8pt;">{e(cert.get("content_hash"))}</span></p>')


def certificate_html(cert: Mapping[str, Any],
                     plots: Mapping[str, Sequence[Image]] | None = None) -> str:
    """The whole document; ``plots`` maps a contract id to its images."""
    plots = plots or {}
    parts = ['<html><body style="font-size:9.5pt;">', _header(cert), _summary(cert)]
    contracts: Mapping[str, Any] = cert.get("contracts") or {}
    if contracts:
        parts.append('<h2 style="font-size:14pt; page-break-before:always;">Contracts</h2>')
        for ident, contract in contracts.items():
            parts.append(contract_section(ident, contract, plots.get(ident, ())))
    parts += [_agreement(cert), _inputs(cert), _verify(cert), method_notes(cert),
              "</body></html>"]
    return "".join(parts)
