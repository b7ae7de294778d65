"""Potato's record of each contract, audited against Accord's recomputation.

``contracts.md`` ("Agreeing with Potato 2.12.1", point 5): for every contract of a Potato
project, what Potato recorded (its latest ``contract_version`` row) beside Accord's own
evaluation of the same contract with Potato's method, on the view Potato built for that
row (:func:`~app.core.contracts.potato_method.from_store.method_view` with the rule
stored before the certify call that wrote it, :func:`certify_run_start`), at the look
Potato recorded:

- ``reproduced``: the state and every number (acceptance, metrics, projection) equal
  to 1e-9;
- ``stale``: the calibration labels changed since Potato's record (its ``n_dev`` /
  ``n_cert`` differ from today's); the differences say what changed, and Potato's
  stored result does not describe today's data;
- ``differs``: same labels, other numbers; each difference is a sentence with both.

A kind whose method is not written yet, or a scheme without a single-label family, has
verdict ``None`` and a sentence saying why. The audit never writes and spends nothing.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from app.core.contracts.config.engine_config import EngineConfig
from app.core.contracts.potato_method.from_store import (
    BuiltView,
    method_contract,
    method_view,
)
from app.core.contracts.potato_method.view import MethodResult, MethodView
from app.core.formats.potato.engine_records import ContractRecord
from app.core.formats.potato.engine_store import EngineStore
from app.core.model import Study

Evaluate = Callable[..., MethodResult]
"""``evaluate_<kind>(contract, view, look, **settings) -> MethodResult``."""
COMPARED = ("status", "acceptance", "metrics", "projection")


@dataclass(frozen=True, slots=True)
class Audit:
    verdict: str | None
    differences: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "differences": list(self.differences)}


DEV_SHARE_KINDS = frozenset({"selective_risk", "budget_first"})
"""The kinds Potato's engine hands the humans' dev share (``humans.dev_fraction``)."""


def evaluator(kind: str, config: EngineConfig | None = None) -> Evaluate | None:
    """``evaluate_<kind>`` of Potato's method, with the settings Potato's engine hands it
    from ``config`` bound; ``None`` when the kind has no method."""
    try:
        module = importlib.import_module(f"app.core.contracts.potato_method.{kind}")
    except ModuleNotFoundError:
        return None
    found = getattr(module, f"evaluate_{kind}", None)
    if not callable(found):
        return None
    function: Evaluate = found
    if config is not None and kind in DEV_SHARE_KINDS:
        return partial(function, dev_fraction=config.humans.dev_fraction)
    return function


def audit_contracts(store: EngineStore, config: EngineConfig, study: Study
                    ) -> dict[str, Audit]:
    """One :class:`Audit` per configured contract."""
    out: dict[str, Audit] = {}
    views: dict[tuple[str, int], BuiltView | None] = {}  # one certify call: one view
    for spec in config.contracts:
        record = store.records.contracts.get(spec.id)
        if record is None:
            out[spec.id] = Audit(None, ["Potato never evaluated this contract"])
            continue
        evaluate = evaluator(str(spec.kind), config)
        if evaluate is None:
            out[spec.id] = Audit(None, [f"Accord's Potato method for {spec.kind} is not "
                                        "written yet"])
            continue
        before = certify_run_start(store, config, record)
        if (spec.schema, before) not in views:  # as Potato, which builds it once a call
            views[spec.schema, before] = method_view(store, config,
                                                     study.schemes[spec.schema],
                                                     before=before)
        built = views[spec.schema, before]
        if built is None:
            out[spec.id] = Audit(None, [f"schema '{spec.schema}' has no family in Accord's "
                                        "Potato method yet (single-label schemes only)"])
            continue
        look = max(1, int(record.result.get("look") or 1))
        mine = evaluate(method_contract(spec), built.view, look).to_json()
        changed = _changed(record.result, built.view)
        differences = [d for key in COMPARED
                       for d in _differences(mine.get(key), record.result.get(key), key)]
        if changed:
            out[spec.id] = Audit("stale", changed + differences[:5])
        elif differences:
            out[spec.id] = Audit("differs", differences)
        else:
            out[spec.id] = Audit("reproduced")
    return out


RUN_GAP_SECONDS = 2.0
"""Rows of one certify call are stored within this of each other (a heuristic; see
:func:`certify_run_start`)."""


def certify_run_start(store: EngineStore, config: EngineConfig, record: ContractRecord
                      ) -> int:
    """The first ``contract_version`` id of the certify call that stored ``record``.

    Potato builds a scheme's view once, before it evaluates the scheme's contracts
    (``service.py``, ``_certify``), so a contract's routed output follows the rule stored
    before that call, not a selective_risk row the same call wrote just before it. The
    database does not record calls; a call stores its rows in configuration order,
    moments apart, so a new call starts where a contract comes again (or earlier in the
    order), or after a pause of more than :data:`RUN_GAP_SECONDS`.
    """
    spec = config.contract(record.contract_id)
    if spec is None:
        return record.version_id
    order = {c.id: i for i, c in enumerate(config.contracts_for(spec.schema))}
    start = record.version_id
    previous: ContractRecord | None = None
    for row in sorted((r for r in store.records.history if r.contract_id in order),
                      key=lambda r: r.version_id):
        if (previous is None or order[row.contract_id] <= order[previous.contract_id]
                or row.recorded_at - previous.recorded_at > RUN_GAP_SECONDS):
            start = row.version_id
        if row.version_id == record.version_id:
            return start
        previous = row
    return record.version_id


def _changed(stored: Mapping[str, Any], view: MethodView) -> list[str]:
    now = {"n_dev": len(view.split("dev")), "n_cert": len(view.split("cert"))}
    words = {"n_dev": "dev labels", "n_cert": "cert labels"}
    return [f"{words[key]}: {stored[key]} when Potato recorded it, {now[key]} now"
            for key in now if isinstance(stored.get(key), int) and stored[key] != now[key]]


def _differences(mine: Any, potato: Any, path: str) -> list[str]:
    if isinstance(mine, Mapping) and isinstance(potato, Mapping):
        out: list[str] = []
        for key in sorted(set(mine) | set(potato), key=str):
            where = f"{path}.{key}"
            if key not in mine or key not in potato:
                side = "Accord" if key in mine else "Potato"
                out.append(f"{where}: only {side} has it")
            else:
                out.extend(_differences(mine[key], potato[key], where))
        return out
    if isinstance(mine, list | tuple) and isinstance(potato, list | tuple):
        if len(mine) != len(potato):
            return [f"{path}: Accord has {len(mine)} entries, Potato {len(potato)}"]
        return [d for i, (a, b) in enumerate(zip(mine, potato, strict=True))
                for d in _differences(a, b, f"{path}[{i}]")]
    numbers = (int, float)
    if isinstance(mine, numbers) and isinstance(potato, numbers) \
            and not isinstance(mine, bool) and not isinstance(potato, bool):
        if math.isclose(mine, potato, rel_tol=1e-9, abs_tol=1e-12):
            return []
    elif mine == potato:
        return []
    return [f"{path}: Accord {mine!r}, Potato {potato!r}"]
