"""Error versus coverage on the dev labels, per cascade tier: the data of the plot.

A reviewer of a ``selective_risk`` contract wants to see the trade-off the rule was
chosen on: as the confidence threshold falls, each tier accepts more of the items that
reach it (coverage) and makes more errors among them. The curve is computed here, in the
core, from the same :class:`SchemaData` the contract read, and stored in the certificate,
so the PDF's plot is drawn from the embedded data alone.

Choices where the spec is silent:

- **Dev labels only** (cert labels test the rule and nothing else reads them; drawing
  them would invite choosing a threshold on cert by eye).
- Each tier is shown on every dev item it has a prediction for, ignoring the cascade's
  routing: the curve describes the labeller, not the rule (the rule's coverage of the
  population is ``accepted_by_tier``).
- An item's verdict is :func:`majority_correct` at the contract's tolerance, exactly as
  the dev choice counts errors; items with no defined verdict are left out.
- A point is kept only where the threshold accepts at least one dev label; coverage is
  the share of that tier's scored dev items accepted, error the share of accepted ones
  wrong. Thresholds are the contract grid 1.00 … 0.00.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.core.contracts.inputs import SchemaData
from app.core.contracts.losses import DEFAULT_TOLERANCE
from app.core.contracts.selective_risk_groups import GRID, majority_correct


def dev_curves(data: SchemaData, tolerance: float | None) -> dict[str, list[dict[str, Any]]]:
    """tier → ``[{"threshold", "coverage", "error", "n"}]`` on the dev labels."""
    tol = DEFAULT_TOLERANCE if tolerance is None else float(tolerance)
    out: dict[str, list[dict[str, Any]]] = {}
    for tier in data.tiers:
        predictions = data.predictions.get(tier, {})
        conf: list[float] = []
        wrong: list[bool] = []
        for item in sorted(data.dev):
            humans = data.dev[item]
            machine = predictions.get(item)
            if not humans or machine is None:
                continue
            verdict = majority_correct(data.scheme, machine.label, humans, tol)
            if verdict is None:
                continue
            conf.append(float(machine.confidence))
            wrong.append(not verdict)
        points: list[dict[str, Any]] = []
        if conf:
            c = np.asarray(conf, dtype=np.float64)
            w = np.asarray(wrong, dtype=bool)
            accepted = c[:, None] >= GRID[None, :]
            n = accepted.sum(axis=0)
            k = (accepted & w[:, None]).sum(axis=0)
            for j, t in enumerate(GRID):
                if n[j] == 0:
                    continue
                points.append({"threshold": float(t), "n": int(n[j]),
                               "coverage": int(n[j]) / len(conf),
                               "error": int(k[j]) / int(n[j])})
        out[tier] = points
    return out
