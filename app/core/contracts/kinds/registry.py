"""The six contract kinds by name: what each does for the engine, and its evaluation.

A kind is one module of this package with two functions of one shape each:

- ``evaluate(spec, data, context) -> KindOutcome``: a pure function of the contract
  (:class:`~app.core.contracts.config.contract_specs.ContractSpec`), the schema's data
  (:class:`~app.core.contracts.kinds.base.SchemaData`) and a
  :class:`~app.core.contracts.kinds.base.KindContext`;
- ``claim(schema, params) -> str``: what the contract promises, in one sentence (the
  certificate prints it).

and one :class:`KindInfo` row here saying how the engine treats it. The engine, the
label delivery, the look costs and the certificate ask these rows, never the kind's
name; a new kind is a module and a row (``ARCHITECTURE.md``). The modules are imported
only when a kind is evaluated, so reading the registry costs nothing.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.core.contracts.config.contract_specs import ContractSpec
    from app.core.contracts.kinds.base import KindContext, KindOutcome, SchemaData


@dataclass(frozen=True, slots=True)
class KindInfo:
    """How the engine treats one contract kind.

    ``spends_looks``: its test is recorded in the ledger as a look (the certifying
    test). ``gates``: its rule decides which machine labels the cascade delivers.
    ``reads_delivered``: it reads the labels the gating contracts deliver. ``scheduled``:
    the scheduler re-makes it at milestones as labels arrive (a ledger event that spends
    no look). ``certifies``: ``True`` when a met contract certifies the labels it
    accepts, ``False`` when it accepts labels without a test, ``None`` for an estimate.
    """

    name: str
    module: str
    spends_looks: bool = False
    gates: bool = False
    reads_delivered: bool = False
    scheduled: bool = False
    certifies: bool | None = None


_PACKAGE = "app.core.contracts.kinds"

KINDS: dict[str, KindInfo] = {info.name: info for info in (
    KindInfo("selective_risk", "selective_risk", spends_looks=True, gates=True,
             certifies=True),
    KindInfo("ppi", "ppi", reads_delivered=True, scheduled=True),
    KindInfo("no_worse_than_human", "no_worse_than_human", reads_delivered=True,
             scheduled=True),
    KindInfo("budget_first", "budget_first"),
    KindInfo("distributional", "distributional", reads_delivered=True, scheduled=True),
    KindInfo("threshold_legacy", "threshold_legacy", gates=True, certifies=False),
)}
"""Every kind, in the order ``contracts.md`` lists them."""

GATING = tuple(name for name, info in KINDS.items() if info.gates)
"""The kinds whose rules decide what is delivered, evaluated before the others."""


def kind_info(kind: str) -> KindInfo:
    """The row of ``kind``; the configuration reader has already refused unknown kinds."""
    return KINDS[str(kind)]


def _module(kind: str) -> Any:
    return importlib.import_module(f"{_PACKAGE}.{kind_info(kind).module}")


def evaluate(spec: ContractSpec, data: SchemaData, context: KindContext) -> KindOutcome:
    """The outcome of ``spec`` on ``data``: its kind module's ``evaluate``."""
    outcome: KindOutcome = _module(spec.kind).evaluate(spec, data, context)
    return outcome


def claim(kind: str, schema: str, params: dict[str, Any]) -> str:
    """What a contract of ``kind`` on ``schema`` promises, in one sentence."""
    if str(kind) not in KINDS:
        return f"a '{kind}' contract on '{schema}'"
    sentence: str = _module(kind).claim(schema, params)
    return sentence
