"""The certificate's sections for the kinds that estimate, plan or accept without a test.

Split from :mod:`app.report.certificate_sections` (which keeps the kinds that test
labels and assembles a section): ``budget_first`` (a projection, consecutive error
targets with the same projection on one row), ``distributional`` (the verdict on all
items; groups reported, not judged, a group above ``max_distance`` named) and
``threshold_legacy`` (uncertified, with its measured error). Pure; every user string
escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.report.html_parts import e, interval, num, pct, table


def budget_rows(projection: Any) -> list[tuple[list[float], Mapping[str, Any]]]:
    """Consecutive error targets with the same projection (share, width, threshold) as
    one row: a 20-row table repeating one share says less than "5% to 10%: 46.3%"."""
    rows: list[tuple[list[float], Mapping[str, Any]]] = []
    for r in projection if isinstance(projection, list) else []:
        if not isinstance(r, Mapping):
            continue
        same = rows and all(
            rows[-1][1].get(k) == r.get(k)
            for k in ("share_certifiable", "interval_width", "threshold")
        )
        if same:
            rows[-1][0].append(float(r.get("error") or 0.0))
        else:
            rows.append(([float(r.get("error") or 0.0)], r))
    return rows


def budget_first(result: Mapping[str, Any], _: Mapping[str, Any]) -> tuple[str, set[str]]:
    rows = [
        [
            pct(errors[0], 0)
            if len(errors) == 1
            else f"{pct(errors[0], 0)} to {pct(errors[-1], 0)}",
            pct(r.get("share_certifiable")),
            f"confidence ≥ {num(r.get('threshold'), 4)}"
            if r.get("threshold") is not None
            else "none reaches it",
            num(r.get("interval_width")),
        ]
        for errors, r in budget_rows(result.get("projection"))
    ]
    out = (
        (
            "<p>A projection, not a promise: what the budget could certify at each error "
            "target, from the dev labels.</p>"
            + table(
                ["Error target", "Share certifiable", "Rule it would need", "Interval width"], rows
            )
        )
        if rows
        else "<p>Not enough dev labels to project yet.</p>"
    )
    return out, {"projection"}


def distributional(result: Mapping[str, Any], contract: Mapping[str, Any]) -> tuple[str, set[str]]:
    limit = (contract.get("parameters") or {}).get("max_distance")
    out = (
        f"<p>Mean Jensen–Shannon distance <b>{num(result.get('mean_js'))}</b> "
        f"{interval(result.get('interval'))}; noise ceiling (two halves of the people) "
        f"{num(result.get('noise_ceiling'))}; {num(result.get('n_items'))} items. The "
        "verdict is on all items together.</p>"
    )
    groups = result.get("groups") or {}
    if groups:

        def against(v: Mapping[str, Any]) -> str:
            iv = v.get("interval")
            if limit is None or not isinstance(iv, list) or None in iv:
                return "—"
            return (
                "within" if iv[1] <= limit else "above" if iv[0] > limit else "interval spans"
            ) + f" {num(limit)}"

        rows = [
            [
                e(g),
                num(v.get("mean_js")),
                interval(v.get("interval")),
                num(v.get("noise_ceiling")),
                num(v.get("n_items")),
                against(v),
            ]
            for g, v in groups.items()
            if isinstance(v, Mapping)
        ]
        above = [
            str(g)
            for g, v in groups.items()
            if isinstance(v, Mapping)
            and limit is not None
            and v.get("mean_js") is not None
            and v["mean_js"] > limit
        ]
        out += (
            "<p><b>Groups are reported, not judged</b>: the contract's verdict does not "
            "depend on them."
            + (
                f" Group{'s' if len(above) != 1 else ''} {e(', '.join(above))} "
                f"{'are' if len(above) != 1 else 'is'} above the maximum distance "
                f"{num(limit)}."
                if above
                else ""
            )
            + "</p>"
        )
        out += table(
            [
                "Group (reported)",
                "Distance",
                "Interval",
                "Noise ceiling",
                "Items",
                "Against the limit",
            ],
            rows,
            (20, 13, 21, 16, 10, 20),
        )
    return out, {
        "mean_js",
        "interval",
        "noise_ceiling",
        "n_items",
        "groups",
        "confidence",
        "max_distance",
        "groups_by",
    }


def legacy(result: Mapping[str, Any], _: Mapping[str, Any]) -> tuple[str, set[str]]:
    measured = (
        pct(result.get("measured_error"))
        if result.get("measured_error") is not None
        else e(result.get("measured_error_reason") or "not measurable")
    )
    out = (
        '<p style="background-color:#fff4d6;">&nbsp;<b>Uncertified.</b> Labels at confidence '
        f"≥ {num(result.get('threshold'), 2)} are accepted with no test. Measured error on "
        f"{num(result.get('n'))} calibration items: <b>{measured}</b>.</p>"
    )
    by_tier = result.get("by_tier") or {}
    if by_tier:
        rows = [
            [e(t), num(v.get("n_items")), num(v.get("n_labels")), num(v.get("errors"))]
            for t, v in by_tier.items()
            if isinstance(v, Mapping)
        ]
        out += table(["Tier", "Dev items", "Dev labels", "Errors"], rows)
    return out, {
        "threshold",
        "measured_error",
        "measured_error_reason",
        "certified",
        "by_tier",
        "n",
    }
