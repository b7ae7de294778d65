"""One section of the certificate per contract, as HTML (pure; every user string escaped).

Each section opens with the contract's id, its badge by meaning
(:mod:`app.report.certificate_verdicts`) and claim, then a facts table
(kind, schema, confidence, looks, level spent, parameters), then what its kind reports:

- ``selective_risk``: the chosen rule, ``accepted_by_tier``, every test of the look, the
  projection, and the error-versus-coverage plot of the dev labels;
- ``ppi``: each estimate with its interval and width, the labels of its class (an
  interval on fewer than 3 of them is marked "coverage not assured", with the sentence
  why beneath the table), the method per group, the plot;
- ``no_worse_than_human``: winning rate, alignments, the per-person table;
- ``budget_first``: the projection table, consecutive error targets with the same
  projection on one row;
- ``distributional``: distance, interval, noise ceiling, the plot, and the groups,
  stated as reported, not judged (the verdict is on all items; a group above
  ``max_distance`` is named);
- ``threshold_legacy``: threshold, measured error and its counts per tier, marked
  uncertified.

Result keys without a dedicated layout are listed as compact JSON, so nothing in the
data is left out of the printed page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.core.contracts.potato_method.names import ASSURED_CLASS_LABELS
from app.report.certificate_kinds import budget_first, distributional, legacy
from app.report.certificate_verdicts import badge_html
from app.report.certificate_words import kind_name, parameter_name, result_name
from app.report.html_parts import (
    Image,
    compact,
    e,
    facts,
    interval,
    notes_list,
    num,
    pct,
    table,
)
from app.report.ppi_rows import estimate_groups

Section = Callable[[Mapping[str, Any], Mapping[str, Any]], tuple[str, set[str]]]


def _facts(contract: Mapping[str, Any]) -> str:
    params = contract.get("parameters") or {}
    shown = ", ".join(f"{e(parameter_name(k))} {e(v)}" for k, v in params.items() if v is not None)
    confidence = contract.get("confidence")
    pairs = [
        ("Kind", e(kind_name(contract.get("kind")))),
        ("Schema", e(contract.get("schema"))),
        ("Confidence", pct(confidence, 0) if confidence is not None else "—"),
        ("Looks spent", num(contract.get("looks"))),
        ("Level spent", num(contract.get("level_spent"), 4)),
        ("Renamed from", e(contract.get("renamed_from") or "—")),
    ]
    return (
        facts(pairs) + f'<p style="margin-top:3px; color:#57606a;">Parameters: '
        f"{shown or '—'} (configured as kind {e(contract.get('kind'))})</p>" + _potato(contract)
    )


def _potato(contract: Mapping[str, Any]) -> str:
    """What Potato 2.12.1 recorded for the contract and the audit of it (Potato projects)."""
    if "potato" not in contract:
        return ""
    record = contract.get("potato")
    audit = contract.get("audit") or {}
    if record is None:
        said = "Potato 2.12.1 never evaluated this contract."
    else:
        verdict = audit.get("verdict")
        said = (
            f"Potato 2.12.1 recorded: {e(record.get('state'))} at look "
            f"{e(record.get('looks'))}"
            + (f"; Accord's recomputation: {e(verdict)}." if verdict else ".")
        )
    extra = "".join(f"<br>{e(d)}" for d in (audit.get("differences") or [])[:6])
    return f'<p style="margin-top:3px;"><b>{said}</b>{extra}</p>'


def _value(value: Any) -> str:
    """A value without a dedicated layout: a number as a number, a flat record as
    "name value" pairs, anything else as compact JSON."""
    if isinstance(value, bool | int | float):
        return num(value, 4)
    if isinstance(value, Mapping) and all(isinstance(v, int | float) for v in value.values()):
        return "(" + ", ".join(f"{e(k)} {num(v, 4)}" for k, v in value.items()) + ")"
    return compact(value)


def tests_all_passed(tests: Any) -> bool:
    """A met rule: tests ran and none failed (a projection then speaks of another tier)."""
    return bool(tests) and all(isinstance(t, Mapping) and t.get("passed") for t in tests)


def _selective_risk(result: Mapping[str, Any], _: Mapping[str, Any]) -> tuple[str, set[str]]:
    out = []
    rule = result.get("rule") or {}
    coverage = result.get("accepted_by_tier") or {}
    counts = result.get("accepted_by_tier_counts") or {}
    tiers = list(dict.fromkeys([*coverage, *rule]))
    if tiers:
        rows = []
        for tier in tiers:
            chosen = rule.get(tier)
            if isinstance(chosen, Mapping) and set(chosen) == {"*"}:
                chosen = chosen["*"]  # Potato's one threshold for every class
            text = (
                "; ".join(
                    f"{e(c)} ≥ {num(t, 4)}" if t is not None else f"{e(c)}: accepts nothing"
                    for c, t in chosen.items()
                )
                if isinstance(chosen, Mapping)
                else f"confidence ≥ {num(chosen, 4)}"
                if chosen is not None
                else "accepts nothing"
            )
            count = counts.get(tier)
            rows.append(
                [
                    e(tier),
                    text,
                    pct(coverage.get(tier))
                    + (f" ({num(count)} items)" if count is not None else ""),
                ]
            )
        overall = (
            f"; {pct(result['coverage'])} of the items overall"
            if result.get("coverage") is not None
            else ""
        )
        out.append(
            f"<p><b>Chosen rule</b> (coverage of the whole population{overall}; the "
            "machine labels delivered leave out the covered items people labelled or "
            "still check: see the summary)</p>"
            + table(["Tier", "Rule", "Covers"], rows, (30, 45, 25))
        )
    tests = result.get("tests") or []
    if tests:
        rows = [
            [
                e(t.get("tier")) + (f" / {e(t['class'])}" if t.get("class") else ""),
                num(t.get("threshold"), 4),
                num(t.get("n")),
                num(t.get("errors")),
                num(t.get("p"), 4),
                num(t.get("level"), 4),
                "passed" if t.get("passed") else "<b>failed</b>",
            ]
            for t in tests
        ]
        out.append(
            "<p><b>Tests at this look</b> (one-sided exact binomial; p ≤ level passes; "
            "the first failure stops the fixed sequence; the level is the look's, divided "
            "over the cells tested)</p>"
            + table(["Tier", "Threshold", "n", "Errors", "p", "Level", "Result"], rows)
        )
    if result.get("tests_note"):
        out.append(f"<p>{e(result['tests_note'])}</p>")
    projection = result.get("projection")
    if isinstance(projection, Mapping) and projection and not tests_all_passed(tests):
        reach = (
            f" Not reachable with this corpus: {num(projection.get('items_left'))} "
            "items are left to sample."
            if projection.get("reachable") is False
            else ""
        )
        out.append(
            f"<p><b>Projection</b>: about {num(projection.get('more_cert_labels'))} "
            f"more cert labels, {num(projection.get('more_calibration_labels'))} more "
            f"calibration labels. {e(projection.get('note') or '')}{reach}</p>"
        )
    return "".join(out), {
        "rule",
        "accepted_by_tier",
        "tests",
        "projection",
        "accepted_by_tier_counts",
        "coverage",
        "tests_note",
    }


def _ppi(result: Mapping[str, Any], _: Mapping[str, Any]) -> tuple[str, set[str]]:
    groups = estimate_groups(result)
    by_group = any(group for group, _ in groups)
    raw = (result.get("potato_metrics") or {}).get("estimates") or {}
    rows = []
    estimators: set[str] = set()
    for group, labels in groups:
        for name, value in labels.items():
            if isinstance(value, Mapping):
                iv = value.get("interval")
                width = (iv[1] - iv[0]) if isinstance(iv, list) and None not in iv else None
                method = ((raw.get(group) or {}) if by_group else raw.get("all", raw)).get(name)
                estimators.add(str((method or {}).get("estimator") or "—"))
                rows.append(
                    ([e(group)] if by_group else [])
                    + [
                        e(name),
                        num(value.get("estimate")),
                        interval(iv),
                        num(width),
                        num(value.get("lambda")),
                        f"{num(value.get('n'))} of {num(value.get('N'))}"
                        + _class_labels(value.get("class_labels")),
                    ]
                )
    headers = (["Group"] if by_group else []) + [
        "Label",
        "Estimate",
        "Interval",
        "Width",
        "λ",
        "Labelled",
    ]
    widths = (9, 25, 13, 19, 10, 9, 15) if by_group else (39, 12, 18, 10, 8, 13)
    out = table(headers, rows, widths) if rows else "<p>No estimates yet.</p>"
    if rows:
        out += (
            f"<p>Estimator: {e(', '.join(sorted(estimators)))}"
            + (
                f"; intervals at level {num(result['level'], 4)}, the confidence adjusted "
                "for the look, as Potato's engine does"
                if result.get("level")
                else ""
            )
            + ".</p>"
        )
    if result.get("coverage_not_assured_note"):
        out += f"<p><b>{e(result['coverage_not_assured_note'])}</b></p>"
    return out, {"estimates", "level", "potato_metrics", "coverage_not_assured",
                 "coverage_not_assured_note"}


def _class_labels(count: Any) -> str:
    """Beside a ppi row's labelled count: the labels of its class, and whether they are
    too few for the interval's coverage to be assured (fewer than 3, issue 36)."""
    if not isinstance(count, int):
        return ""
    if count < ASSURED_CLASS_LABELS:
        return f"; {num(count)} of its class: <b>coverage not assured</b>"
    return f"; {num(count)} of its class"


def _no_worse(result: Mapping[str, Any], _: Mapping[str, Any]) -> tuple[str, set[str]]:
    out = (
        f"<p>Winning rate <b>{num(result.get('winning_rate'))}</b> (passes at 0.5); machine "
        f"alignment {num(result.get('machine_alignment'))}, human alignment "
        f"{num(result.get('human_alignment'))}.</p>"
    )
    per = result.get("per_annotator") or {}
    if per:
        rows = [
            [
                e(a),
                num(v.get("n_items")),
                num(v.get("p_value", v.get("p")), 4),
                num(v.get("p_value_adjusted", v.get("p")), 4),
                num(v.get("advantage")),
                num(v.get("human_advantage")),
                "yes" if v.get("beaten") else "no",
            ]
            for a, v in per.items()
        ]
        out += table(
            [
                "Person left out",
                "Items",
                "p",
                "p (BY)",
                "Machine advantage",
                "Person's advantage",
                "Beaten",
            ],
            rows,
        )
    return out, {"winning_rate", "machine_alignment", "human_alignment", "per_annotator"}


SECTIONS: dict[str, Section] = {
    "selective_risk": _selective_risk,
    "ppi": _ppi,
    "no_worse_than_human": _no_worse,
    "budget_first": budget_first,
    "distributional": distributional,
    "threshold_legacy": legacy,
}


def contract_section(ident: str, contract: Mapping[str, Any], images: Sequence[Image]) -> str:
    """The HTML of one contract's section."""
    result: Mapping[str, Any] = contract.get("result") or {}
    out = [
        f'<h3 style="font-size:12pt; margin-top:16px;">{e(ident)} &nbsp;'
        f"{badge_html(contract.get('kind'), contract.get('state'))}</h3>",
        f'<p style="margin-top:0;"><i>{e(contract.get("claim"))}</i></p>',
        _facts(contract),
    ]
    section = SECTIONS.get(str(contract.get("kind")))
    body, shown = section(result, contract) if section else ("", set())
    out.append(body)
    for name, width, height in images:
        out.append(
            f'<p align="center"><img src="{e(name)}" width="{width}" height="{height}"/></p>'
        )
    rest = {
        k: v
        for k, v in result.items()
        if k not in shown and k != "potato_metrics" and v not in (None, [], {})
    }
    if rest:
        out.append(
            "<p><b>Also reported</b>: "
            + "; ".join(f"{e(result_name(k))} {_value(v)}" for k, v in sorted(rest.items()))
            + "</p>"
        )
    out.append(notes_list(contract.get("notes") or []))
    return "".join(out)
