"""The six contract kinds by name: how the engine treats each, and what it promises.

One :class:`KindInfo` row per kind. The engine, the label delivery, the look costs and
the certificate ask these rows, never the kind's name; a new kind is a row here, a
claim in :mod:`~app.core.contracts.kinds.claims` and its evaluation in
:mod:`app.core.contracts.potato_method` (``ARCHITECTURE.md``).

Looks are Potato 2.12.1's (``contracts.md``, "Agreeing with Potato 2.12.1", item 2):
selective_risk, ppi, no_worse_than_human and distributional spend a look each time
they are evaluated with a test; budget_first and threshold_legacy never do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.core.contracts.kinds.claims import CLAIMS


@dataclass(frozen=True, slots=True)
class KindInfo:
    """How the engine treats one contract kind.

    ``spends_looks``: an evaluation that reaches its test is recorded in the ledger as a
    look. ``gates``: its rule decides which machine labels the cascade delivers.
    ``certifies``: ``True`` when a met contract certifies the labels it accepts,
    ``False`` when it accepts labels without a test, ``None`` for an estimate.
    """

    name: str
    spends_looks: bool = False
    gates: bool = False
    certifies: bool | None = None


KINDS: dict[str, KindInfo] = {info.name: info for info in (
    KindInfo("selective_risk", spends_looks=True, gates=True, certifies=True),
    KindInfo("ppi", spends_looks=True),
    KindInfo("no_worse_than_human", spends_looks=True),
    KindInfo("budget_first"),
    KindInfo("distributional", spends_looks=True),
    KindInfo("threshold_legacy", gates=True, certifies=False),
)}
"""Every kind, in the order ``contracts.md`` lists them."""

GATING = tuple(name for name, info in KINDS.items() if info.gates)
"""The kinds whose rules decide what is delivered."""


def kind_info(kind: str) -> KindInfo:
    """The row of ``kind``; the configuration reader has already refused unknown kinds."""
    return KINDS[str(kind)]


def claim(kind: str, schema: str, params: dict[str, Any]) -> str:
    """What a contract of ``kind`` on ``schema`` promises, in one sentence."""
    sentence = CLAIMS.get(str(kind))
    return f"a '{kind}' contract on '{schema}'" if sentence is None else sentence(schema, params)
