"""Potato 2.12.1's contract classes as the oracle for :mod:`app.core.contracts.potato_method`.

- :func:`to_potato` turns Accord's :class:`MethodView` into Potato's ``CalibrationView``
  and :func:`potato_contract` a :class:`MethodContract` into Potato's ``ContractConfig``
  (through Potato's own ``parse_engine_config``, so its defaults apply);
- :func:`potato_result` runs Potato's class for the kind; :func:`assert_same` compares
  the two results, numbers to 1e-9;
- :func:`simulated_study` makes seeded studies with known truth: tiers of given accuracy
  whose confidence tracks correctness, dev/cert calibration items with equal or unequal
  inclusion probabilities, several people per item, groups, label distributions.

Tests only: Potato is GPL-3.0 and a test-only dependency; ``app/`` never imports it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from app.core.contracts.potato_method.view import (
    CalibrationItem,
    MethodContract,
    MethodResult,
    MethodView,
    PopulationItem,
    TierAnswer,
)

base = pytest.importorskip("potato.labeling_engine.contracts.base")
contracts = pytest.importorskip("potato.labeling_engine.contracts")
schema = pytest.importorskip("potato.labeling_engine.config.schema")


def _tier(answer: TierAnswer | None) -> Any:
    if answer is None:
        return None
    return base.TierPred(answer.value, answer.confidence, answer.status,
                         None if answer.distribution is None else dict(answer.distribution))


def to_potato(view: MethodView) -> Any:
    """Potato's ``CalibrationView`` of the same study."""
    cal = [base.CalItem(item_id=c.item, human=c.truth, split=c.split, pi=c.pi,
                        tiers=[_tier(t) for t in c.tiers], stratum=c.stratum, group=c.group,
                        output=_tier(c.output), humans=dict(c.people))
           for c in view.calibration]
    population = [base.PopItem(item_id=p.item, tiers=[_tier(t) for t in p.tiers],
                               group=p.group, pi=p.pi, output=_tier(p.output))
                  for p in view.population]
    return base.CalibrationView(
        scheme=view.scheme, labels=list(view.labels), tier_ids=list(view.tiers), cal=cal,
        population=population, correct=view.correct, class_of=view.class_of,
        output_complete=view.output_complete,
        item_fields={k: dict(v) for k, v in view.item_fields.items()},
        user_groups={k: dict(v) for k, v in view.person_groups.items()})


def potato_contract(contract: MethodContract, labels: Sequence[str]) -> Any:
    """Potato's parsed ``ContractConfig`` (its defaults and validation applied)."""
    raw = {"id": contract.id, "kind": contract.kind, "schema": contract.schema,
           "confidence": contract.confidence, **dict(contract.params)}
    block = {"enabled": True, "sources": [{"id": "t", "kind": "fixture"}],
             "humans": {"overlap_k": 3}, "contracts": [raw]}
    schemes = [{"annotation_type": "radio", "name": contract.schema, "labels": list(labels)}]
    config = schema.parse_engine_config({"labeling_engine": block,
                                         "annotation_schemes": schemes})
    return config.contracts[0]


def potato_result(contract: MethodContract, view: MethodView, look: int = 1) -> dict[str, Any]:
    """Potato's own evaluation, as its ``to_dict``."""
    cls = contracts.build_contract(potato_contract(contract, view.labels))
    result: dict[str, Any] = cls.evaluate(to_potato(view), look=look).to_dict()
    return result


def _close(a: Any, b: Any, path: str) -> list[str]:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        out: list[str] = []
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                out.append(f"{path}.{key}: only in {'Accord' if key in a else 'Potato'}")
            else:
                out.extend(_close(a[key], b[key], f"{path}.{key}"))
        return out
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if len(a) != len(b):
            return [f"{path}: {len(a)} entries vs {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in _close(x, y, f"{path}[{i}]")]
    if isinstance(a, float | int) and isinstance(b, float | int) \
            and not isinstance(a, bool) and not isinstance(b, bool):
        if math.isnan(a) and math.isnan(b):
            return []
        if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            return []
        return [f"{path}: {a!r} vs {b!r}"]
    return [] if a == b else [f"{path}: {a!r} vs {b!r}"]


def differences(accord: MethodResult, potato: Mapping[str, Any],
                keys: Sequence[str] = ("status", "acceptance", "metrics", "projection",
                                       "look", "alpha", "ran")) -> list[str]:
    """Where Accord's result and Potato's differ (numbers to 1e-9); ``notes`` and
    ``statement`` are words and not compared unless asked for in ``keys``."""
    mine = accord.to_json()
    return [d for key in keys for d in _close(mine.get(key), potato.get(key), key)]


def simulated_study(seed: int, *, n_items: int = 200, labels: Sequence[str] = ("pos", "neg",
                    "neu"), tier_accuracy: Sequence[float] = (0.7, 0.9),
                    calibration_share: float = 0.4, dev_fraction: float = 0.5,
                    people: int = 1, person_accuracy: float = 0.9,
                    unequal_pi: bool = False, groups: Sequence[str] = (),
                    distributions: bool = False, abstain: float = 0.0) -> MethodView:
    """A seeded study with a known truth per item (see the module docstring)."""
    rng = random.Random(seed)
    tiers = tuple(f"tier{j}" for j in range(len(tier_accuracy)))
    population: list[PopulationItem] = []
    calibration: list[CalibrationItem] = []
    fields: dict[str, dict[str, str]] = {}
    for i in range(n_items):
        item = f"i{i:04d}"
        truth = rng.choice(labels)
        group = rng.choice(groups) if groups else None
        if group is not None:
            fields[item] = {"by": group}
        answers: list[TierAnswer | None] = []
        for accuracy in tier_accuracy:
            if rng.random() < abstain:
                answers.append(TierAnswer(None, 0.0, "abstain"))
                continue
            right = rng.random() < accuracy
            value = truth if right else rng.choice([x for x in labels if x != truth])
            conf = round(min(1.0, max(0.0, rng.gauss(0.8 if right else 0.55, 0.12))), 4)
            dist = None
            if distributions:
                rest = (1.0 - conf) / (len(labels) - 1)
                dist = {x: (conf if x == value else rest) for x in labels}
            answers.append(TierAnswer(value, conf, "ok", dist))
        output = next((a for a in answers if a is not None and a.answered), None)
        pi = calibration_share * (0.5 if unequal_pi and i % 3 == 0 else 1.0)
        population.append(PopulationItem(item, tuple(answers), group, pi, output))
        if rng.random() < pi:
            split = "dev" if rng.random() < dev_fraction else "cert"
            votes = {}
            for k in range(people):
                right = rng.random() < person_accuracy
                votes[f"p{k}"] = truth if right else rng.choice(
                    [x for x in labels if x != truth])
            counts: dict[str, int] = {}
            for v in votes.values():
                counts[v] = counts.get(v, 0) + 1
            best = max(counts.values())
            human = next(v for v in votes.values() if counts[v] == best)
            calibration.append(CalibrationItem(item, human, split, pi, tuple(answers), output,
                                               votes, group))
    return MethodView(scheme="s", labels=tuple(labels), tiers=tiers,
                      calibration=tuple(calibration), population=tuple(population),
                      output_complete=True, item_fields=fields)
