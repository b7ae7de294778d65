"""Reading a stored ``selective_risk`` result against today's cert labels.

Two uses, both without spending a look:

- :func:`more_errors`: after cert labels were edited, does any of the stored result's
  tests see more errors? Each test (tier, class, threshold) is recounted on the cert
  items it could have read then (items that had a cert label at the stored snapshot),
  with their current labels, routed by the rule that was tested. If no count grew, the
  result and its look stand (``contracts.md``, Looks).
- :func:`audit`: the running error of a met contract's accepted labels on the cert
  labels that arrived after its last test, with an exact one-sided upper bound
  (Clopper–Pearson, at the contract's confidence). Reported under ``result["audit"]``,
  a key added to the ``cli.md`` result, never replacing one:
  ``{"since_look", "n", "errors", "error", "upper", "confidence"}``. ``error`` and
  ``upper`` are ``null`` while ``n`` is 0. The audit is a watch, not a test: it spends
  nothing and changes no state; when its point estimate is above the target a note says
  so and ``accord label certify`` tests at the next look.

The item is the unit and a machine label is correct against a strict majority of the
item's people (:func:`~app.core.contracts.kinds.selective_risk_groups.majority_correct`), as
in the tests themselves.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from app.core.contracts.config.contract_specs import (
    DEFAULT_CONFIDENCE,
    DEFAULT_TOLERANCE,
    ContractSpec,
)
from app.core.contracts.kinds.base import MachineLabel, SchemaData
from app.core.contracts.kinds.selective_risk_groups import class_of, majority_correct
from app.core.contracts.statistics.binomial import binomial_upper_bound


def _threshold(rule: Mapping[str, Any], tier: str, machine: MachineLabel) -> float | None:
    value = rule.get(tier)
    if isinstance(value, Mapping):
        value = value.get(class_of(machine.label))
    return None if value is None else float(value)


def _tolerance(spec: ContractSpec) -> float:
    value = spec.params.get("tolerance")
    return DEFAULT_TOLERANCE if value is None else float(value)


def _confidence(spec: ContractSpec) -> float:
    return float(spec.params.get("confidence") or DEFAULT_CONFIDENCE)


def _reaching(data: SchemaData, rule: Mapping[str, Any], tier: str, item: str) -> bool:
    """Whether ``item`` reaches ``tier``: no earlier tier's tested rule accepts it."""
    for earlier in data.tiers:
        if earlier == tier:
            return True
        machine = data.predictions.get(earlier, {}).get(item)
        if machine is None:
            continue
        threshold = _threshold(rule, earlier, machine)
        if threshold is not None and machine.confidence >= threshold:
            return False
    return False


def recount(spec: ContractSpec, data: SchemaData, rule: Mapping[str, Any],
            tests: Iterable[Mapping[str, Any]], items: Iterable[str]) -> list[tuple[int, int]]:
    """(n, errors) of each stored test, recounted on ``items`` with their current labels."""
    tolerance = _tolerance(spec)
    chosen = sorted(set(items))
    out: list[tuple[int, int]] = []
    for test in tests:
        tier, cls, threshold = str(test["tier"]), test.get("class"), float(test["threshold"])
        n = k = 0
        for item in chosen:
            humans = data.cert.get(item, ())
            machine = data.predictions.get(tier, {}).get(item)
            if not humans or machine is None or machine.confidence < threshold:
                continue
            if cls is not None and class_of(machine.label) != cls:
                continue
            if not _reaching(data, rule, tier, item):
                continue
            verdict = majority_correct(data.scheme, machine.label, humans, tolerance)
            if verdict is None:
                continue
            n += 1
            k += int(not verdict)
        out.append((n, k))
    return out


def more_errors(spec: ContractSpec, data: SchemaData, rule: Mapping[str, Any],
                tests: Iterable[Mapping[str, Any]], items: Iterable[str]) -> bool:
    """Whether any stored test sees more errors on ``items`` than it recorded."""
    stored = list(tests)
    now = recount(spec, data, rule, stored, items)
    return any(k > int(test["errors"]) for test, (_, k) in zip(stored, now, strict=True))


def audit(spec: ContractSpec, data: SchemaData, accepts: Mapping[str, Any],
          items: Iterable[str], since_look: int) -> dict[str, Any]:
    """Running error of the accepted labels on the cert items in ``items``."""
    tolerance, confidence = _tolerance(spec), _confidence(spec)
    n = k = 0
    for item in sorted(set(items)):
        humans = data.cert.get(item, ())
        if not humans:
            continue
        for tier in data.tiers:
            machine = data.predictions.get(tier, {}).get(item)
            if machine is None:
                continue
            threshold = _threshold(accepts, tier, machine)
            if threshold is None or machine.confidence < threshold:
                continue
            verdict = majority_correct(data.scheme, machine.label, humans, tolerance)
            if verdict is not None:
                n += 1
                k += int(not verdict)
            break
    return {"since_look": since_look, "n": n, "errors": k,
            "error": (k / n) if n else None,
            "upper": binomial_upper_bound(k, n, confidence) if n else None,
            "confidence": confidence}
