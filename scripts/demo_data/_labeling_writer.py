"""Shared pieces of the labeling-engine demos written by ``make_labeling_demos.py``.

The Potato half of each demo (``config.yaml``, data, ``annotation_output/``) is written
with :mod:`_potato_writer`, like every other demo. This module writes the other half,
the ``labeling/`` folder that ``contracts.md`` (Data) describes: machine predictions,
the engine's requests to people with their answers, and annotators' prestudy answers.
It also holds the few statistics the generator needs to *describe* its own output in the
README (exact match counts, a classical interval) without importing ``app``: the demos
must be regenerable from a bare checkout, and the tests cross-check these numbers
against the engine's own functions.

Determinism follows ``_potato_writer``: every number written is rounded first, time
stamps are fixed instants, and dictionaries are built in a fixed key order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import _potato_writer as pw

LABELING = "labeling"


@dataclass(frozen=True)
class Answer:
    """One person's answer to one engine request; ``edit_of`` is the label it replaced
    (the person first answered that, then corrected it on a later line)."""

    annotator: str
    label: Any
    edit_of: Any = None


@dataclass(frozen=True)
class Draw:
    """One engine request line (or several, once answered).

    ``kind`` is ``calibration`` (blind, drawn with inclusion probability ``pi``, sent to
    ``split``) or ``verification`` (the person saw the machine's answer; no ``pi`` or
    ``split``). ``answer`` ``None`` is a request drawn and not answered yet.
    """

    request: str
    item: str
    schema: str
    kind: str
    pi: float | None
    split: str | None
    answer: Answer | None


def prediction(item: str, schema: str, tier: str, label: Any, confidence: float,
               probs: Mapping[str, float] | None = None) -> dict[str, Any]:
    """One ``predictions.jsonl`` line; confidences and probabilities rounded to 4 places
    so a platform's last-bit difference cannot reach the file."""
    line: dict[str, Any] = {"item": item, "schema": schema, "tier": tier, "label": label,
                            "confidence": round(confidence, 4)}
    if probs is not None:
        line["probs"] = {k: round(v, 4) for k, v in probs.items()}
    return line


def spread_probs(label: str, confidence: float, labels: Sequence[str], dice: pw.Dice
                 ) -> dict[str, float]:
    """A softmax-like distribution with ``confidence`` on ``label`` and the rest shared
    unevenly among the others, summing to at most 1 after rounding (the reader refuses
    more than 1)."""
    others = [x for x in labels if x != label]
    weights = [0.2 + dice.unit() for _ in others]
    rest = max(0.0, 1.0 - round(confidence, 4))
    probs = {label: round(confidence, 4)}
    for name, w in zip(others, weights, strict=True):
        probs[name] = math.floor(rest * w / sum(weights) * 10000) / 10000
    return {x: probs[x] for x in labels}


def iso(base: datetime, seconds: float) -> str:
    """A fixed, readable time stamp ``seconds`` after ``base`` (whole seconds)."""
    return (base + timedelta(seconds=round(seconds))).strftime("%Y-%m-%dT%H:%M:%SZ")


def request_lines(draws: Iterable[Draw], base: datetime, dice: pw.Dice) -> list[dict[str, Any]]:
    """``requests.jsonl`` in file order: each request's answer line (or its bare draw line
    while unanswered), an edit as a second line for the same request and annotator with
    a later ``time``, after the first answers, as a correction would come in."""
    lines: list[dict[str, Any]] = []
    edits: list[dict[str, Any]] = []
    clock = 0.0
    for d in draws:
        head: dict[str, Any] = {"request": d.request, "item": d.item, "schema": d.schema,
                                "kind": d.kind}
        if d.pi is not None:
            head["pi"] = d.pi
        if d.split is not None:
            head["split"] = d.split
        clock += 20 + 70 * dice.unit()
        if d.answer is None:
            lines.append(head | {"time": iso(base, clock)})
            continue
        first = d.answer.label if d.answer.edit_of is None else d.answer.edit_of
        lines.append(head | {"annotator": d.answer.annotator, "label": first,
                             "time": iso(base, clock)})
        if d.answer.edit_of is not None:
            edits.append(head | {"annotator": d.answer.annotator, "label": d.answer.label})
    for e in edits:
        clock += 600
        lines.append(e | {"time": iso(base, clock)})
    return lines


def write_labeling(out_dir: Path, predictions: Sequence[Mapping[str, Any]],
                   requests: Sequence[Mapping[str, Any]],
                   annotators: Sequence[Mapping[str, Any]] = ()) -> None:
    """The project's ``labeling/`` folder: the engine's state in Accord's JSON Lines (its
    configuration is the ``labeling_engine:`` block of ``config.yaml``; no
    ``ledger.jsonl``: only Accord writes that)."""
    folder = out_dir / LABELING
    pw.write_jsonl(folder / "predictions.jsonl", predictions)
    pw.write_jsonl(folder / "requests.jsonl", requests)
    if annotators:
        pw.write_jsonl(folder / "annotators.jsonl", annotators)


# ------------------------------------------------------------------- Potato output


def radio_pair(schema: str, label: str) -> list[Any]:
    """A radio answer as Potato 2.x stores it: the chosen label name with a true value."""
    return [{"schema": schema, "name": label}, True]


def named_pair(schema: str, answer: Any) -> list[Any]:
    """A trace answer: one JSON string under the scheme's own name."""
    return [{"schema": schema, "name": schema}, pw.compact(answer)]


def select(when: float, schema: str, label: str) -> dict[str, Any]:
    """The ``annotation_changes`` entry of a radio click."""
    return {"timestamp": round(when, 3), "schema_name": schema, "label_name": label,
            "old_label": None, "action": "select", "old_value": None, "new_value": True,
            "source": "user", "phase": None, "page": None}


def potato_state(name: str, items: Sequence[str], pairs: Mapping[str, list[list[Any]]],
                 start: float, seconds: tuple[float, float], dice: pw.Dice) -> dict[str, Any]:
    """An annotator's ``user_state.json`` with the given answers, one session per item
    (each pair also recorded as a change a little before the session ends)."""
    behaviours: dict[str, dict[str, Any]] = {}
    for item, begin, end in pw.sessions(dice, start, items, seconds):
        changes = []
        for k, (key, value) in enumerate(pairs[item]):
            when = end - (len(pairs[item]) - k) * 1.5
            if value is True:
                changes.append(select(when, key["schema"], key["name"]))
            else:
                changes.append(pw.change(when, key["schema"], value) | {"label_name": key["name"]})
        behaviours[item] = pw.behaviour(item, begin, end, changes)
    return pw.user_state(name, items, {i: pairs[i] for i in items}, behaviours)


# ----------------------------------------------------------------------- statistics


def normal_quantile(p: float) -> float:
    """Φ⁻¹(p) by bisection on ``math.erf`` (enough digits for a README, no scipy)."""
    lo, hi = -10.0, 10.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def classical_interval(successes: int, n: int, confidence: float) -> tuple[float, float, float]:
    """Mean and normal interval of a proportion from people alone (PPI with λ = 0)."""
    p = successes / n
    half = normal_quantile(0.5 + confidence / 2) * math.sqrt(p * (1 - p) / n)
    return p, p - half, p + half


def box_iou(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """IoU of two ``{x, y, width, height}`` boxes."""
    x0, y0 = max(a["x"], b["x"]), max(a["y"], b["y"])
    x1 = min(a["x"] + a["width"], b["x"] + b["width"])
    y1 = min(a["y"] + a["height"], b["y"] + b["height"])
    inter = max(0.0, x1 - x0) * max(0.0, y1 - y0)
    union = a["width"] * a["height"] + b["width"] * b["height"] - inter
    return inter / union if union > 0 else 0.0


def set_score(a: Sequence[Mapping[str, float]], b: Sequence[Mapping[str, float]],
              threshold: float = 0.5) -> float:
    """The agreement report's item score of two box sets of one label (greedy matching at
    IoU ≥ ``threshold``; summed IoU of the matches over matched + unmatched; two empty
    sets agree). The region loss is one minus this."""
    if not a and not b:
        return 1.0
    pairs = sorted(((box_iou(p, q), i, j) for i, p in enumerate(a) for j, q in enumerate(b)),
                   reverse=True)
    used_a: set[int] = set()
    used_b: set[int] = set()
    credit = 0.0
    for iou, i, j in pairs:
        if iou >= threshold and i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            credit += iou
    matched = len(used_a)
    return credit / (matched + (len(a) - matched) + (len(b) - matched))


def now_base(year: int, month: int, day: int) -> datetime:
    """The fixed instant a demo's engine starts drawing requests."""
    return datetime(year, month, day, 9, 0, tzinfo=UTC)
