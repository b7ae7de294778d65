"""Consensus of categorical answers: nominal, ordinal, multilabel and trace steps.

One row per unit: an item for nominal, ordinal and multilabel schemes, one step of one
trace for the trace schemes (the units of the agreement, :mod:`..categorical.units`).

**Majority** (the default ``method``). The consensus is the label given by the most
annotators of the unit (a plurality: 2 of 4 wins over 1 and 1). When two or more labels
share the most votes there is no consensus: ``"consensus": null``, ``"tie"`` names the
tied labels (sorted) and ``"reason"`` says so in a sentence. Nothing breaks the tie
silently (Potato's ``majority`` gives it to the first person asked; an export a lead
adjudicates from should show the tie instead). Ordinal schemes take the same rule: the
most frequent value, not a median, since the consensus must be a value someone gave.

**Dawid–Skene** (``method="dawid_skene"``). The EM of Dawid and Skene (1979) as Potato
2.12.1's ``inference`` fits it (:func:`app.core.contracts.potato_method.truth.dawid_skene`,
proved equal to Potato's in its tests; no second EM is written here), fitted once per
scheme over every unit's labels, so a careless annotator's vote counts for less. It
names no ties: a posterior tie goes to the first class in text order, Potato's rule.
Multilabel answers have no single class and keep the per-label majority below.

**Multilabel** (either method). Each label is decided on its own by a strict majority
of the unit's annotators: in the consensus set when more than half chose it; at exactly
half it is a tie (listed in ``"tie"``, left out of the set); below half it is out. The
consensus set is then given (possibly empty) even with ties, and ``"votes"`` has each
label's voters.

**A unit one annotator answered** has no consensus (``null`` and the reason): one
person's label is an answer, not an agreement. Its label still informs Dawid–Skene's
estimate of that person's error rates.

``agreed_by`` lists the annotators whose whole answer equals the consensus (for a tie or
no consensus: nobody); ``answers`` is every annotator's answer, so a row can be checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.core.agreement.categorical.units import Row, categorical_rows, trace_rows
from app.core.contracts.potato_method.truth import dawid_skene
from app.core.model import Answer, Kind

METHODS = ("majority", "dawid_skene")
ONE_ANNOTATOR = "answered by one annotator only: a consensus needs two or more"
TIE = "the labels in 'tie' share the most votes: no majority"


def categorical_rows_of(
    scheme: str, kind: Kind, answers: Mapping[str, Mapping[str, Answer]], method: str = "majority"
) -> list[dict[str, Any]]:
    """Every unit's consensus row for one categorical scheme (see the module)."""
    if method not in METHODS:
        raise ValueError(f"unknown consensus method {method!r}; expected one of {METHODS}")
    units = trace_rows(answers) if kind is Kind.TRACE else categorical_rows(answers)
    if kind is Kind.MULTILABEL:
        return [_multilabel_row(scheme, unit) for unit in units]
    fitted = _dawid_skene(units) if method == "dawid_skene" else None
    return [_single_row(scheme, kind, unit, method, fitted) for unit in units]


def _unit_key(item: str, step: str) -> str:
    return f"{item}\x1f{step}"


def _dawid_skene(units: list[Row]) -> dict[str, str]:
    observations = [
        (str(who), _unit_key(item, step), str(label))
        for item, step, by in units
        for who, label in by.items()
    ]
    return dawid_skene(observations)


def _base(
    scheme: str, kind: Kind, item: str, step: str, method: str, by: Mapping[str, object]
) -> dict[str, Any]:
    row: dict[str, Any] = {"item": item, "scheme": scheme, "kind": kind.value}
    if kind is Kind.TRACE:
        row["step"] = step
    row["method"] = method
    row["n_annotators"] = len(by)
    return row


def _single_row(
    scheme: str, kind: Kind, unit: Row, method: str, fitted: dict[str, str] | None
) -> dict[str, Any]:
    item, step, by = unit
    row = _base(scheme, kind, item, step, method, by)
    votes: dict[str, list[str]] = {}
    for who in sorted(by):
        votes.setdefault(str(by[who]), []).append(who)
    if len(by) < 2:
        row.update(consensus=None, agreed_by=[], reason=ONE_ANNOTATOR)
    elif fitted is not None:
        label = fitted[_unit_key(item, step)]
        row.update(consensus=label, agreed_by=votes.get(label, []))
    else:
        best = max(len(v) for v in votes.values())
        top = sorted(label for label, voters in votes.items() if len(voters) == best)
        if len(top) > 1:
            row.update(consensus=None, agreed_by=[], tie=top, reason=TIE)
        else:
            row.update(consensus=top[0], agreed_by=votes[top[0]])
    row["votes"] = {label: votes[label] for label in sorted(votes)}
    row["answers"] = {who: str(by[who]) for who in sorted(by)}
    return row


def _multilabel_row(scheme: str, unit: Row) -> dict[str, Any]:
    item, step, by = unit
    row = _base(scheme, Kind.MULTILABEL, item, step, "majority", by)
    sets = {
        who: frozenset(str(x) for x in value)
        if isinstance(value, frozenset)
        else frozenset({str(value)})
        for who, value in by.items()
    }
    votes: dict[str, list[str]] = {}
    for who in sorted(sets):
        for label in sorted(sets[who]):
            votes.setdefault(label, []).append(who)
    n = len(sets)
    if n < 2:
        row.update(consensus=None, agreed_by=[], reason=ONE_ANNOTATOR)
    else:
        chosen = frozenset(label for label, voters in votes.items() if 2 * len(voters) > n)
        tied = sorted(label for label, voters in votes.items() if 2 * len(voters) == n)
        row["consensus"] = sorted(chosen)
        row["agreed_by"] = sorted(who for who, s in sets.items() if s == chosen)
        if tied:
            row["tie"] = tied
            row["reason"] = (
                f"the labels in 'tie' were chosen by exactly half of the {n} "
                "annotators and are left out of the consensus"
            )
    row["votes"] = {label: votes[label] for label in sorted(votes)}
    row["answers"] = {who: sorted(sets[who]) for who in sorted(sets)}
    return row
