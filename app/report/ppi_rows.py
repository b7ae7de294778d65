"""A ``ppi`` result's estimates as (group, label → estimate) rows, for its table and plot.

``cli.md``: ``estimates`` is per label directly, or, with ``by``, ``all`` plus one entry per
group, each per label; the mean estimand has ``mean`` in place of the labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def grouped(estimates: Mapping[str, Any]) -> bool:
    """The estimates are per group (``by``): every entry maps labels to estimates."""
    return bool(estimates) and all(
        isinstance(v, Mapping) and v and "estimate" not in v
        and all(isinstance(x, Mapping) for x in v.values()) for v in estimates.values())


def estimate_groups(result: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(group, label → estimate): one row per group, the group ``""`` without ``by``."""
    estimates = result.get("estimates") or {}
    if not isinstance(estimates, Mapping):
        return []
    if grouped(estimates):
        return [(str(g), v) for g, v in estimates.items()]
    if "estimate" in estimates:
        return [("", {"mean": estimates})]
    return [("", estimates)]
