"""The scheduler: when Accord certifies on its own as labels arrive (``contracts.md``, Looks).

The GUI watches the project and asks for the labeling report with ``schedule=True``;
this module decides, from what the ledger recorded at the last test and what the
labeling files hold now, whether a contract is **due**. The engine
(:mod:`app.core.contracts.engine`) runs what is due and records it. Everything here is
pure: counts, fingerprints and decisions, no files.

The rules (each one tested in ``tests/core/test_scheduler.py``):

- **Milestone**: labels have grown by a quarter *and* by at least ten since the last
  test (``grown >= before / 4`` and ``grown >= 10``, exact integers).
- ``selective_risk`` **never tested** and testable now: tested (a state reached without
  a test, ``pending``/``insufficient``/``infeasible``, spends nothing and is not
  recorded, so it is tested as soon as a test would run).
- ``selective_risk`` **unmet**: tested again at the milestone, counting the contract's
  cert labels (every cert label on its schema) since its last test. An **edited** cert
  label counts as one label, like a new one ("costs no more than a new label").
- ``selective_risk`` **met**: stays met for its cascade; the scheduler does not retest
  it (an explicit certify does when its data changed). The audit watches it instead
  (:func:`app.core.contracts.kinds.selective_audit.audit`).
- A new machine (other tier names, or other predictions on the schema) is a new
  cascade: tested at the next look, met or not.
- **Edits** (a cert label whose fingerprint changed since the last test): if none of
  the stored result's tests sees more errors after the edit, the result and its look
  stand. Otherwise the scheduler waits until the labels answered after the first edit
  reach the milestone counted from the labels answered before it (so a wave of
  corrections becomes one test; corrections themselves do not count towards this
  milestone, or the wave would trigger itself), or until the calibration sample is
  complete; meanwhile the stored result (and what it accepts) stands, with a note.
- **Estimates** (``ppi``, ``distributional``, ``no_worse_than_human``) are re-estimated
  at the same milestones counted on their **dev** labels (what they read), and once
  more when the calibration sample is complete; in between the stored estimate is
  shown. The estimate is recorded in the ledger as an ``estimate`` event (no look).

**Complete** (a choice where the spec is silent on the details): the calibration
sample of a schema is complete when at least one calibration request has been drawn on
it and every drawn calibration request on it has a label. It can become incomplete
again when more requests are drawn.

Fingerprints: a cert label is keyed by ``item`` and person (the annotator, or
``request:<id>`` when unnamed, as :mod:`app.core.contracts.labels.schema_data` keys them) and
fingerprinted by the first 16 hex digits of the SHA-256 of its canonical JSON; the
snapshot of all of them is stored with each look the engine records.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.core.contracts.kinds.base import HumanLabel
from app.core.contracts.kinds.selective_risk_groups import answer_json
from app.core.contracts.ledger.format import canonical_json
from app.core.formats.labeling.data import LabelingData, RequestKind, Split

MILESTONE_MIN = 10
"""A milestone needs at least this many more labels."""
MILESTONE_DENOMINATOR = 4
"""… and at least ``before / 4`` more (a quarter)."""
SCHEDULER_KEY = "scheduler"
"""Key of the scheduler's bookkeeping in a look's ledger record (never shown)."""
ESTIMATE_EVENT = "estimate"
"""Ledger event name of a scheduled estimate."""


def milestone_reached(before: int, now: int) -> bool:
    """Whether ``now`` labels are a quarter more than ``before``, and at least ten more."""
    grown = now - before
    return grown >= MILESTONE_MIN and MILESTONE_DENOMINATOR * grown >= before


def next_milestone(before: int) -> int:
    """The smallest label count at which :func:`milestone_reached` holds."""
    return before + max(MILESTONE_MIN, math.ceil(before / MILESTONE_DENOMINATOR))


# --------------------------------------------------------------------- fingerprints


def label_key(item: str, person: str) -> str:
    return f"{item}\x1f{person}"


def fingerprint(value: Any) -> str:
    return hashlib.sha256(canonical_json(value)).hexdigest()[:16]


def snapshot(labels: Mapping[str, tuple[HumanLabel, ...]]) -> dict[str, str]:
    """``label key → fingerprint`` of every current label in ``labels`` (item → people)."""
    return {label_key(item, h.annotator): fingerprint(answer_json(h.label))
            for item, humans in labels.items() for h in humans}


@dataclass(frozen=True, slots=True)
class Changes:
    """What changed between a stored snapshot and now."""

    new: frozenset[str]
    edited: frozenset[str]
    removed: frozenset[str]

    @property
    def edits(self) -> frozenset[str]:
        """Edited labels, and labels gone since (a removed label changed the data too)."""
        return self.edited | self.removed

    @property
    def grown(self) -> int:
        """Growth for a milestone: each new or edited label counts once."""
        return len(self.new) + len(self.edited) + len(self.removed)


def changes(before: Mapping[str, str], now: Mapping[str, str]) -> Changes:
    return Changes(
        new=frozenset(k for k in now if k not in before),
        edited=frozenset(k for k in now if k in before and before[k] != now[k]),
        removed=frozenset(k for k in before if k not in now))


# ------------------------------------------------------------------ label history


def calibration_complete(labeling: LabelingData, schema: str) -> bool:
    """Every drawn calibration request on ``schema`` is answered (and there is one)."""
    drawn = labeling.requests_for(schema, RequestKind.CALIBRATION)
    return bool(drawn) and all(r.answered for r in drawn)


@dataclass(frozen=True, slots=True)
class History:
    """When each current label of one split was first answered, and its versions."""

    first_line: Mapping[str, int]
    versions: Mapping[str, tuple[tuple[int, str], ...]]
    """label key → ((line, fingerprint), …) in file order."""


def history(labeling: LabelingData, schema: str, split: Split) -> History:
    first: dict[str, int] = {}
    versions: dict[str, list[tuple[int, str]]] = {}
    for r in labeling.calibration_labels(schema, split):
        key = label_key(r.item, r.annotator or f"request:{r.request}")
        for v in r.label_history:
            versions.setdefault(key, []).append((v.line, fingerprint(v.label)))
        line = r.label_history[0].line
        first[key] = min(first.get(key, line), line)
    return History(first, {k: tuple(sorted(v)) for k, v in versions.items()})


def first_edit_line(hist: History, before: Mapping[str, str], edited: frozenset[str]
                    ) -> int | None:
    """The line of the earliest edit among ``edited`` since the snapshot ``before``.

    For one label: the first version after one matching the stored fingerprint that
    differs from it (or its first version when none matched). ``None``: no line known.
    """
    lines: list[int] = []
    for key in edited:
        seen = False
        for line, fp in hist.versions.get(key, ()):
            if fp == before.get(key):
                seen = True
            elif seen:
                lines.append(line)
                break
        else:
            if not seen and hist.versions.get(key):
                lines.append(hist.versions[key][0][0])
    return min(lines) if lines else None


def wave_counts(hist: History, line: int | None, total: int) -> tuple[int, int]:
    """(labels answered before the first edit, labels answered after it)."""
    if line is None:
        return total, 0
    before = sum(1 for first in hist.first_line.values() if first < line)
    return before, sum(1 for first in hist.first_line.values() if first > line)


# ---------------------------------------------------------------------- decisions


@dataclass(frozen=True, slots=True)
class Due:
    test: bool
    note: str | None = None


@dataclass(frozen=True, slots=True)
class LastTest:
    """What the ledger says about a contract's latest look."""

    look: int
    state: str
    cert_labels: int


def selective_due(last: LastTest | None, *, now_labels: int, change: Changes,
                  more_errors: bool, new_machine: bool, wave: tuple[int, int],
                  complete: bool) -> Due:
    """Whether the scheduler tests a ``selective_risk`` contract whose test would run.

    ``more_errors``: some test of the stored result sees more errors after the edits.
    ``wave``: (labels before the first edit, labels answered after it).
    """
    if last is None:
        return Due(True, "tested by the scheduler: the first test this contract could run")
    if new_machine:
        return Due(True, "tested by the scheduler: the cascade or its predictions changed "
                         f"since look {last.look}")
    if change.edits and more_errors:
        base, after = wave
        if complete:
            return Due(True, "tested by the scheduler: edited cert labels add errors and the "
                             "calibration sample is complete")
        if milestone_reached(base, base + after):
            return Due(True, "tested by the scheduler: the labels grew by a quarter (and at "
                             "least ten) since the first edit")
        stays = "; accepted labels stay accepted meanwhile" if last.state == "met" else ""
        return Due(False, f"{len(change.edits)} cert label(s) were edited since look "
                          f"{last.look} and the edits add errors to its tests: the scheduler "
                          f"tests again at {next_milestone(base)} labels ({base + after} now) "
                          "or when the calibration sample is complete; 'accord label "
                          f"certify' tests at look {last.look + 1}{stays}")
    if last.state == "met":
        return Due(False, None)
    if milestone_reached(last.cert_labels, last.cert_labels + change.grown):
        return Due(True, f"tested by the scheduler: the cert labels grew from "
                         f"{last.cert_labels} by {change.grown} (a quarter and at least ten)")
    return Due(False, f"unmet at look {last.look} on {last.cert_labels} cert labels; the "
                      f"scheduler tests again at {next_milestone(last.cert_labels)} "
                      f"({now_labels} now, {change.grown} new or edited)")


def estimate_due(stored: Mapping[str, Any] | None, *, dev_labels: int, complete: bool,
                 params: str) -> bool:
    """Whether the scheduler re-estimates: no stored estimate, other parameters, the
    milestone on dev labels, or the calibration sample newly complete."""
    if stored is None or stored.get("params") != params:
        return True
    before = int(stored.get("dev_labels", 0))
    if milestone_reached(before, dev_labels):
        return True
    return complete and not bool(stored.get("complete"))
