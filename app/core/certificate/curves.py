"""Error versus coverage on the dev labels, per cascade tier: the data of the plot.

A reviewer of a ``selective_risk`` contract wants to see the trade-off the rule was
chosen on: as the confidence threshold falls, each tier accepts more of the items that
reach it (coverage) and makes more errors among them. The certificate stores the curve
so the PDF's plot is drawn from the embedded data alone.

Why this module is a thin adapter: the curve is
:func:`~app.core.contracts.kinds.coverage_curve.error_coverage_curves`, the very function the
contracts panel draws, so the GUI and the PDF show one curve. It routes items through
the cascade like the engine (items a tier's rule accepts do not reach the next tier),
reads dev labels only, and gives coverage as a share of the whole population (at a met
tier's threshold it equals ``accepted_by_tier``).

Choices where the spec is silent:

- A point is kept only where the threshold accepts at least one scored dev label (the
  panel draws the other thresholds as a gap); ``n`` is that number of dev items.
- Points are plain JSON numbers: ``{"threshold", "coverage", "error", "n"}``, thresholds
  the contract grid 1.00 … 0.00 in that order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.core.contracts.config.contract_specs import ContractSpec
from app.core.contracts.kinds.base import SchemaData
from app.core.contracts.kinds.coverage_curve import error_coverage_curves


def dev_curves(spec: ContractSpec, data: SchemaData, rule: Mapping[str, Any] | None
               ) -> dict[str, list[dict[str, Any]]]:
    """tier → ``[{"threshold", "coverage", "error", "n"}]``, routed by ``rule``."""
    out: dict[str, list[dict[str, Any]]] = {}
    for curve in error_coverage_curves(spec, data, rule or {}):
        points: list[dict[str, Any]] = []
        for j, threshold in enumerate(curve.thresholds):
            n = int(curve.n_dev[j])
            if n == 0:
                continue
            points.append({"threshold": float(threshold), "n": n,
                           "coverage": float(curve.coverage[j]),
                           "error": float(curve.dev_error[j])})
        out[curve.tier] = points
    return out
