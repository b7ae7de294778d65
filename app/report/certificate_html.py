"""The certificate as HTML for Qt's rich-text engine, built from the certificate data alone.

Pure (no Qt): the PDF module lays this out with a ``QTextDocument``. The order follows
the reader's questions: **what is certified and at what confidence** (page 1, the
one-page summary: who it is for and by whom, every contract with its claim, result and
a badge by meaning, the labels delivered, the agreement, the ledger), then one section
per contract, the agreement between people, the inputs, how to verify,
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

from app.core.contracts.kinds.registry import KINDS
from app.report.certificate_agreement import agreement_section, agreement_summary
from app.report.certificate_methods import method_notes
from app.report.certificate_sections import contract_section
from app.report.certificate_verdicts import GROUPS, badge_html, result_line, verdict
from app.report.certificate_words import kind_name
from app.report.html_parts import Image, e, num, pct, table


def _prepared(cert: Mapping[str, Any]) -> str:
    named = cert.get("prepared") or {}
    parts = [
        f"Prepared for <b>{e(named['for'])}</b>" if named.get("for") else "",
        f"prepared by <b>{e(named['by'])}</b>" if named.get("by") else "",
    ]
    text = " · ".join(p for p in parts if p)
    return (
        f'<p style="margin-top:0; margin-bottom:2px;">{text[0].upper() + text[1:]}</p>'
        if text
        else ""
    )


def _header(cert: Mapping[str, Any]) -> str:
    project = cert.get("project") or {}
    return (
        '<p style="font-size:8pt; color:#57606a; margin:0;">ACCORD CERTIFICATE</p>'
        f'<h1 style="font-size:18pt; margin-top:2px; margin-bottom:2px;">{e(project.get("name"))}'
        "</h1>"
        + _prepared(cert)
        + f'<p style="color:#444; margin-top:0;">{_count(project.get("n_items"), "item")} · '
        f"{_count(project.get('n_annotators'), 'annotator')} · "
        f"{_count(len(project.get('schemes') or {}), 'scheme')} · stated at "
        f"<b>{e(cert.get('generated_at'))}</b> · Accord {e(cert.get('accord_version'))}</p>"
    )


def _tally(contracts: Mapping[str, Any]) -> str:
    """ "1 certified (accuracy) · 2 estimates met (…) · 1 plan (plan)": by meaning."""
    by: dict[str, list[str]] = {g: [] for g in GROUPS}
    for ident, c in contracts.items():
        by[verdict(c.get("kind"), c.get("state")).group].append(str(ident))
    words = {
        "certified": ("certified", "certified"),
        "estimate": ("estimate met", "estimates met"),
        "plan": ("plan", "plans"),
        "uncertified": ("uncertified rule", "uncertified rules"),
        "undecided": ("not decided yet", "not decided yet"),
        "not met": ("not met", "not met"),
    }
    parts = [
        f"<b>{len(ids)} {words[g][0] if len(ids) == 1 else words[g][1]}</b> ({e(', '.join(ids))})"
        for g, ids in by.items()
        if ids
    ]
    return " · ".join(parts)


def _summary(cert: Mapping[str, Any]) -> str:
    out = [
        '<h2 style="font-size:13pt; margin-top:6px;">Summary: what is certified, at what '
        "confidence</h2>"
    ]
    contracts: Mapping[str, Any] = cert.get("contracts") or {}
    if not contracts:
        out.append(
            f"<p><b>No contracts.</b> {e(cert.get('labels_absent') or '')}. This "
            "certificate states the agreement between annotators only; it certifies "
            "no machine labels.</p>"
        )
    else:
        certified = [i for i, c in contracts.items() if c.get("certifies")]
        out.append(
            f"<p>{len(contracts)} contracts: {_tally(contracts)}. "
            + ("" if certified else "<b>No machine labels are certified.</b> ")
            + "A certified contract at confidence c is still wrong with probability at "
            "most 1 − c; no contract says the labels are free of errors. Estimates and "
            "plans certify no labels.</p>"
        )
        rows = [
            [
                f"<b>{e(i)}</b><br/><span style='color:#57606a;'>"
                f"{e(kind_name(c.get('kind')))}</span>",
                e(c.get("claim"))
                + (
                    f" (confidence {pct(c.get('confidence'), 0)})"
                    if c.get("confidence") is not None and _has_confidence(c.get("kind"))
                    else ""
                ),
                result_line(c, _delivered(cert, c)),
                badge_html(c.get("kind"), c.get("state")),
            ]
            for i, c in contracts.items()
        ]
        out.append(table(["Contract", "Claim", "Result", "Verdict"], rows, (19, 33, 26, 22)))
        out.append(_not_assured(contracts))
        out.append(_accepted(cert))
    unsupported = cert.get("unsupported_schemas") or []
    if unsupported:
        out.append(
            f"<p><b>Unsupported schemas</b> (no loss family, so no contract covers "
            f"them): {e(', '.join(map(str, unsupported)))}.</p>"
        )
    out.append(agreement_summary(cert))
    out.append(_ledger(cert))
    out.append(
        f"<p><b>Inputs</b>: {num(len(cert.get('inputs') or []))} files hashed (listed at "
        "the end). Content hash "
        f'<span style="font-family:DejaVu Sans Mono; font-size:7pt;">'
        f"{e(cert.get('content_hash'))}</span>.</p>"
    )
    return "".join(out)


def _not_assured(contracts: Mapping[str, Any]) -> str:
    """Page 1's count of ppi intervals (a class, in a group or overall) that rest on
    fewer than 3 labels of their class, whose coverage is therefore not assured."""
    named = [
        f"{e(ident)}: {e(f.get('label'))}"
        + (f" in {e(f.get('group'))}" if f.get("group") is not None else "")
        for ident, c in contracts.items()
        for f in ((c.get("result") or {}).get("coverage_not_assured") or [])
        if isinstance(f, Mapping)
    ]
    if not named:
        return ""
    return (
        f"<p><b>Coverage not assured for {num(len(named))} "
        f"{'class' if len(named) == 1 else 'classes'}</b> ({'; '.join(named)}): "
        f"{'its interval rests' if len(named) == 1 else 'their intervals rest'} on fewer "
        "than 3 labels of the class. The numbers are Potato's, as computed, but such an "
        "interval covers the truth less often than its stated level (in simulations "
        "stating 94%: 75% with no label of the class, 89-92% with one or two).</p>"
    )


def _delivered(cert: Mapping[str, Any], contract: Mapping[str, Any]) -> int | None:
    accepted = (cert.get("machine_labels_accepted") or {}).get(contract.get("schema")) or {}
    total = accepted.get("total")
    return total if isinstance(total, int) else None


STATUS_WORDS = {
    "accepted:human": "labelled by people",
    "accepted:auto": "certified machine",
    "accepted_uncertified:auto": "uncertified machine",
    "pending": "pending",
}


def _accepted(cert: Mapping[str, Any]) -> str:
    out = []
    accepted: Mapping[str, Any] = cert.get("machine_labels_accepted") or {}
    statuses: Mapping[str, Any] = cert.get("export_statuses") or {}
    rows = []
    for schema in sorted(set(accepted) | set(statuses)):
        a = accepted.get(schema) or {}
        by = ", ".join(f"{e(k)} {num(v)}" for k, v in (a.get("by_source") or {}).items())
        kind = "certified" if a.get("certified") else "not certified"
        counts = "; ".join(
            f"{e(STATUS_WORDS.get(k, k))} {num(v)}" for k, v in (statuses.get(schema) or {}).items()
        )
        rows.append([f"<b>{e(schema)}</b>", f"{by or 'none'} ({kind})", counts or "—"])
    if rows:
        out.append(
            "<p><b>Labels delivered</b> (machine labels by source; every item by "
            "status)</p>"
            + table(["Schema", "Machine labels accepted", "Every item"], rows, (22, 36, 42))
        )
    for u in cert.get("uncertified") or []:
        measured = (
            pct(u.get("measured_error"))
            if u.get("measured_error") is not None
            else e(u.get("measured_error_reason") or "not measurable")
        )
        out.append(
            '<p style="background-color:#fff4d6;">&nbsp;<b>Uncertified:</b> contract '
            f"{e(u.get('contract'))} on {e(u.get('schema'))} accepts machine labels at "
            f"confidence ≥ {num(u.get('threshold'), 2)} without a test; measured error on the "
            f"calibration labels {measured}; {num(u.get('accepted_uncertified'))} labels "
            "delivered as uncertified.</p>"
        )
    return "".join(out)


def _count(value: Any, word: str) -> str:
    """``"1 scheme"``, ``"3 schemes"`` (the number as :func:`num` prints it)."""
    return f"{num(value)} {word}" if value == 1 else f"{num(value)} {word}s"


def _ledger(cert: Mapping[str, Any]) -> str:
    ledger = cert.get("ledger") or {}
    state = (
        "intact"
        if ledger.get("ok", True)
        else f'<span style="color:#b3261e;"><b>damaged</b>: {e(ledger.get("problem"))}</span>'
    )
    return (
        f"<p><b>Looks ledger</b>: {state}, {_count(ledger.get('lines'), 'line')}, head "
        f'<span style="font-family:DejaVu Sans Mono; font-size:7pt;">'
        f"{e(ledger.get('head'))}</span>.</p>"
    )


def _inputs(cert: Mapping[str, Any]) -> str:
    rows = [
        [
            f"{e(f.get('path'))}<br/><span style='color:#57606a;'>{e(f.get('role'))} · "
            f"{num(f.get('bytes'))} bytes</span>",
            f'<span style="font-family:DejaVu Sans Mono; font-size:6.5pt;">'
            f"{e(f.get('sha256'))}</span>",
        ]
        for f in cert.get("inputs") or []
    ]
    return (
        '<h2 style="font-size:14pt;">Inputs</h2><p>Every file the numbers were computed '
        "from, with its SHA-256. Media files are not hashed.</p>"
        + table(["File", "SHA-256"], rows, (40, 60), small=True)
    )


def _verify(cert: Mapping[str, Any]) -> str:
    return (
        '<h2 style="font-size:14pt;">Verify this certificate</h2>'
        "<p>The data behind every number above is attached to this PDF as "
        "<i>accord-certificate.json</i>. Run <tt>accord verify FILE.pdf</tt> to check that "
        "the attachment is intact, and <tt>accord verify FILE.pdf --project PROJECT</tt> to "
        "recompute the certificate from the project and list every difference.</p>"
        '<p>Content hash (SHA-256 of the canonical JSON):<br/><span style="font-family:'
        f'DejaVu Sans Mono; font-size:8pt;">{e(cert.get("content_hash"))}</span></p>'
    )


def certificate_html(
    cert: Mapping[str, Any], plots: Mapping[str, Sequence[Image]] | None = None
) -> str:
    """The whole document; ``plots`` maps a contract id to its images."""
    plots = plots or {}
    parts = ['<html><body style="font-size:9.5pt;">', _header(cert), _summary(cert)]
    contracts: Mapping[str, Any] = cert.get("contracts") or {}
    if contracts:
        parts.append('<h2 style="font-size:14pt; page-break-before:always;">Contracts</h2>')
        for ident, contract in contracts.items():
            parts.append(contract_section(ident, contract, plots.get(ident, ())))
    parts += [
        agreement_section(cert),
        _inputs(cert),
        _verify(cert),
        method_notes(cert),
        "</body></html>",
    ]
    return "".join(parts)


def _has_confidence(kind: object) -> bool:
    """Whether a contract of ``kind`` has a confidence to print beside its claim: a rule
    that accepts labels with no test (threshold_legacy) has none, and a "confidence 90%"
    there would read as a guarantee it does not give."""
    info = KINDS.get(str(kind))
    return info is None or info.certifies is not False
