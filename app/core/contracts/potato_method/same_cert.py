"""Certify when the cert labels are those the stored result tested (``contracts.md``,
"When only dev labels arrived"), as Potato 2.12.1 does it (``service.py``, ``_certify``,
its ``same_cert and used`` step).

The same-data test has failed already (some count moved), but the cert truths (their
count and their digest) are the stored result's, and the contract has spent a look: only
dev labels arrived, or (on a Potato project) predictions, or both. Then:

1. The contract is evaluated again at the stored result's look. For ``selective_risk``,
   when its ``signature`` (tiers, per-class split, the cert items' machine answers, each
   cell's dev threshold and whether it was tested, the tested cells) is the stored one,
   it is **the test already run**: recorded at that look (an ``evaluated`` event, fresh
   projection and dev counts), nothing spent. This holds with ``--retest`` too, and for
   the scheduler, as in Potato.
2. Otherwise dev now chooses another rule (an estimate has no signature: any dev label
   is that). An explicit certify without ``--retest``, with the predictions unchanged
   (``pred_mark``), returns **the stored result** with Potato's note, "Dev labels now
   choose a different rule; certify with retest to test it (look N+1)", and
   ``retest_available``; nothing is evaluated into the ledger, nothing spent.
3. Else (``--retest``, the scheduler, or predictions that moved) the caller tests at the
   next look, as Potato falls through to it.

Choices where the spec is silent, written here:

- The scheduler (the GUI's watcher, Potato's ``auto``) never takes step 2: it tests at
  the next look once its milestone is due, as Potato's planner does. Before the
  milestone it evaluates nothing, even where step 1 would apply (Potato's planner would
  store the same test again at its look, the same state with a fresh projection);
  an explicit certify does step 1.
- A Potato record that moved since Potato stored it stands, in ``status``, as the
  audit's evaluation of today's rows at its look. Step 2 returns **Potato's record
  itself**, as Potato does: that evaluation applies the rule dev now chooses, which no
  look has tested.
- Accord's own ``labeling/`` projects have no ``pred_mark``, so step 2 reads the cert
  truths and counts only (the same-data test there reads no predictions either); for
  ``selective_risk`` the signature still covers the cert items' machine answers.
- Like Potato, the note is not recorded: a later ``status`` shows the stored result
  without it. The window and the certificate built from that certify show it as they
  show certify's other notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.core.contracts.config.contract_specs import ContractSpec
from app.core.contracts.ledger.chain import Ledger
from app.core.contracts.ledger.results import record_evaluation
from app.core.contracts.potato_method.audit import Evaluate, signature
from app.core.contracts.potato_method.from_store import method_contract
from app.core.contracts.potato_method.names import accepts, cli_result
from app.core.contracts.potato_method.view import MethodView
from app.core.contracts.statistics.looks import look_level
from app.core.contracts.status import ContractStatus

KEY = "potato_method"
"""Where a look's ledger record keeps the result in Potato's shape."""
NEVER_SPEND = frozenset({"budget_first", "threshold_legacy"})
MOVES = ("n_dev", "pred_mark", "predictions")
"""What may have moved while the cert labels stayed: the dev count, the predictions
(Potato's ``pred_mark``; in Accord's own projects their digest, :mod:`.tested_setup`)."""
DIGESTS = ("cert_labels", "potato_cert")
"""The cert truths' digest: Accord's look's, Potato's record's (hashed its way)."""
DEV_NOTE = "Dev labels now choose"
"""How Potato's note begins (an older one is replaced, not repeated)."""


@dataclass(frozen=True, slots=True)
class Kept:
    """What certify returns when dev now chooses another rule: the stored result as
    stored (Potato's record itself for a record that moved) and the notes it comes with."""

    result: dict[str, Any]
    notes: list[str]


def status_of(spec: ContractSpec, ledger: Ledger, stored: dict[str, Any] | None,
              notes: list[str]) -> ContractStatus:
    """The contract's status as ``stored`` (a result in Potato's shape) says."""
    looks = ledger.looks(spec.id, spec.renamed_from)
    spent = ledger.level_spent(spec.id, spec.renamed_from)
    if stored is None:
        note = "not evaluated yet"
        if str(spec.kind) not in NEVER_SPEND:
            level = look_level(looks + 1, method_contract(spec).confidence)
            note += (f": 'accord label certify' evaluates it at look {looks + 1} "
                     f"(level {level:.6f})")
        return ContractStatus(spec, "insufficient", looks, spent, {}, [note], None)
    kind = str(spec.kind)
    return ContractStatus(spec, str(stored.get("status")), looks, spent,
                          cli_result(kind, stored), [*notes, *stored.get("notes", [])],
                          accepts_of(kind, stored))


def accepts_of(kind: str, stored: Mapping[str, Any]) -> dict[str, Any] | None:
    """The delivery rule of a met result of a kind that accepts labels."""
    if kind not in ("selective_risk", "threshold_legacy") or stored.get("status") != "met":
        return None
    return accepts(stored.get("acceptance"))


def same_cert(stored_counts: Mapping[str, Any], counts: Mapping[str, Any]) -> bool:
    """Whether the cert labels (count and truths) are those of the stored result. A
    stored result without the cert truths' digest (a Potato record without
    ``cert_labels``) is never the same, as in Potato."""
    return any(k in stored_counts for k in DIGESTS) and all(
        counts.get(k) == v for k, v in stored_counts.items() if k not in MOVES)


def _arrived(stored_counts: Mapping[str, Any], counts: Mapping[str, Any]) -> str:
    moved = [what for key, what in (("n_dev", "dev labels"), ("pred_mark", "predictions"),
                                    ("predictions", "changed predictions"))
             if key in stored_counts and counts.get(key) != stored_counts.get(key)]
    return " and ".join(moved) or "nothing the counts show"


def certify_same_cert(spec: ContractSpec, evaluate: Evaluate, view: MethodView,
                      view_notes: list[str], ledger: Ledger,
                      stored: dict[str, Any], stored_counts: Mapping[str, Any],
                      counts: dict[str, Any], kept: Kept, *, retest: bool, auto: bool
                      ) -> ContractStatus | None:
    """Steps 1 and 2 of the module for a contract whose cert labels are the stored
    result's (:func:`same_cert`); ``None``: step 3, the caller tests at the next look."""
    kind = str(spec.kind)
    looks = ledger.looks(spec.id, spec.renamed_from)
    if kind in NEVER_SPEND or not looks:
        return None
    if kind == "selective_risk":
        again = evaluate(method_contract(spec), view, looks).to_json()
        again["signature"] = signature(spec, view, again)
        if again["signature"] == stored.get("signature"):
            record_evaluation(ledger, spec.id, looks, {KEY: again, "counts": counts})
            arrived = _arrived(stored_counts, counts)
            return ContractStatus(
                spec, str(again.get("status")), looks,
                ledger.level_spent(spec.id, spec.renamed_from), cli_result(kind, again),
                [*view_notes, f"{arrived} arrived since the stored result, the cert labels "
                 "are the same and dev chose the same rule: the test already run, "
                 f"evaluated again at look {looks}, nothing spent (as Potato)",
                 *again.get("notes", [])], accepts_of(kind, again))
    if auto or retest or counts.get("pred_mark") != stored_counts.get("pred_mark") or (
            "predictions" in stored_counts
            and counts.get("predictions") != stored_counts["predictions"]):
        return None
    note = (f"{DEV_NOTE} a different rule; certify with retest to test it (look "
            f"{looks + 1}): 'accord label certify --retest' spends that look, as Potato's "
            "'certify --retest'")
    result = dict(kept.result, notes=[n for n in kept.result.get("notes") or []
                                      if not str(n).startswith(DEV_NOTE)])
    status = status_of(spec, ledger, result, [*kept.notes, note])
    status.retest_available = True
    return status
