"""Potato's stored result shapes in the names of ``cli.md`` (``contracts.md``, "Names in
the JSON"), and Potato's acceptance as the rule Accord's delivery applies.

``result`` keeps Potato's ``metrics`` as they are (under ``potato_metrics``, what the
audit compares) and adds, per kind, the keys ``cli.md`` promises:

- selective_risk: ``rule`` (Potato's acceptance), ``accepted_by_tier`` (shares of the
  population), ``accepted_by_tier_counts``, ``coverage``, ``tests`` (tier, class,
  threshold, n, errors, p) and ``projection``;
- ppi: ``estimates`` per label (with ``by``: ``all`` and one entry per group, then label),
  each ``{estimate, interval, lambda, n, N}``, and ``level``;
- no_worse_than_human: ``winning_rate``, ``machine_alignment``, ``human_alignment`` (the
  means of the per-person alignments) and ``per_annotator`` with ``p_value`` and
  ``p_value_adjusted``;
- budget_first: ``projection`` as a list of ``{error, share_certifiable,
  interval_width, threshold}`` (``interval_width`` twice Potato's half-width);
- distributional: ``mean_js``, ``interval``, ``noise_ceiling``, ``n_items``, ``groups``;
- threshold_legacy: ``threshold``, ``measured_error``, ``n``, ``certified: false``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def cli_result(kind: str, potato: Mapping[str, Any]) -> dict[str, Any]:
    """A stored Potato result (``to_dict`` shape) as ``cli.md``'s ``result``."""
    metrics = dict(potato.get("metrics") or {})
    out: dict[str, Any] = {"potato_metrics": metrics}
    shape = _SHAPES.get(kind)
    if shape is not None:
        try:
            out.update(shape(metrics, potato))
        except (AttributeError, TypeError, ValueError, KeyError):
            # A stored result of another shape (a damaged or older engine.sqlite): its
            # metrics are still shown as stored, never a traceback (issue 16).
            out["potato_metrics_unread"] = True
    if potato.get("projection"):
        out.setdefault("projection", potato.get("projection"))
    return out


def accepts(acceptance: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Potato's ``{tier: {class or "*": threshold}}`` as Accord's delivery rule
    (``tier → threshold``, or ``tier → class → threshold``); ``None``: accepts nothing."""
    if not acceptance:
        return None
    rule: dict[str, Any] = {}
    for tier, cells in acceptance.items():
        if not isinstance(cells, Mapping):
            continue
        if set(cells) == {"*"}:
            if cells["*"] is not None:
                rule[tier] = float(cells["*"])
            continue
        per_class = {str(c): float(t) for c, t in cells.items() if t is not None and c != "*"}
        if per_class:
            rule[tier] = per_class
    return rule or None


def _selective_risk(m: Mapping[str, Any], potato: Mapping[str, Any]) -> dict[str, Any]:
    counts = dict(m.get("accepted_by_tier") or {})
    population = m.get("population") or 0
    alpha = potato.get("alpha")
    cells = m.get("tested_cells")
    n_cells = len(cells) if isinstance(cells, list | dict) else int(cells or 1)
    level = None if alpha is None else float(alpha) / max(1, n_cells)  # split over cells
    tests = [{"tier": cell.split(":", 1)[0], "class": cell.split(":", 1)[-1], **test,
              "level": level,
              "passed": level is not None and float(test.get("p", 1.0)) <= level}
             for cell, data in (m.get("cells") or {}).items()
             for test in (data.get("tests") or [])]
    return {"rule": potato.get("acceptance") or {},
            "accepted_by_tier": {t: (n / population if population else 0.0)
                                 for t, n in counts.items()},
            "accepted_by_tier_counts": counts, "coverage": m.get("coverage"),
            "tests": tests}


def _ppi(m: Mapping[str, Any], potato: Mapping[str, Any]) -> dict[str, Any]:
    def entry(e: Mapping[str, Any]) -> dict[str, Any]:
        return {"estimate": e.get("estimate"), "interval": [e.get("lo"), e.get("hi")],
                "lambda": e.get("lambda"), "n": e.get("n"), "N": e.get("N")}

    raw = m.get("estimates") or {}
    groups = {g: {label: entry(e) for label, e in (labels or {}).items()}
              for g, labels in raw.items() if isinstance(labels, Mapping)}
    estimates: Any = groups.get("all", {}) if set(groups) <= {"all"} else groups
    return {"estimates": estimates, "level": m.get("level")}


def _no_worse(m: Mapping[str, Any], potato: Mapping[str, Any]) -> dict[str, Any]:
    alt = m.get("alt_test") or {}
    raw = alt.get("per_annotator") or []
    people = ({str(p.get("annotator_id")): p for p in raw} if isinstance(raw, list)
              else dict(raw))

    def mean(key: str) -> float | None:
        values = [float(p[key]) for p in people.values() if p.get(key) is not None]
        return sum(values) / len(values) if values else None

    return {"winning_rate": alt.get("winning_rate"),
            "machine_alignment": mean("llm_alignment"),
            "human_alignment": mean("human_alignment"),
            "per_annotator": {name: {"p": p.get("p_value_adjusted"),
                                     "n_items": p.get("n_items"),
                                     "p_value": p.get("p_value"),
                                     "p_value_adjusted": p.get("p_value_adjusted"),
                                     "beaten": p.get("rejected"),
                                     "advantage": p.get("llm_advantage"),
                                     "human_advantage": p.get("human_advantage")}
                              for name, p in people.items()}}


def _budget_first(m: Mapping[str, Any], potato: Mapping[str, Any]) -> dict[str, Any]:
    frontier = m.get("frontier") or []
    half = m.get("prevalence_halfwidth_after_budget")
    return {"projection": [{"error": f.get("error"), "share_certifiable": f.get("coverage"),
                            "interval_width": None if half is None else 2 * float(half),
                            "threshold": f.get("threshold")} for f in frontier]}


def _js_summary(summary: Mapping[str, Any]) -> dict[str, Any]:
    return {"mean_js": summary.get("machine_distance"), "interval": summary.get("interval"),
            "noise_ceiling": summary.get("human_ceiling"), "n_items": summary.get("n_items")}


def _distributional(m: Mapping[str, Any], potato: Mapping[str, Any]) -> dict[str, Any]:
    groups = m.get("groups") or {}
    return {**_js_summary(m.get("overall") or {}),
            "groups": {g: _js_summary(v) for g, v in groups.items() if isinstance(v, Mapping)}}


def _threshold_legacy(m: Mapping[str, Any], potato: Mapping[str, Any]) -> dict[str, Any]:
    route = m.get("route") or {}
    thresholds = {c.get("*") for c in route.values() if isinstance(c, Mapping)}
    return {"threshold": next(iter(thresholds)) if len(thresholds) == 1 else None,
            "measured_error": m.get("measured_error"), "n": m.get("n_measured"),
            "certified": False}


_SHAPES = {"selective_risk": _selective_risk, "ppi": _ppi,
           "no_worse_than_human": _no_worse, "budget_first": _budget_first,
           "distributional": _distributional, "threshold_legacy": _threshold_legacy}
