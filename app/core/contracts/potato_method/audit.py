"""Potato's record of each contract, audited against Accord's recomputation.

``contracts.md`` ("Agreeing with Potato 2.12.1", point 5, and "When Potato's record is
current"): for every contract of a Potato project, what Potato recorded (its latest
``contract_version`` row) beside Accord's own evaluation of the same contract with
Potato's method.

**Current or moved.** A record is current while the schema's calibration rows it used are
unchanged (its ``n_dev``, ``n_cert`` and cert truths, hashed as Potato hashes them, equal
today's, and no calibration label was answered after it) and its ``pred_mark`` equals
today's highest ``prediction.id`` of the schema: the three things Potato's own certify
shortcut compares (``service.py``, ``_certify``). :func:`moved_since` says in sentences
what moved.

- A **current** record is recomputed on the view Potato built for that row
  (:func:`~app.core.contracts.potato_method.from_store.method_view` with the rule stored
  before the certify call that wrote it, :func:`certify_run_start`), at the look Potato
  recorded: ``reproduced`` when the state and every number (acceptance, metrics,
  projection) are equal to 1e-9, else ``differs``, each difference a sentence naming
  what differs in words with both numbers.
- A **moved** record is evaluated on today's rows (today's route, every prediction) at
  the record's look, spending nothing (:attr:`Audit.fresh`, which ``label status``
  shows as the contract's result). If that differs from the record the verdict is
  ``stale`` and the differences begin with what moved; if it does not, the record still
  describes today's data: ``reproduced``.

A kind whose method is not written yet, or a scheme without a single-label family, has
verdict ``None`` and a sentence saying why. The audit never writes and spends nothing.

Where the spec is silent: a label answered after the record (``completed_at`` later than
the row's ``created_at``) counts as moved even when the counts are equal (a later person
on an overlap item can change a dev truth, which Potato's shortcut does not see:
``potato-engine.md`` §5, "Quirk seen"); a record that stored no ``pred_mark`` or no cert
hashes is judged on what it stored.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from app.core.contracts.config.contract_specs import ContractSpec
from app.core.contracts.config.engine_config import EngineConfig
from app.core.contracts.potato_method.from_store import (
    BuiltView,
    method_contract,
    method_view,
)
from app.core.contracts.potato_method.view import MethodResult, MethodView
from app.core.formats.potato.engine.records import ContractRecord, SinceRecord
from app.core.formats.potato.engine.store import EngineStore
from app.core.model import Scheme, Study

Evaluate = Callable[..., MethodResult]
"""``evaluate_<kind>(contract, view, look, **settings) -> MethodResult``."""
COMPARED = ("status", "acceptance", "metrics", "projection")


Today = Callable[[Scheme], BuiltView | None]
"""Today's view of a schema (today's route, every prediction), as certify builds it."""


@dataclass(frozen=True, slots=True)
class Audit:
    verdict: str | None
    differences: list[str] = field(default_factory=list)
    moved: tuple[str, ...] = ()
    """What moved since Potato's record, as sentences (empty: the record is current)."""
    fresh: dict[str, Any] | None = None
    """When something moved: the contract evaluated on today's rows at the record's
    look, in Potato's shape (nothing spent)."""
    look: int = 1
    """The record's look, at which :attr:`fresh` was evaluated."""
    new_cascade: bool = False
    """A source of the schema has a version newer than the record (to Potato, another
    cascade: its certify never reuses the record's test)."""

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


def audit_contracts(store: EngineStore, config: EngineConfig, study: Study,
                    today: Today | None = None) -> dict[str, Audit]:
    """One :class:`Audit` per configured contract. ``today``: how certify builds
    today's view of a schema (default: Potato's latest stored route)."""
    out: dict[str, Audit] = {}
    views: dict[tuple[str, int], BuiltView | None] = {}  # one certify call: one view
    now: dict[str, BuiltView | None] = {}

    def today_view(scheme: Scheme) -> BuiltView | None:
        if scheme.name not in now:
            now[scheme.name] = (today(scheme) if today is not None
                                else method_view(store, config, scheme))
        return now[scheme.name]

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
        moved = tuple(moved_since(record, store.records.since.get(spec.id), built.view))
        if moved:  # the labels it used, its cert truths or pred_mark: today's rows
            built = today_view(study.schemes[spec.schema])
            if built is None:  # pragma: no cover - the same family as above
                out[spec.id] = Audit("stale", list(moved), moved)
                continue
        mine = evaluate(method_contract(spec), built.view, look).to_json()
        differences = [d for key in COMPARED
                       for d in _differences(mine.get(key), record.result.get(key), key)]
        if moved:
            since = store.records.since.get(spec.id)
            out[spec.id] = Audit("stale" if differences else "reproduced",
                                 [*moved, *differences[:5]] if differences else [],
                                 moved, mine, look,
                                 since is not None and since.new_versions > 0)
        elif differences:
            out[spec.id] = Audit("differs", differences)
        else:
            out[spec.id] = Audit("reproduced")
    return out


def potato_cert_labels(view: MethodView) -> dict[str, str]:
    """Each cert item's truth hashed as Potato hashes it for its same-data test
    (``service.py`` ``_cert_labels``: the first ten hex digits of the SHA-256 of the
    label as sorted JSON)."""
    return {c.item: hashlib.sha256(json.dumps(c.truth, sort_keys=True, default=str)
                                   .encode()).hexdigest()[:10]
            for c in view.split("cert")}


def signature(spec: ContractSpec, view: MethodView, result: Mapping[str, Any]
              ) -> list[Any]:
    """What a selective_risk evaluation tested, as Potato's ``_signature`` writes it
    (``service.py``): the tiers, the per-class split, a hash of the cert items' machine
    answers, each cell's dev threshold and whether it was tested, the tested cells. Two
    evaluations with the same signature on the same cert labels are the same test."""
    answers = sorted([c.item, [None if t is None else [t.value, round(t.confidence, 9),
                                                       t.status] for t in c.tiers]]
                     for c in view.split("cert"))
    preds = hashlib.sha256(json.dumps(answers, default=str).encode()).hexdigest()[:16]
    metrics = result.get("metrics") or {}
    cells = metrics.get("cells") or {}
    per_class = spec.params.get("per_class") if "per_class" in spec.written else True
    return [list(view.tiers), bool(per_class), preds,
            sorted([k, v.get("lam_dev"), "tests" in v] for k, v in cells.items()),
            metrics.get("tested_cells")]


def moved_since(record: ContractRecord, since: SinceRecord | None, view: MethodView
                ) -> list[str]:
    """What moved since Potato stored ``record``, one sentence each (empty: current).
    ``view``: today's view of the schema (any route; the labels do not depend on it)."""
    stored = record.result
    out = _changed(stored, view)
    cert = stored.get("cert_labels")
    if isinstance(cert, Mapping) and isinstance(stored.get("n_cert"), int) \
            and stored["n_cert"] == len(view.split("cert")):
        mine = potato_cert_labels(view)
        edited = sum(1 for item, value in cert.items() if mine.get(str(item)) != value)
        if edited:
            out.append(f"{_count(edited, 'cert item')} {'has' if edited == 1 else 'have'} "
                       "another truth than when Potato recorded it")
    if since is None:
        return out
    if since.labels_after:
        out.append(f"{_count(since.labels_after, 'calibration label')} "
                   f"{'was' if since.labels_after == 1 else 'were'} answered after "
                   "Potato's record")
    if since.pred_mark is not None and since.pred_mark != since.pred_mark_now:
        if not since.predictions_after:  # rows removed: the mark went down
            out.append(f"the schema's highest prediction id is {since.pred_mark_now} now, "
                       f"{since.pred_mark} when Potato recorded it")
        else:
            out.append(f"{_count(since.predictions_after, 'prediction')} "
                       f"arrived after Potato's record: ids up to {since.pred_mark} then, "
                       f"{since.pred_mark_now} now")
        if since.new_versions:
            out.append(f"{_count(since.new_versions, 'source version')} made after "
                       "Potato's record labelled them (a changed source is a new cascade "
                       "to Potato)")
    return out


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


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
    return [f"{words[key]}: {stored[key]:,} when Potato recorded it, {now[key]:,} now"
            for key in now if isinstance(stored.get(key), int) and stored[key] != now[key]]


WORDS = {
    "measured_error": "measured error", "n": "number of labels", "N": "number of items",
    "p": "p-value", "lambda": "λ", "lam_dev": "threshold dev chose",
    "n_dev": "number of dev labels", "n_cert": "number of cert labels",
    "more_cert_labels": "cert labels still needed",
    "more_calibration_labels": "calibration labels still needed",
    "accepted": "number of accepted labels", "mean_js": "mean Jensen-Shannon distance",
    "winning_rate": "winning rate", "p_value_adjusted": "adjusted p-value",
    "p_value": "p-value", "lo": "lower end of the interval",
    "hi": "upper end of the interval", "machine_only": "machine-only estimate",
    "human_only": "people-only estimate", "estimate": "estimate",
}
"""A result key in words, where its name alone is not plain English."""
GROUPS = frozenset({"metrics", "projection", "estimates", "cells", "per_annotator", "all"})
"""Keys that only hold others: left out of the words."""


def _what(path: str) -> str:
    """``metrics.estimates.positive.interval[0]`` → "the lower end of the interval of
    positive": what a result path is, for a lead."""
    parts = re.findall(r"\[\d+\]|[^.\[\]]+", path)
    if parts[0] == "status":
        return "the state"
    if parts[0] == "acceptance" and len(parts) >= 3:
        cls = "every class" if parts[2] == "*" else parts[2]
        return f"the accepting threshold of {parts[1]} for {cls}"
    named = [i for i, part in enumerate(parts) if not part.startswith("[")]
    last = named[-1]
    key = parts[last]
    noun = WORDS.get(key, key.replace("_", " "))
    tail = parts[last + 1:]
    if tail and key == "interval" and tail[0] in ("[0]", "[1]"):
        noun = f"{'lower' if tail[0] == '[0]' else 'upper'} end of the interval"
    elif tail:
        noun += f" (entry {int(tail[0][1:-1]) + 1})"
    context: list[str] = []
    for i, part in enumerate(parts[1:last], start=1):
        if part.startswith("["):
            if parts[i - 1] == "tests":
                context[-1:] = [f"test {int(part[1:-1]) + 1}"]
            continue
        if part not in GROUPS:
            context.append(part)
    return f"the {noun}" + (f" of {', '.join(context)}" if context else "")


def _shown(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.10g}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, Mapping | list | tuple):
        return f"{len(value)} entries"
    return str(value)


def _differences(mine: Any, potato: Any, path: str) -> list[str]:
    """Each difference as a sentence: what differs in words, Accord's number and
    Potato's, and the result path."""
    if isinstance(mine, Mapping) and isinstance(potato, Mapping):
        out: list[str] = []
        for key in sorted(set(mine) | set(potato), key=str):
            where = f"{path}.{key}"
            if key not in mine or key not in potato:
                has, lacks = (("Accord's recomputation", "Potato's record")
                              if key in mine else ("Potato's record", "Accord's recomputation"))
                out.append(f"{_what(where)} is in {has} and not in {lacks} ({where})")
            else:
                out.extend(_differences(mine[key], potato[key], where))
        return out
    if isinstance(mine, list | tuple) and isinstance(potato, list | tuple):
        if len(mine) != len(potato):
            return [f"{_what(path)}: Accord computes {len(mine)} entries, Potato recorded "
                    f"{len(potato)} ({path})"]
        return [d for i, (a, b) in enumerate(zip(mine, potato, strict=True))
                for d in _differences(a, b, f"{path}[{i}]")]
    numbers = (int, float)
    if isinstance(mine, numbers) and isinstance(potato, numbers) \
            and not isinstance(mine, bool) and not isinstance(potato, bool):
        if math.isclose(mine, potato, rel_tol=1e-9, abs_tol=1e-12):
            return []
    elif mine == potato:
        return []
    return [f"{_what(path)}: Accord computes {_shown(mine)}, Potato recorded "
            f"{_shown(potato)} ({path})"]
