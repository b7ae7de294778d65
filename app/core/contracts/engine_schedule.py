"""The engine's side of the scheduler and of the edit rules: reading the latest look
against today's data, without spending anything.

:class:`SelectiveView` holds one ``selective_risk`` contract's latest look and today's
data and answers, for every mode (``status``, ``certify``, ``schedule``):

- :meth:`SelectiveView.standing`: a stored result that stands without a test. Either an
  earlier look of exactly today's data (cert labels edited back to a tested state: that
  result comes back, no new look; see :mod:`app.core.contracts.engine_ledger` for when
  a look may be restored), or the latest look when the only changes since are edits
  and none of its tests sees more errors (the result and its look stand).
- :meth:`SelectiveView.stored_status`: the latest result shown while the scheduler
  waits, with the audit of a met contract (:mod:`app.core.contracts.kinds.selective_audit`).

:class:`Schedule` adds what only the scheduler reads (the labeling files' history and
whether the calibration sample is complete) and decides with
:mod:`app.core.contracts.scheduler`. Looks recorded before the scheduler's bookkeeping
existed have no snapshot: every current cert label then counts as new (a choice: the
unmet contract is due at once, a met one stays met and is audited on every cert label).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any

from app.core.contracts.config.contract_specs import ContractSpec
from app.core.contracts.config.engine_config import EngineConfig
from app.core.contracts.engine_ledger import (
    bookkeeping,
    params_key,
    predictions_hash,
    record_estimate,
    restorable,
    stored_bookkeeping,
    stored_estimate,
)
from app.core.contracts.kinds.base import KindOutcome, SchemaData
from app.core.contracts.kinds.selective_audit import audit, more_errors
from app.core.contracts.ledger.chain import Ledger, Look
from app.core.contracts.scheduler import (
    Changes,
    Due,
    History,
    LastTest,
    calibration_complete,
    changes,
    estimate_due,
    first_edit_line,
    history,
    next_milestone,
    selective_due,
    snapshot,
    wave_counts,
)
from app.core.contracts.status import ContractStatus
from app.core.formats.labeling.data import LabelingData, Split


def _item_of(key: str) -> str:
    return key.split("\x1f", 1)[0]


class SelectiveView:
    """One ``selective_risk`` contract: its latest look against today's data."""

    def __init__(self, spec: ContractSpec, data: SchemaData, ledger: Ledger,
                 config: EngineConfig, latest: Look | None, current: str, rule: Any) -> None:
        self.spec, self.data, self.ledger, self.latest = spec, data, ledger, latest
        self.cascade = list(config.tier_names)
        self.current, self.rule = current, rule

    @cached_property
    def predictions(self) -> str:
        return predictions_hash(self.data)

    @cached_property
    def snapshot(self) -> dict[str, str]:
        return snapshot(self.data.cert)

    @cached_property
    def kept(self) -> Mapping[str, Any] | None:
        return None if self.latest is None else stored_bookkeeping(self.latest)

    @property
    def before(self) -> Mapping[str, str]:
        kept = self.kept
        value = kept.get("snapshot") if kept is not None else None
        return value if isinstance(value, Mapping) else {}

    @cached_property
    def changes(self) -> Changes:
        return changes(self.before, self.snapshot)

    @cached_property
    def new_machine(self) -> bool:
        if self.latest is None:
            return False
        if self.latest.cascade != self.cascade:
            return True
        return self.kept is not None and self.kept.get("predictions") != self.predictions

    @cached_property
    def more_errors(self) -> bool:
        if self.latest is None or not self.changes.edits:
            return False
        stored = self.latest.result.get("result", {})
        items = {_item_of(key) for key in self.before}
        return more_errors(self.spec, self.data, self.latest.rule or {},
                           stored.get("tests", []), items)

    def bookkeeping(self) -> dict[str, Any]:
        return bookkeeping(self.data, self.predictions)

    # ------------------------------------------------------------------ outcomes

    def _status(self, look: Look, looks: int, spent: float, notes: list[str],
                result: dict[str, Any] | None = None) -> ContractStatus:
        stored = look.result
        return ContractStatus(self.spec, stored["state"], looks, spent,
                              result if result is not None else stored["result"],
                              list(stored.get("notes", [])) + notes, stored.get("accepts"))

    def standing(self, looks: int, spent: float) -> ContractStatus | None:
        """A stored result that stands without a test, or ``None``."""
        if self.latest is None or self.kept is None:
            return None
        earlier = restorable(self.ledger, self.spec, self.current, self.rule, self.cascade,
                             self.predictions)
        if earlier is not None:
            return self._status(earlier, looks, spent, [
                f"the cert labels are back to those tested at look {earlier.look}: that "
                "test's result comes back (no new look)"])
        change = self.changes
        if (not self.new_machine and change.edits and not change.new
                and not self.more_errors):
            return self._status(self.latest, looks, spent, [
                f"{len(change.edits)} cert label(s) edited since look {self.latest.look}; "
                "none of its tests sees more errors, so the result and its look stand"])
        return None

    def stored_status(self, looks: int, spent: float, note: str | None) -> ContractStatus:
        """The latest result while the scheduler waits; a met one carries its audit."""
        assert self.latest is not None
        notes = [note] if note else []
        result = dict(self.latest.result.get("result", {}))
        if self.latest.result.get("state") == "met":
            accepts = self.latest.result.get("accepts") or {}
            watch = audit(self.spec, self.data, accepts,
                          {_item_of(k) for k in self.changes.new}, self.latest.look)
            result["audit"] = watch
            target = float(self.spec.params["error"])
            if watch["error"] is not None and watch["error"] > target:
                notes.append(f"audit: the accepted labels' running error {watch['error']:.4g} "
                             f"on {watch['n']} later cert labels is above the target "
                             f"{target:g} (upper bound {watch['upper']:.4g}); "
                             f"'accord label certify' tests at look {looks + 1}")
        return self._status(self.latest, looks, spent, notes, result)


class Schedule:
    """The scheduler's reading of the labeling files, shared by every contract."""

    def __init__(self, labeling: LabelingData) -> None:
        self.labeling = labeling
        self._complete: dict[str, bool] = {}
        self._history: dict[tuple[str, Split], History] = {}

    def complete(self, schema: str) -> bool:
        if schema not in self._complete:
            self._complete[schema] = calibration_complete(self.labeling, schema)
        return self._complete[schema]

    def history(self, schema: str, split: Split) -> History:
        if (schema, split) not in self._history:
            self._history[(schema, split)] = history(self.labeling, schema, split)
        return self._history[(schema, split)]

    def selective_due(self, view: SelectiveView) -> Due:
        latest, schema = view.latest, view.spec.schema
        last: LastTest | None = None
        if latest is not None:
            counted = view.kept.get("cert_labels", 0) if view.kept is not None else 0
            last = LastTest(latest.look, str(latest.result.get("state")), int(counted))
        change = view.changes
        wave = (len(view.snapshot), 0)
        if change.edits and view.more_errors:
            line = first_edit_line(self.history(schema, Split.CERT), view.before,
                                   change.edited)
            wave = wave_counts(self.history(schema, Split.CERT), line, len(view.snapshot))
        return selective_due(last, now_labels=len(view.snapshot), change=change,
                             more_errors=view.more_errors, new_machine=view.new_machine,
                             wave=wave, complete=self.complete(schema))

    def estimate(self, spec: ContractSpec, data: SchemaData, ledger: Ledger,
                 compute: Callable[[], KindOutcome], machine: str | None = None
                 ) -> ContractStatus:
        """An estimate re-made at the milestones, or the stored one in between.

        ``machine`` names the rule that delivers the machine labels the estimate reads
        (``None``: the first tier stands in); a new rule is a new estimate at once, like
        new parameters, since the estimate is of other machine labels.
        """
        dev_labels = sum(len(h) for h in data.dev.values())
        complete = self.complete(spec.schema)
        stored = stored_estimate(ledger, spec)
        params = params_key(spec, machine)
        if estimate_due(stored, dev_labels=dev_labels, complete=complete, params=params):
            outcome = compute()
            notes = list(outcome.notes)
            if outcome.state != "pending" and dev_labels:
                record_estimate(ledger, spec, params, dev_labels=dev_labels,
                                complete=complete, state=outcome.state,
                                result=outcome.result, notes=notes)
                notes.append(f"estimated by the scheduler on {dev_labels} dev labels")
            return ContractStatus(spec, outcome.state, 0, 0.0, outcome.result, notes,
                                  outcome.accepts)
        assert stored is not None
        then = int(stored.get("dev_labels", 0))
        notes = [
            *stored.get("notes", []),
            f"estimated by the scheduler on {then} dev labels ({dev_labels} now); "
            f"re-estimated at {next_milestone(then)} or when the calibration sample is "
            "complete"]
        return ContractStatus(spec, str(stored["state"]), 0, 0.0, dict(stored["result"]),
                              notes, None)
