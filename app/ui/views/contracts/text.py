"""The words and numbers of a contract card, per kind (``cli.md``'s ``result`` keys).

Plain functions from a :class:`~app.core.contracts.status.ContractStatus` to short
lines of rich text; no Qt, so they are easy to read and test. Annotator names (the
``per_annotator`` table of ``no_worse_than_human``, and any note naming a person) go
through ``label`` so presentation mode shows A, B, C.

Choices: rates are shown as percentages with one decimal, levels with six decimals
(the CLI's precision), p-values with three significant digits. selective_risk shows a
line per tested cell with the level its tests ran at (four significant digits); ppi says
beside its numbers when an interval rests on fewer than 3 labels of its class (the
result's ``coverage_not_assured_note``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from app.core.contracts.kinds.registry import kind_info
from app.core.contracts.labels.coverage_words import coverage_sentence
from app.core.contracts.status import ContractStatus

Label = Callable[[str], str]


def _pct(value: Any) -> str:
    return "—" if value is None else f"{float(value):.1%}"


def _num(value: Any, digits: int = 3) -> str:
    return "—" if value is None else f"{float(value):.{digits}f}"


def _interval(value: Any) -> str:
    if not value:
        return "—"
    low, high = value
    return f"[{float(low):.3f}, {float(high):.3f}]"


def looks_line(status: ContractStatus) -> str:
    confidence = status.spec.params.get("confidence")
    budget = 1.0 - (0.9 if confidence is None else float(confidence))
    if not kind_info(status.spec.kind).spends_looks and status.looks == 0:
        return "Looks: none (it tests nothing, so it spends no look)"
    return (f"Looks: {status.looks} · level spent {status.level_spent:.6f} of the error "
            f"budget {budget:g}")


def _selective_risk_lines(r: Mapping[str, Any], p: Mapping[str, Any], label: Label,
                          delivered: int | None = None, met: bool = True) -> list[str]:
    lines = [f"Target: error ≤ {p.get('error')} at confidence {p.get('confidence') or 0.9}"]
    rule = r.get("rule") or {}
    if rule:
        if _accepts_nothing(rule):
            lines.append("Rule: accepts nothing yet")
        else:
            lines.append("Rule: " + ", ".join(_rule(tier, v) for tier, v in rule.items()))
    cover = coverage_sentence(r, delivered if met else None)  # share and count, reconciled
    if cover:
        lines.append(cover + ("" if met else " (not met: no machine label is delivered "
                              "under it)"))
    tests = r.get("tests") or []
    if tests:
        passed = sum(1 for t in tests if t.get("passed"))
        last = tests[-1]
        lines.append(f"Tests: {len(tests)} ({passed} passed); last at threshold "
                     f"{last.get('threshold')}: {last.get('errors')} errors in "
                     f"{last.get('n')} cert labels, p {float(last.get('p', 0)):.3g}")
        lines.extend(_cell_test_lines(tests))
    if r.get("tests_note"):
        lines.append(str(r["tests_note"]))
    return lines


def _cell_test_lines(tests: Iterable[Mapping[str, Any]]) -> list[str]:
    """One line per tested cell: its tests, the level each ran at (the look's level over
    the tested cells), how many passed and the last threshold that passed."""
    cells: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for t in tests:
        cells.setdefault((str(t.get("tier")), str(t.get("class"))), []).append(t)
    lines = []
    for (tier, cls), run in cells.items():
        name = tier if cls in ("*", "None") else f"{tier} / {cls}"
        passed = [t for t in run if t.get("passed")]
        level = run[0].get("level")
        lines.append(
            f"{name}: {len(run)} test{'s' if len(run) != 1 else ''} at level "
            + ("—" if level is None else f"{float(level):.4g}")
            + f" each, {len(passed)} passed"
            + (f", down to threshold {passed[-1].get('threshold')}" if passed else ""))
        if passed:
            lines.append(_why_certified(name, passed[-1], next(
                (t for t in run if not t.get("passed")), None), level))
    return lines


def _why_certified(name: str, last: Mapping[str, Any], failed: Mapping[str, Any] | None,
                   level: Any) -> str:
    """Why the cell's rule sits at its threshold when the last test listed is lower and
    failed: the tests run from dev's choice down and stop at the first that fails."""
    at = f"{name} ≥ {last.get('threshold')}"
    passed = (f"{last.get('errors')} errors in {last.get('n')} cert labels, p "
              f"{float(last.get('p', 0)):.3g}")
    if failed is None:
        return (f"Why {at}: it is the lowest threshold tested ({passed}), and every test "
                "down to it passed")
    limit = "" if level is None else f" > {float(level):.4g}"
    return (f"Why {at} is certified: the tests run from dev's choice down and stop at the "
            f"first that fails; {last.get('threshold')} is the lowest that passed "
            f"({passed}); {failed.get('threshold')} failed ({failed.get('errors')} errors "
            f"in {failed.get('n')}, p {float(failed.get('p', 0)):.3g}{limit}), so the "
            "sequence ended there")


def _ppi_lines(r: Mapping[str, Any], p: Mapping[str, Any], label: Label
    ) -> list[str]:
    lines = [f"Estimand: {p.get('estimand') or 'prevalence'}"
             + (f" by {p['by']}" if p.get("by") else "")
             + f" · confidence {p.get('confidence') or 0.9}"
             + (f" · max width {p['max_width']}" if p.get("max_width") else "")
             + (f" · interval level {float(r['level']):.4f}" if r.get("level") else "")]
    raw = (r.get("potato_metrics") or {}).get("estimates") or {}
    groups = raw if p.get("by") else {"": raw.get("all", raw)}
    for group, by_label in groups.items():
        if not isinstance(by_label, Mapping):
            continue
        rows = [(name, e) for name, e in by_label.items() if isinstance(e, Mapping)]
        if not rows:
            continue
        first = rows[0][1]
        lambdas = ", ".join(f"{name} {_num(e.get('lambda'), 2)}" for name, e in rows)
        lines.append((f"{group}: " if group else "") + f"{first.get('estimator')}, "
                     f"{first.get('n')} labelled of {first.get('N')}, λ {lambdas}")
    if r.get("coverage_not_assured_note"):
        lines.append(f"<b>{r['coverage_not_assured_note']}</b>")
    return lines


def _no_worse_than_human_lines(r: Mapping[str, Any], p: Mapping[str, Any], label: Label
    ) -> list[str]:
    lines = [f"Winning rate {_pct(r.get('winning_rate'))} (needs 50%) · machine "
             f"alignment {_num(r.get('machine_alignment'))} vs people "
             f"{_num(r.get('human_alignment'))} · ε {r.get('epsilon', p.get('epsilon'))}"]
    for name, row in (r.get("per_annotator") or {}).items():
        lines.append(f"vs {label(name)}: advantage {_num(row.get('advantage'))} vs "
                     f"{_num(row.get('human_advantage'))}, p "
                     f"{float(row.get('p_value', row.get('p', 1))):.3g} (BY "
                     f"{float(row.get('p_value_adjusted', row.get('p', 1))):.3g}), "
                     f"{row.get('n_items')} items, "
                     + ("beaten" if row.get("beaten") else "not beaten"))
    return lines


def _budget_first_lines(r: Mapping[str, Any], p: Mapping[str, Any], label: Label
    ) -> list[str]:
    budget = (f"{p['human_labels']} labels" if p.get("human_labels")
              else f"{p.get('human_usd')} USD")
    lines = [f"Budget: {budget} · a projection, which spends no look"]
    for row in r.get("projection") or []:
        if isinstance(row, Mapping):
            lines.append(f"error {_pct(row.get('error'))}: "
                         f"{_pct(row.get('share_certifiable'))} certifiable at threshold "
                         f"{_threshold(row.get('threshold'))}")
    return lines


def _distributional_lines(r: Mapping[str, Any], p: Mapping[str, Any], label: Label
    ) -> list[str]:
    lines = [f"Mean JS distance {_num(r.get('mean_js'))} {_interval(r.get('interval'))}"
             f" · noise ceiling {_num(r.get('noise_ceiling'))}"
             + (f" · max {p['max_distance']}" if p.get("max_distance") is not None else "")]
    for group, row in (r.get("groups") or {}).items():
        if isinstance(row, Mapping):
            lines.append(f"{group}: {_num(row.get('mean_js'))} "
                         f"{_interval(row.get('interval'))} · ceiling "
                         f"{_num(row.get('noise_ceiling'))} · {row.get('n_items')} items")
    return lines


def _threshold_legacy_lines(r: Mapping[str, Any], p: Mapping[str, Any], label: Label
    ) -> list[str]:
    return [f"Threshold {r.get('threshold')} (uncertified) · measured error "
            f"{_pct(r.get('measured_error'))} on {r.get('n')} calibration items"]


_KEY_NUMBERS = {
    "selective_risk": _selective_risk_lines,
    "ppi": _ppi_lines,
    "no_worse_than_human": _no_worse_than_human_lines,
    "budget_first": _budget_first_lines,
    "distributional": _distributional_lines,
    "threshold_legacy": _threshold_legacy_lines,
}
"""Each kind's lines of numbers (``cli.md``'s ``result`` keys), by kind name."""


def key_numbers(status: ContractStatus, label: Label, delivered: int | None = None
                ) -> list[str]:
    """The card's lines; ``delivered``: the machine labels delivered on the contract's
    schema, which a selective_risk card reconciles with its rule's coverage."""
    if str(status.spec.kind) == "selective_risk":
        return _selective_risk_lines(status.result, status.spec.params, label, delivered,
                                     status.state == "met")
    lines = _KEY_NUMBERS.get(str(status.spec.kind))
    return [] if lines is None else lines(status.result, status.spec.params, label)


def _rule(tier: str, value: Any) -> str:
    """One tier's part of a rule: ``gemma ≥ 0.46``, ``distilbert accepts nothing``, or
    per class ``model: pos ≥ 0.90, neg accepts nothing``."""
    if isinstance(value, Mapping) and set(value) == {"*"}:
        value = value["*"]
    if isinstance(value, Mapping):
        return f"{tier}: " + ", ".join(_at(str(cls), t) for cls, t in value.items())
    return _at(tier, value)


def _at(name: str, threshold: Any) -> str:
    return f"{name} accepts nothing" if threshold is None else f"{name} ≥ {float(threshold):.4g}"


def _accepts_nothing(rule: Mapping[str, Any]) -> bool:
    """Every threshold of the rule is null (Potato's "accept nothing")."""
    values = [t for v in rule.values()
              for t in (v.values() if isinstance(v, Mapping) else [v])]
    return all(t is None for t in values)


def _threshold(value: Any) -> str:
    """A threshold, or "none" where a rule accepts nothing (Potato writes null)."""
    return "none" if value is None else f"{float(value):.2f}"


def projection_line(status: ContractStatus) -> str | None:
    """What is still needed, for a contract that is not met (Potato keeps the projection
    of a tier it did not certify in a met result; it says nothing about the met rule)."""
    if status.state == "met":
        return None
    projection = status.result.get("projection")
    if isinstance(projection, Mapping):
        if "more_cert_labels" in projection or "more_calibration_labels" in projection:
            line = (f"Still needed: {projection.get('more_cert_labels')} more cert labels "
                    f"({projection.get('more_calibration_labels')} more calibration labels)")
            if projection.get("reachable") is False:
                line += (f": not reachable, {projection.get('items_left')} items are left "
                         "to sample")
            return line
        if "cert_labels_needed" in projection:
            return (f"Still needed: {projection['cert_labels_needed']} cert labels at "
                    f"threshold {projection.get('threshold')} "
                    f"({projection.get('requests_needed')} more calibration requests)")
        if "more_items" in projection:
            return (f"Still needed: {projection['more_items']} more items with 3+ people "
                    f"({projection.get('items_needed')} in all)")
    return None


def anonymize(text: str, names: Iterable[str], label: Label) -> str:
    """``text`` with every whole-word annotator name replaced by its shown label."""
    for name in sorted(names, key=len, reverse=True):
        shown = label(name)
        if shown != name:
            text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", shown, text)
    return text


def accepted_line(accepted: Mapping[str, Mapping[str, Mapping[str, int]]]) -> str:
    parts = []
    for schema, entry in accepted.items():
        by_source = entry.get("by_source") or {}
        counts = ", ".join(f"{source} {n}" for source, n in sorted(by_source.items()))
        parts.append(f"{schema}: {counts or 'none'}")
    return "Machine labels accepted, by source: " + ("; ".join(parts) or "none")
