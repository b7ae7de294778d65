"""The labeling engine's data in memory: predictions, requests with their label history.

Built by :mod:`app.core.formats.labeling.reader`. Everything is frozen; labels are the raw JSON
values of the files (a label name, a number, a list of boxes...), to be converted with
:func:`~app.core.formats.labeling.answers.to_answer` and never mutated.

An **unanswered** request has an empty ``label_history``: its ``label`` is ``None``.
An **edit** is a later line for the same request and annotator: each version is kept in
file order with its line and ``time`` (informational); the current label is the last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any


class RequestKind(StrEnum):
    CALIBRATION = "calibration"
    """Blind, drawn at random: the only labels that certify or estimate anything."""
    VERIFICATION = "verification"
    """The person saw the machine's answer: training data only."""


class Split(StrEnum):
    DEV = "dev"
    CERT = "cert"


@dataclass(frozen=True, slots=True)
class Prediction:
    """One machine label: a tier's label and confidence for one item and schema."""

    item: str
    schema: str
    tier: str
    label: Any = field(hash=False)
    confidence: float
    probs: Mapping[str, float] | None = field(default=None, hash=False)
    line: int | None = None


@dataclass(frozen=True, slots=True)
class LabelVersion:
    """One label a person gave (or edited) on a request, with the line it is on."""

    label: Any = field(hash=False)
    line: int
    time: str | float | None = None


@dataclass(frozen=True, slots=True)
class Request:
    """One engine request to one person (``annotator`` ``None``: not known).

    ``pi`` and ``split`` are set for calibration requests and may be ``None`` for
    verification ones. ``line`` is the line where the request was first written.
    """

    request: str
    item: str
    schema: str
    kind: RequestKind
    pi: float | None
    split: Split | None
    annotator: str | None
    label_history: tuple[LabelVersion, ...] = ()
    line: int | None = None

    @property
    def answered(self) -> bool:
        return bool(self.label_history)

    @property
    def label(self) -> Any:
        """The current label (the last version), or ``None`` while unanswered."""
        return self.label_history[-1].label if self.label_history else None

    @property
    def edited(self) -> bool:
        return len(self.label_history) > 1

    @property
    def calibration(self) -> bool:
        return self.kind is RequestKind.CALIBRATION


def _no_annotators() -> Mapping[str, Mapping[str, Any]]:
    return MappingProxyType({})


@dataclass(frozen=True)
class LabelingData:
    """Everything in ``labeling/``: predictions, requests and annotators' prestudy answers."""

    predictions: Sequence[Prediction] = ()
    """In file order; read from a file, a column table (``labeling_table``) that makes a
    :class:`Prediction` only when one is asked for."""
    requests: tuple[Request, ...] = ()
    annotators: Mapping[str, Mapping[str, Any]] = field(default_factory=_no_annotators, hash=False)
    _by_key: dict[tuple[str, str, str], Prediction] | None = field(
        default=None, init=False, repr=False, compare=False, hash=False)
    """Built on the first :meth:`prediction` call: ``label status`` never looks a single
    prediction up, and the index of 300,000 of them costs a third of a second."""

    # ------------------------------------------------------------------ predictions

    def prediction(self, schema: str, item: str, tier: str) -> Prediction | None:
        """The prediction of ``tier`` for ``item`` on ``schema``, if any."""
        by_key = self._by_key
        if by_key is None:
            by_key = {(p.schema, p.item, p.tier): p for p in self.predictions}
            object.__setattr__(self, "_by_key", by_key)
        return by_key.get((schema, item, tier))

    def predictions_for(self, schema: str, tier: str | None = None) -> tuple[Prediction, ...]:
        return tuple(p for p in self.predictions
                     if p.schema == schema and (tier is None or p.tier == tier))

    def predictions_by_item(self, schema: str) -> dict[str, dict[str, Prediction]]:
        """``item → tier → prediction`` for one schema."""
        out: dict[str, dict[str, Prediction]] = {}
        for p in self.predictions:
            if p.schema == schema:
                out.setdefault(p.item, {})[p.tier] = p
        return out

    # --------------------------------------------------------------------- requests

    def requests_for(self, schema: str, kind: RequestKind | None = None,
                     split: Split | None = None) -> tuple[Request, ...]:
        """Requests on ``schema``, answered or not, optionally of one kind and split."""
        return tuple(r for r in self.requests
                     if r.schema == schema and (kind is None or r.kind is kind)
                     and (split is None or r.split is split))

    def calibration_labels(self, schema: str, split: Split | None = None
                           ) -> tuple[Request, ...]:
        """Answered calibration requests on ``schema`` (of one split when given)."""
        return tuple(r for r in self.requests_for(schema, RequestKind.CALIBRATION, split)
                     if r.answered)

    def labels_by_item(self, schema: str, split: Split
                       ) -> dict[str, dict[str | None, Any]]:
        """``item → annotator → current raw label`` of the answered calibration requests."""
        out: dict[str, dict[str | None, Any]] = {}
        for r in self.calibration_labels(schema, split):
            out.setdefault(r.item, {})[r.annotator] = r.label
        return out

    def unanswered(self, schema: str | None = None) -> tuple[Request, ...]:
        """Requests drawn and not answered yet."""
        return tuple(r for r in self.requests
                     if not r.answered and (schema is None or r.schema == schema))
