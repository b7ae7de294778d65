"""What else a stored result was tested on, beside its labels: the contract as
configured, the cascade, and (in Accord's own ``labeling/`` projects) the predictions.

Why: certify's same-data test (``engine._counts``) compared the calibration labels only,
and on a Potato project ``pred_mark`` for the predictions. So in an Accord labelling
project, a contract whose target was tightened (``error: 0.1`` → ``0.01``), a cascade
reordered or given another model, or a tier's predictions replaced, came back as
"unchanged labels: the stored result, nothing spent": a ``met`` the new setup was never
tested for, and deliveries made under its rule. contracts.md: "Testing the same data
again is not a new look: the same cert labels, **the same predictions** and the same
dev-chosen rule return the stored result"; "Trying prompts or models until one passes
costs a look each time". Potato's own shortcut compares the cascade hash (its tiers'
source versions), the contract's params and ``pred_mark`` besides the labels
(``service.py``, ``certify``: ``same_base``).

So each look now also records three digests, compared as the counts are:

- ``contract``: the contract's parameters as configured (defaults included), so a
  changed target, confidence or class split is a new test at the next look;
- ``cascade``: the schema's tiers in order with each tier's source as written (kind,
  model, prompt and the rest; the config reader has left secrets out);
- ``predictions`` (only where there is no ``pred_mark``): every population item's
  tier answers (value, confidence, status, distribution), in order.
  With the cert labels unchanged, moved predictions are handled as a moved ``pred_mark``
  is (:mod:`.same_cert`): the same test again at its look, else the next look.

Choices where the spec is silent:

- A result recorded before these digests existed has none of them, and the same-data
  test compares only what a stored result holds: such a result still counts as the same
  data until its next look records them (a ledger is never rewritten).
- A Potato record (``contract_version``) is compared on Potato's own keys; its cascade
  and params are Potato's business (its audit says when its record no longer describes
  today's data).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from app.core.contracts.config.contract_specs import ContractSpec
from app.core.contracts.config.engine_config import EngineConfig
from app.core.contracts.potato_method.view import MethodView, TierAnswer

KEYS = ("contract", "cascade", "predictions")


def tested_setup(spec: ContractSpec, config: EngineConfig, view: MethodView,
                 pred_mark: int | None, known: dict[str, str] | None = None
                 ) -> dict[str, str]:
    """The three digests of the module (``predictions`` only without ``pred_mark``).
    ``known``: the predictions' digests by schema already taken in this certify (the
    tiers' answers do not depend on the route, and a schema's contracts share them;
    hashing 100,000 items' answers again for each contract cost 1.5 s of 6.4)."""
    out = setup_digests(spec, config)
    if pred_mark is None:
        known = {} if known is None else known
        if view.scheme not in known:
            known[view.scheme] = _answers_digest(view)
        out["predictions"] = known[view.scheme]
    return out


def setup_digests(spec: ContractSpec, config: EngineConfig) -> dict[str, str]:
    """The contract's and the cascade's digests (no view needed: status takes them)."""
    sources = {s.id: {"kind": s.kind, **dict(s.settings)} for s in config.sources}
    return {"contract": _digest({"kind": str(spec.kind), "schema": spec.schema,
                                 "params": dict(spec.params)}),
            "cascade": _digest([[tier, sources.get(tier)]
                                for tier in config.tiers_for(spec.schema)])}


def setup_moved(spec: ContractSpec, config: EngineConfig, stored_counts: Mapping[str, Any]
                ) -> list[str]:
    """Which of ``contract`` and ``cascade`` are not what the stored result was tested on
    (``status`` says so beside the stored result; the scheduler evaluates it at once, as
    Potato's planner does on a new cascade hash or new params)."""
    now = setup_digests(spec, config)
    return [key for key in ("contract", "cascade")
            if key in stored_counts and stored_counts[key] != now[key]]


def setup_note(moved: list[str], kind: str) -> str:
    """The sentence ``status`` shows for :func:`setup_moved`'s keys. As in Potato, a met
    rule of another cascade delivers nothing (``service.py``: delivery needs the
    current cascade hash); a changed target alone keeps delivering, as there."""
    what = " and ".join({"contract": "the contract's settings",
                         "cascade": "the cascade"}[key] for key in moved)
    out = (f"{what} changed since this result was tested: it describes the earlier "
           "setup; certify tests the new one at the next look")
    if "cascade" in moved and kind in ("selective_risk", "threshold_legacy"):
        out += ". Until then its rule delivers no machine label, as in Potato"
    return out


def _answers_digest(view: MethodView) -> str:
    """The population's answers: every item of the project with its tiers' answers
    (a calibration item's are the same answers; reading them too would make a new dev
    or cert label look like new predictions)."""
    digest = hashlib.sha256()
    for item in view.population:
        digest.update(repr((item.item, _tiers(item.tiers))).encode())
    return digest.hexdigest()


def _tiers(tiers: Iterable[TierAnswer | None]) -> list[Any]:
    return [None if t is None else
            (t.value, t.confidence, t.status,
             None if t.distribution is None else sorted(t.distribution.items()))
            for t in tiers]


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()
