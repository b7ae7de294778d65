"""What each contract concluded, by meaning: its badge and its one-line result.

One green MET for everything told a client that a budget plan (which promises nothing)
and a legacy threshold (which accepts labels without a test) were as good as a
certified selective-risk contract. The badge says what a met contract *means*, read
from the kind registry (:mod:`app.core.contracts.kinds.registry`), never from the
kind's name:

- ``certifies is False`` (labels accepted without a test): **UNCERTIFIED RULE**, amber,
  whatever its state;
- ``insufficient`` (too few labels to decide; nothing failed): **NOT DECIDED YET**, with
  the state beneath it in its colour, never under NOT MET (issue 35: a lead read NOT MET
  as a failed test);
- another state other than ``met``: **NOT MET**, with the state (violated, infeasible,
  stale) beneath it, in that state's colour;
- met and ``certifies``: **CERTIFIED**, green;
- met, an estimate that spends looks (``certifies is None``, ``spends_looks``):
  **ESTIMATE MET**, blue;
- met, neither spending looks nor gating: **PLAN**, grey (a projection).

:func:`result_line` is the contract's headline number in words, for the summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.core.contracts.kinds.registry import KINDS, KindInfo
from app.core.contracts.labels.coverage_words import coverage_sentence
from app.report.html_parts import STATE_COLOURS, e, interval, num, pct
from app.report.ppi_rows import estimate_groups


@dataclass(frozen=True, slots=True)
class Verdict:
    word: str
    colour: str
    group: str
    """certified, estimate, plan, uncertified, undecided or not met: the summary counts
    by it."""


GROUPS = ("certified", "estimate", "plan", "uncertified", "undecided", "not met")


def verdict(kind: object, state: object) -> Verdict:
    """The badge of a contract of ``kind`` in ``state`` (see the module docstring)."""
    info = KINDS.get(str(kind), KindInfo(str(kind)))
    state = str(state)
    if info.certifies is False:
        return Verdict("UNCERTIFIED RULE", "#b26a00", "uncertified")
    if state == "insufficient":
        return Verdict("NOT DECIDED YET", STATE_COLOURS[state], "undecided")
    if state != "met":
        return Verdict("NOT MET", STATE_COLOURS.get(state, "#57606a"), "not met")
    if info.certifies:
        return Verdict("CERTIFIED", "#1b7f3b", "certified")
    if info.spends_looks:
        return Verdict("ESTIMATE MET", "#1f5fa8", "estimate")
    return Verdict("PLAN", "#57606a", "plan")


def badge_html(kind: object, state: object) -> str:
    """The badge; a contract not met has its state beneath it, in the state's colour."""
    v = verdict(kind, state)
    word = e(v.word).replace(" ", "&nbsp;")  # a badge never wraps
    under = (
        f'<br/><span style="color:{v.colour}; font-size:8pt;">{e(state)}</span>'
        if v.group in ("not met", "undecided")
        else ""
    )
    return (
        f'<span style="background-color:{v.colour}; color:#ffffff; font-weight:bold; '
        f'font-size:8pt;">&nbsp;{word}&nbsp;</span>{under}'
    )


def _accepted_line(
    contract: Mapping[str, Any], result: Mapping[str, Any], delivered: int | None
) -> str:
    tests = result.get("tests") or []
    passed = sum(1 for t in tests if isinstance(t, Mapping) and t.get("passed"))
    if contract.get("state") == "met":
        both = coverage_sentence(result, delivered)  # coverage and delivery, reconciled
        return (
            (e(both) if both else f"{num(delivered)} machine labels delivered; the rule "
             f"covers {pct(result.get('coverage'))} of the items")
            + f"; {num(passed)} of {num(len(tests))} tests passed"
        )
    projection = result.get("projection") or {}
    if isinstance(projection, Mapping) and projection.get("more_cert_labels") is not None:
        return (
            f"nothing certified yet; about {num(projection.get('more_cert_labels'))} "
            "more cert labels needed"
        )
    return "nothing certified"


def result_line(contract: Mapping[str, Any], delivered: int | None = None) -> str:
    """The contract's headline figures as escaped HTML (one short sentence);
    ``delivered`` is the number of machine labels delivered on its schema."""
    result: Mapping[str, Any] = contract.get("result") or {}
    info = KINDS.get(str(contract.get("kind")), KindInfo(str(contract.get("kind"))))
    if "mean_js" in result:
        limit = (contract.get("parameters") or {}).get("max_distance")
        return (
            f"distance {num(result.get('mean_js'))} {interval(result.get('interval'))}"
            + (f", limit {num(limit)}" if limit is not None else "")
            + f"; {num(result.get('n_items'))} items"
        )
    if "winning_rate" in result:
        return (
            f"winning rate {num(result.get('winning_rate'))} (passes at 0.500); "
            f"{num(len(result.get('per_annotator') or {}))} people compared"
        )
    if "estimates" in result:
        widths = [
            iv[1] - iv[0]
            for _, labels in estimate_groups(result)
            for v in labels.values()
            if isinstance(v, Mapping)
            and isinstance(iv := v.get("interval"), list)
            and None not in iv
        ]
        few = len(result.get("coverage_not_assured") or [])
        return (
            f"{num(len(widths))} intervals, the widest {num(max(widths))}"
            + (f"; {num(few)} on fewer than 3 labels of its class: coverage not assured"
               if few else "")
            if widths
            else "no estimates yet"
        )
    if info.certifies is False:
        measured = result.get("measured_error")
        return (
            f"measured error {pct(measured)} on {num(result.get('n'))} calibration items; no test"
            if measured is not None
            else e(result.get("measured_error_reason") or "error not measurable")
        )
    if info.gates:
        return _accepted_line(contract, result, delivered)
    projection = result.get("projection")
    if isinstance(projection, list) and projection:
        best = max(projection, key=lambda r: r.get("share_certifiable") or 0.0)
        return (
            f"up to {pct(best.get('share_certifiable'))} certifiable at error "
            f"{pct(best.get('error'), 0)} (a projection)"
        )
    return "—"
