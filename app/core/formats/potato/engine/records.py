"""What Potato 2.12.1 recorded about its contracts, resolved labels and certificates, and
the human requests it made (:func:`read_requests`, :func:`read_done`).

**Requests.** Purposes ``calibration`` and ``certification`` are calibration requests
(blind, random); ``verify`` is a verification request; every other purpose
(distribution, audit, resolve, adjudicate, gold, organic) is counted in
:attr:`EngineStore.other_requests` and not read as a calibration label. ``split`` dev
or cert as stored (``none``: no split); ``pi`` is ``inclusion_prob`` as stored.
Status ``done`` is an answered request (its ``label_json``, answered at
``completed_at``), ``open``/``assigned`` unanswered, ``cancelled`` left out.
The annotator is ``user_id``, else ``assigned_user``. Potato overwrites an edited
label in place, so each request has one version.

These are Potato's own conclusions, read from ``engine.sqlite`` as stored, for the
audit beside Accord's recomputation (``contracts.md``, "Agreeing with Potato 2.12.1",
point 5) and the ``potato`` record of ``cli.md``:

- per contract id, the latest ``contract_version`` row (state, result, cascade hash,
  when) and the looks used: ``MAX(looks)`` over all the id's rows, across cascades, as
  Potato counts them (``store/dao.py``);
- per schema, the resolved labels counted by ``origin:status`` (``auto:accepted``...);
- the latest certificate row (its content hash and time).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.formats.labeling.data import LabelVersion, Request, RequestKind, Split
from app.core.formats.potato.engine.json_cells import json_column, stored_json
from app.core.formats.reading.nesting import within_bounds


@dataclass(frozen=True, slots=True)
class ContractRecord:
    """Potato's latest stored evaluation of one contract id."""

    contract_id: str
    kind: str
    state: str
    looks: int
    """Looks used: the maximum over every stored version of this id."""
    result: dict[str, Any] = field(hash=False)
    cascade_hash: str
    recorded_at: float
    version_id: int
    versions: int

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "looks": self.looks, "result": self.result}


@dataclass(frozen=True)
class EngineRecords:
    contracts: dict[str, ContractRecord] = field(default_factory=dict)
    history: tuple[ContractRecord, ...] = ()
    """Every stored evaluation in row order (``looks`` as stored on each row)."""
    resolved: dict[str, Counter[str]] = field(default_factory=dict)
    """schema → ``origin:status`` → count of resolved labels."""
    certificate: dict[str, Any] | None = None
    """The latest certificate row: ``id``, ``content_sha256``, ``created_at``."""
    adjudicated: dict[str, dict[str, Any]] = field(default_factory=dict)
    """schema → item → the adjudicated label (a resolved label of origin
    ``adjudicated``: it replaces the people's inferred truth, as in Potato)."""
    since: dict[str, SinceRecord] = field(default_factory=dict)
    """contract id → what the database gained after its latest record (see
    :class:`SinceRecord`)."""
    pred_marks: dict[str, int] = field(default_factory=dict)
    """schema → today's highest ``prediction.id`` (Potato's ``pred_mark``), for every
    schema with a record or a human request."""


@dataclass(frozen=True, slots=True)
class SinceRecord:
    """What reached a contract's schema after Potato stored its latest record: Potato's
    own same-data test compares the record's ``pred_mark`` with today's highest
    ``prediction.id`` of the schema (``service.py``, the certify shortcut), and a
    calibration label answered after the record can change a truth that neither
    ``n_dev`` nor the cert hashes see."""

    schema: str
    pred_mark: int | None
    """The record's ``pred_mark`` (``None``: it stored none)."""
    pred_mark_now: int
    """Today's highest ``prediction.id`` of the schema (0 without predictions)."""
    predictions_after: int
    """Predictions of the schema with an id above the record's ``pred_mark``."""
    labels_after: int
    """Calibration labels of the schema answered (``completed_at``) after the record."""
    cert_predictions_after: int = 0
    """Of :attr:`predictions_after`, those on an item with an answered ``cert`` request
    (what selective_risk's test reads; Potato's ``_signature`` hashes them)."""
    new_versions: int = 0
    """Source versions created after the record that made predictions after it: a
    changed source (a grown predictions file, another prompt) is a new cascade to
    Potato (its ``cascade_hash``), which Accord cannot recompute but sees this way."""


def read_records(db: sqlite3.Connection, shown: Path) -> EngineRecords:
    contracts: dict[str, ContractRecord] = {}
    history: list[ContractRecord] = []
    looks: Counter[str] = Counter()
    versions: Counter[str] = Counter()
    for ident, cid, kind, cascade, n, status, result, created in db.execute(
            "SELECT id, contract_id, kind, cascade_hash, looks, status, result_json,"
            " created_at FROM contract_version ORDER BY id"):
        cid = str(cid)
        looks[cid] = max(looks[cid], int(n or 0))
        versions[cid] += 1
        row = ContractRecord(cid, str(kind), str(status), int(n or 0), _object(result),
                             str(cascade), float(created), int(ident), 0)
        history.append(row)
        contracts[cid] = row
    contracts = {cid: ContractRecord(r.contract_id, r.kind, r.state, looks[cid], r.result,
                                     r.cascade_hash, r.recorded_at, r.version_id,
                                     versions[cid])
                 for cid, r in contracts.items()}
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    resolved: dict[str, Counter[str]] = {}
    if "resolved_label" in tables:
        for schema, origin, status, n in db.execute(
                "SELECT schema_name, origin, status, COUNT(*) FROM resolved_label"
                " GROUP BY schema_name, origin, status"):
            resolved.setdefault(str(schema), Counter())[f"{origin}:{status}"] = int(n)
    adjudicated: dict[str, dict[str, Any]] = {}
    if "resolved_label" in tables:
        for item, schema, value in db.execute(
                "SELECT item_id, schema_name, value_json FROM resolved_label"
                " WHERE origin = 'adjudicated' ORDER BY item_id"):
            adjudicated.setdefault(str(schema), {})[str(item)] = _json_value(value)
    certificate = None
    if "certificate" in tables:
        row = db.execute("SELECT id, content_sha256, created_at FROM certificate"
                         " ORDER BY id DESC LIMIT 1").fetchone()
        if row is not None:
            certificate = {"id": int(row[0]), "content_sha256": str(row[1]),
                           "created_at": float(row[2])}
    marks = _pred_marks(db, contracts)
    return EngineRecords(contracts, tuple(history), resolved, certificate, adjudicated,
                         _since(db, contracts, marks), marks)


def _pred_marks(db: sqlite3.Connection, contracts: dict[str, ContractRecord]
                ) -> dict[str, int]:
    """Today's ``pred_mark`` of every schema with a record or a human request (the query
    Potato's certify runs, one per schema)."""
    schemas = {str(s) for (s,) in db.execute("SELECT DISTINCT schema_name FROM human_request")}
    schemas |= {r.result["scheme"] for r in contracts.values()
                if isinstance(r.result.get("scheme"), str)}
    return {schema: int(db.execute(
        "SELECT COALESCE(MAX(id), 0) FROM prediction WHERE schema_name = ?",
        (schema,)).fetchone()[0]) for schema in sorted(schemas)}


def _since(db: sqlite3.Connection, contracts: dict[str, ContractRecord],
           marks: dict[str, int]) -> dict[str, SinceRecord]:
    """:class:`SinceRecord` of every contract whose record names its schema. Each count
    is a range of ``prediction``'s primary key above the mark (only what arrived is
    visited) or one pass over ``human_request``."""
    out: dict[str, SinceRecord] = {}
    purposes = ", ".join(f"'{p}'" for p in sorted(CALIBRATION_PURPOSES))
    for cid, record in contracts.items():
        schema = record.result.get("scheme")
        if not isinstance(schema, str):
            continue
        raw = record.result.get("pred_mark")
        mark = raw if isinstance(raw, int) and not isinstance(raw, bool) else None
        after = cert = versions = 0
        if mark is not None and mark < marks[schema]:
            after, cert, versions = (int(n or 0) for n in db.execute(
                "SELECT COUNT(*), SUM(item_id IN (SELECT item_id FROM human_request WHERE"
                f" schema_name = ? AND status = 'done' AND purpose IN ({purposes}) AND"
                " split = 'cert')), COUNT(DISTINCT CASE WHEN source_version_id IN (SELECT"
                " version_id FROM source_version WHERE created_at > ?) THEN"
                " source_version_id END) FROM prediction WHERE id > ? AND schema_name = ?",
                (schema, record.recorded_at, mark, schema)).fetchone())
        labels = int(db.execute(
            "SELECT COUNT(*) FROM human_request WHERE schema_name = ? AND status = 'done'"
            f" AND purpose IN ({purposes}) AND completed_at > ?",
            (schema, record.recorded_at)).fetchone()[0])
        out[cid] = SinceRecord(schema, mark, marks[schema], after, labels, cert, versions)
    return out


def _json_value(text: Any) -> Any:
    """A stored JSON value (``None`` when absent or unreadable)."""
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text) if within_bounds(text) else None
    except (ValueError, RecursionError):
        return None


def _object(text: Any) -> dict[str, Any]:
    try:
        if text and not within_bounds(text):
            return {"unreadable": str(text)[:200]}
        value = json.loads(text) if text else {}
    except (TypeError, ValueError, RecursionError):
        return {"unreadable": str(text)[:200]}
    return value if isinstance(value, dict) else {"value": value}


# ------------------------------------------------------------------- requests

CALIBRATION_PURPOSES = frozenset({"calibration", "certification"})
VERIFICATION_PURPOSES = frozenset({"verify"})


@dataclass(frozen=True, slots=True)
class DoneRequest:
    """One answered calibration or certification request, as Potato orders them
    (priority first, then id)."""

    id: int
    item: str
    schema: str
    split: str
    pi: float | None
    label: Any
    user: str | None


def read_done(db: sqlite3.Connection) -> tuple[DoneRequest, ...]:
    purposes = ", ".join(f"'{p}'" for p in sorted(CALIBRATION_PURPOSES))
    return tuple(
        DoneRequest(int(ident), str(item), str(schema), str(split),
                    None if pi is None else float(pi), stored_json(label),
                    None if user is None else str(user))
        for ident, item, schema, split, pi, label, user in db.execute(
            "SELECT id, item_id, schema_name, split, inclusion_prob, label_json, user_id"
            f" FROM human_request WHERE status = 'done' AND purpose IN ({purposes})"
            " ORDER BY priority DESC, id"))


def read_requests(db: sqlite3.Connection) -> tuple[tuple[Request, ...], Counter[str]]:
    out: list[Request] = []
    others: Counter[str] = Counter()
    parse = json_column()
    for (ident, item, schema, purpose, pi, split, status, label, user, assigned,
         done_at) in db.execute(
            "SELECT id, item_id, schema_name, purpose, inclusion_prob, split, status,"
            " label_json, user_id, assigned_user, completed_at FROM human_request"
            " ORDER BY id"):
        if purpose in CALIBRATION_PURPOSES:
            kind = RequestKind.CALIBRATION
        elif purpose in VERIFICATION_PURPOSES:
            kind = RequestKind.VERIFICATION
        else:
            others[str(purpose)] += 1
            continue
        if status == "cancelled":
            continue
        value = parse(label) if status == "done" else None
        history = (LabelVersion(value, int(ident), done_at),) if status == "done" \
            and value is not None else ()
        annotator = user or assigned
        out.append(Request(f"potato-{ident}", str(item), str(schema), kind,
                           None if pi is None else float(pi),
                           Split(split) if split in ("dev", "cert") else None,
                           None if annotator is None else str(annotator), history,
                           int(ident)))
    return tuple(out), others
