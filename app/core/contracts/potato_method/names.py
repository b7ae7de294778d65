"""Potato's stored result shapes in the names of ``cli.md`` (``contracts.md``, "Names in
the JSON"), and Potato's acceptance as the rule Accord's delivery applies.

``result`` keeps Potato's ``metrics`` as they are (under ``potato_metrics``, what the
audit compares) and adds, per kind, the keys ``cli.md`` promises:

- selective_risk: ``rule`` (Potato's acceptance), ``accepted_by_tier`` (shares of the
  population), ``accepted_by_tier_counts``, ``coverage``, ``tests`` (tier, class,
  threshold, n, errors, p, and ``level`` and ``passed``) and ``projection``. ``level`` is
  the level each test of the look ran at: Potato's stored ``alpha``, which is already the
  look's level divided over the ``tested_cells`` (dividing it by them again understated
  it, and ``passed`` with it, issue 36). ``tests`` is every test: a sequence longer than
  the 40 Potato stores comes from Accord's own record (``accord.tests``); a Potato record
  that may have been cut at 40 says so in ``tests_note`` (a sentence, else absent);
- ppi: ``estimates`` per label (with ``by``: ``all`` and one entry per group, then label),
  each ``{estimate, interval, lambda, n, N, class_labels}``, and ``level``.
  ``class_labels`` (added, issue 36) is the number of labelled items of the group whose
  truth is that class, ``null`` where it is unknown (a Potato record with unequal
  inclusion probabilities, whose stored numbers do not give it back) or for the mean.
  ``coverage_not_assured`` lists ``{group, label, class_labels}`` for every interval that
  rests on fewer than :data:`ASSURED_CLASS_LABELS` labels of its class (``group`` null
  without ``by``; empty when none), and ``coverage_not_assured_note`` says in a sentence
  what that means (absent when the list is empty). Potato's interval is kept as computed:
  in simulation such intervals cover the truth less often than their stated level
  (``tests/benchmarks/bench_ppi_mc.py``);
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


STORED_TESTS = 40
"""Tests Potato stores per cell (``contracts/selective_risk.py``: ``tested[:40]``)."""
ASSURED_CLASS_LABELS = 3
"""Labels of its class below which a ppi interval's coverage is not assured."""


def _selective_risk(m: Mapping[str, Any], potato: Mapping[str, Any]) -> dict[str, Any]:
    counts = dict(m.get("accepted_by_tier") or {})
    population = m.get("population") or 0
    alpha = potato.get("alpha")
    # Potato's alpha is the look's level already divided over the tested cells
    level = None if alpha is None else float(alpha)
    every = (potato.get("accord") or {}).get("tests") or {}
    cells = m.get("cells") or {}
    tests = [{"tier": cell.split(":", 1)[0], "class": cell.split(":", 1)[-1], **test,
              "level": level,
              "passed": level is not None and float(test.get("p", 1.0)) <= level}
             for cell, data in cells.items()
             for test in (every.get(cell) or data.get("tests") or [])]
    out = {"rule": potato.get("acceptance") or {},
           "accepted_by_tier": {t: (n / population if population else 0.0)
                                for t, n in counts.items()},
           "accepted_by_tier_counts": counts, "coverage": m.get("coverage"),
           "tests": tests}
    cut = [cell for cell, data in cells.items() if cell not in every
           and len(data.get("tests") or []) == STORED_TESTS and level is not None
           and float(data["tests"][-1].get("p", 1.0)) <= level]
    if cut:
        out["tests_note"] = (
            f"Potato stores only the first {STORED_TESTS} tests of a cell, and every one "
            f"of them passed for {', '.join(cut)}: its sequence went on, so the test of the "
            "threshold it certified may be missing from this list (Accord keeps every test "
            "of the looks it spends).")
    return out


def _class_labels(e: Mapping[str, Any], known: Mapping[str, Any] | None, label: str
                  ) -> int | None:
    """Labelled items of the class: Accord's count, else (a Potato record) read back
    from the people-only estimate of a uniform sample (``ppi++``: the class's share of
    the ``n`` labels), else unknown."""
    if known is not None and isinstance(known.get(label), int):
        return int(known[label])
    human = e.get("human_only")
    if label == "mean" or e.get("estimator") != "ppi++" or not isinstance(human, Mapping):
        return None
    share, n = human.get("estimate"), e.get("n")
    if not isinstance(share, int | float) or not isinstance(n, int):
        return None
    return round(float(share) * n)


def coverage_sentence(flagged: list[dict[str, Any]]) -> str:
    """What ``coverage_not_assured`` means, in one sentence naming each interval."""
    named = "; ".join(
        f"{f['label']}" + (f" in group {f['group']}" if f.get("group") is not None else "")
        + f": {f['class_labels']} label{'' if f['class_labels'] == 1 else 's'}"
        for f in flagged)
    many = len(flagged) != 1
    return (f"Coverage not assured: {len(flagged)} interval{'s' if many else ''} "
            f"rest{'' if many else 's'} on fewer than {ASSURED_CLASS_LABELS} labels of "
            f"{'their' if many else 'its'} class ({named}); the number is Potato's, as "
            "computed, but an interval on so few labels of its class covers the truth less "
            "often than its stated level (in simulations stating 94%: 75% with no label of "
            "the class, 89-92% with one or two).")


def _ppi(m: Mapping[str, Any], potato: Mapping[str, Any]) -> dict[str, Any]:
    known = (potato.get("accord") or {}).get("class_labels") or {}

    def entry(e: Mapping[str, Any], group: str, label: str) -> dict[str, Any]:
        return {"estimate": e.get("estimate"), "interval": [e.get("lo"), e.get("hi")],
                "lambda": e.get("lambda"), "n": e.get("n"), "N": e.get("N"),
                "class_labels": _class_labels(e, known.get(group), label)}

    raw = m.get("estimates") or {}
    groups = {g: {label: entry(e, g, label) for label, e in (labels or {}).items()
                  if isinstance(e, Mapping)}
              for g, labels in raw.items() if isinstance(labels, Mapping)}
    flagged = [{"group": None if g == "all" else g, "label": label,
                "class_labels": e["class_labels"]}
               for g, labels in groups.items() for label, e in labels.items()
               if isinstance(e.get("class_labels"), int)
               and e["class_labels"] < ASSURED_CLASS_LABELS]
    estimates: Any = groups.get("all", {}) if set(groups) <= {"all"} else groups
    out = {"estimates": estimates, "level": m.get("level"), "coverage_not_assured": flagged}
    if flagged:
        out["coverage_not_assured_note"] = coverage_sentence(flagged)
    return out


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
