"""Agreement results as data: what the CLI prints, the GUI shows and the PDF states.

One object per scheme, one per report; :meth:`to_json` gives exactly the keys of
``cli.md`` (``accord agreement --json``). Every metric is a float or ``None``; a
``None`` always has its sentence in ``undefined``. NaN cannot get in: the
:class:`~app.core.agreement.coefficient.Coefficient` refuses it at the source.

Beyond ``cli.md`` (extra keys only, none renamed):

- ``coverage`` per scheme: items answered, items scored, items with one annotator,
  scored items below their ``num_annotators_per_item`` cap;
- ``n_units`` for traces (also in ``metrics``, where ``cli.md`` lists it);
- ``kappa_pairs``: how many annotator pairs the mean κ is over, and how many were left
  out as undefined;
- ``categorical_reference`` for traces: the α the same annotators reach on a simpler
  categorical scheme of the study, to read step-level α against;
- ``not_computed``: a sentence, for kinds that a later part of Accord computes;
- ``potato_iaa`` for an image scheme: the numbers Potato 2.12.1's ``/admin/iaa`` shows
  where they differ from Accord's (:mod:`app.core.agreement.regions.potato_reading`),
  with a note saying why.

With machine raters (:mod:`app.core.agreement.partitions`), and only then, the report's
top level also has ``annotators`` (who is a person, who a machine), ``partitions``
(``human_human``, ``machine_machine``, ``pooled``: each with its ``coverage``, its
``annotators`` and its ``schemes``) and ``pooling`` (the headline is ``human_human``,
and why). Keys are added, none renamed: a study without machine raters keeps its JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.core.agreement.coefficient import Coefficient


@dataclass(slots=True)
class SchemeResult:
    name: str
    annotation_type: str
    kind: str | None
    metrics: dict[str, float | int | None] = field(default_factory=dict)
    undefined: dict[str, str] = field(default_factory=dict)
    intervals: dict[str, list[float]] = field(default_factory=dict)
    pairs: dict[str, dict[str, float | int | None]] = field(default_factory=dict)
    n_items: int = 0
    n_pairs: int = 0
    n_items_skipped: int = 0
    coverage: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    not_computed: str | None = None
    details: Any = None
    """What the views draw (pair outcomes, matches, STAPLE runs); never serialized."""

    def put(self, name: str, coefficient: Coefficient) -> None:
        """Record a metric; an undefined one as ``None`` with its reason."""
        self.metrics[name] = coefficient.value
        if coefficient.reason is not None:
            self.undefined[name] = coefficient.reason
        else:
            self.undefined.pop(name, None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"annotation_type": self.annotation_type, "kind": self.kind}
        if self.not_computed is not None:
            out["not_computed"] = self.not_computed
            out["notes"] = list(self.notes)
            return out
        out.update(
            n_items=self.n_items,
            n_pairs=self.n_pairs,
            n_items_skipped=self.n_items_skipped,
        )
        out.update(self.extra)
        out.update(
            metrics=dict(self.metrics),
            intervals={k: list(v) for k, v in self.intervals.items()},
            undefined=dict(self.undefined),
            pairs={k: dict(v) for k, v in sorted(self.pairs.items())},
            coverage=dict(self.coverage),
            notes=list(self.notes),
        )
        return out


@dataclass(slots=True)
class AgreementReport:
    project: str
    n_items: int
    n_annotators: int
    schemes: dict[str, SchemeResult]
    notes: list[str] = field(default_factory=list)
    version: str = "0.1.0"
    partitions: dict[str, AgreementReport] = field(default_factory=dict)
    """``human_human``, ``machine_machine``, ``pooled`` when the study has machine raters
    (the headline ``schemes`` are ``human_human``'s); else empty."""
    annotators: dict[str, Any] | None = None
    """People and machine raters (``n_human``, ``n_machine``, ``human``, ``machine``,
    ``machine_detail``) when the study has machine raters; else ``None``."""
    pooling: dict[str, str] | None = None
    """Which partition the headline is, and why (with ``partitions``)."""
    members: tuple[str, ...] = ()
    """A partition's annotators (set on the partitions only)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "accord_version": self.version,
            "project": self.project,
            "coverage": {"n_items": self.n_items, "n_annotators": self.n_annotators},
            "schemes": {name: s.to_json() for name, s in self.schemes.items()},
        }
        if self.notes:
            out["notes"] = list(self.notes)
        if self.annotators is not None:
            out["annotators"] = dict(self.annotators)
        if self.partitions:
            out["partitions"] = {name: part.partition_json()
                                 for name, part in self.partitions.items()}
        if self.pooling is not None:
            out["pooling"] = dict(self.pooling)
        return out

    def partition_json(self) -> dict[str, Any]:
        """One partition: its raters, its coverage and its schemes."""
        return {"coverage": {"n_items": self.n_items, "n_annotators": self.n_annotators},
                "annotators": list(self.members),
                "schemes": {name: s.to_json() for name, s in self.schemes.items()}}


def pair_key(a: str, b: str) -> str:
    """Annotator pairs are keyed ``"a|b"`` with the two names sorted (``cli.md``)."""
    first, second = sorted((a, b))
    return f"{first}|{second}"
