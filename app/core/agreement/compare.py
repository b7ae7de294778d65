"""Two pilot rounds side by side (``accord compare A B``; ``agreement.md``, Pilot rounds).

Per scheme present in both rounds: ``mean_agreement``, ``mean_object_count_diff`` and
``n_pairs`` with their intervals, and one sentence on what moved. A change counts as a
move only when the two rounds' bootstrap intervals do not overlap (a choice: the spec
says what a drop or a rise *means*, not when it is real). The reading:

- agreement fell, count difference steady → placement (box tightness, boundaries);
- count difference rose → what counts as an object or event;
- agreement rose with the count difference steady or falling → the guidelines helped.

Categorical and trace schemes are compared on α and ``n_pairs`` (α has no interval yet,
so no sentence is claimed for them beyond the numbers); matrix schemes on their pooled α,
number schemes on interval α and ICC(2,k), rankings on Kendall's τ and the footrule,
span schemes on γ and partial and exact span F1, also without a sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.core.agreement.result import AgreementReport, SchemeResult

SET_KIND_NAMES = frozenset({"cuboids", "segments", "tiers", "regions"})
RATED: tuple[tuple[str, ...], ...] = (
    ("alpha",), ("alpha_interval", "icc_2_k"), ("kendall_tau", "spearman_footrule"),
    ("gamma_mathet", "span_f1_partial", "span_f1_exact"))
"""What the other schemes are compared on: the first whose headline the scheme has."""


@dataclass(frozen=True, slots=True)
class Comparison:
    a: AgreementReport
    b: AgreementReport
    schemes: dict[str, dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"accord_version": self.a.version, "a": self.a.project, "b": self.b.project,
                "schemes": self.schemes}


def _side(result: SchemeResult, names: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {name: result.metrics.get(name) for name in names}
    out["n_pairs"] = result.n_pairs
    out["intervals"] = {k: v for k, v in result.intervals.items() if k in names}
    return out


def _moved(a: dict[str, Any], b: dict[str, Any], name: str) -> int:
    """+1 rose, −1 fell, 0 no clear move (intervals overlap or are missing)."""
    ia, ib = a["intervals"].get(name), b["intervals"].get(name)
    if ia is None or ib is None:
        return 0
    if ib[0] > ia[1]:
        return 1
    if ib[1] < ia[0]:
        return -1
    return 0


def reading(a: dict[str, Any], b: dict[str, Any]) -> str:
    agreement = _moved(a, b, "mean_agreement")
    count = _moved(a, b, "mean_object_count_diff")
    if count > 0:
        return ("The count difference rose: annotators disagree more on what counts as an "
                "object or event; revisit that part of the guidelines.")
    if agreement < 0:
        return ("Agreement fell while the count difference held: the same objects are found "
                "but placed differently; revisit box tightness or segment boundaries.")
    if agreement > 0:
        return ("Agreement rose" + (" and the count difference fell" if count < 0 else "")
                + ": the round improved.")
    if count < 0:
        return "The count difference fell: annotators agree more on what counts as an object."
    return "No clear change: the two rounds' intervals overlap."


def compare(a: AgreementReport, b: AgreementReport) -> Comparison:
    schemes: dict[str, dict[str, Any]] = {}
    for name, ra in a.schemes.items():
        rb = b.schemes.get(name)
        if rb is None or ra.kind != rb.kind or ra.not_computed or rb.not_computed:
            continue
        if ra.kind in SET_KIND_NAMES:
            names: tuple[str, ...] = ("mean_agreement", "mean_object_count_diff")
            sa, sb = _side(ra, names), _side(rb, names)
            schemes[name] = {"kind": ra.kind, "a": sa, "b": sb, "reading": reading(sa, sb)}
        elif names := next((n for n in RATED if n[0] in ra.metrics), ()):
            schemes[name] = {"kind": ra.kind, "a": _side(ra, names), "b": _side(rb, names)}
    return Comparison(a, b, schemes)
