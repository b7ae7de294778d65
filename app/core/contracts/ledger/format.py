"""The ledger's line format: entries, canonical JSON, hashing and parsing one line.

Pure: no file is read or written here. :mod:`app.core.contracts.ledger.chain` holds the
:class:`~app.core.contracts.ledger.chain.Ledger` that writes these lines and
:mod:`app.core.contracts.ledger.verify` checks a whole file of them.

Format
    One JSON object per line: compact (``,`` and ``:`` separators), sorted keys, UTF-8
    (not ASCII-escaped), ending in ``\\n``. Every line holds

    - ``kind``: ``"look"`` or ``"event"``;
    - ``n``: its own 1-based line number, so a deleted line leaves a visible gap and
      the number of lost lines is known (they are then charged as looks, see
      :mod:`app.core.contracts.ledger.verify`);
    - ``prev``: the hex SHA-256 of the previous line's exact bytes **without** its
      terminating newline; line 1 chains from ``GENESIS`` = SHA-256 of the ASCII string
      ``accord-ledger-v1``. Hashing raw bytes (never re-serialized JSON) means a line is
      checked exactly as it was written;
    - ``time`` (optional): an ISO 8601 UTC time stamp, informational only.

    A ``look`` line adds ``contract`` (its id), ``look`` (its number for that id,
    counting every cascade and any id it was renamed from), ``level`` (the error budget
    this look spent), ``data_hash`` (:func:`data_hash` of what was tested), ``rule``
    (the dev-chosen rule, any JSON), ``result`` (a JSON object) and ``cascade`` (a hash
    or the list of tier names).

    An ``event`` line adds ``event`` (its name) and ``details`` (a JSON object). Two
    names have a fixed shape: ``renamed`` (``{"contract": new id, "from": old id}``) and
    ``acknowledged_damage`` (written only by :meth:`Ledger.acknowledge_damage`).

    The looks an acknowledgement carries are read back, with those of look lines, as
    :class:`Charge` by :func:`_charges`.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from app.core.formats.reading.nesting import MAX_DEPTH, MAX_INT_DIGITS, within_bounds

LEDGER_FILE = Path("labeling") / "ledger.jsonl"
POTATO_LEDGER_FILE = Path(".accord") / "ledger.jsonl"
"""The ledger of a Potato engine project: ``.accord/`` is the only place Accord writes
there (``contracts.md``, "Agreeing with Potato 2.12.1", point 6)."""
HEAD_FILE = Path(".accord") / "ledger-head"
LOCK_FILE = Path(".accord") / "ledger.lock"
GENESIS = hashlib.sha256(b"accord-ledger-v1").hexdigest()
"""The ``prev`` of line 1: SHA-256 of the ASCII string ``accord-ledger-v1``."""


def ledger_file(project: Path) -> Path:
    """Where ``project``'s ledger is, relative to it: ``labeling/ledger.jsonl`` in Accord's
    own projects (and wherever one already exists), ``.accord/ledger.jsonl`` in a Potato
    project whose engine keeps its state in ``engine.sqlite``."""
    if (project / LEDGER_FILE).exists() or not (project / "engine.sqlite").is_file():
        return LEDGER_FILE
    return POTATO_LEDGER_FILE


RENAMED = "renamed"
ACKNOWLEDGED_DAMAGE = "acknowledged_damage"

_HEX = frozenset("0123456789abcdef")
_LOOK_KEYS = frozenset({"cascade", "contract", "data_hash", "kind", "level", "look", "n",
                        "prev", "result", "rule", "time"})
_EVENT_KEYS = frozenset({"details", "event", "kind", "n", "prev", "time"})
_OPTIONAL_KEYS = frozenset({"time"})


# ----------------------------------------------------------------------------- entries


@dataclass(frozen=True)
class Look:
    """One test of one contract, as recorded. ``line`` is its line in ``ledger.jsonl``."""

    line: int
    contract: str
    look: int
    level: float
    data_hash: str
    rule: Any
    result: dict[str, Any]
    cascade: str | list[str]
    prev: str
    time: str | None = None


@dataclass(frozen=True)
class Event:
    """Something that happened to the ledger or a contract and spent no look."""

    line: int
    event: str
    details: dict[str, Any]
    prev: str
    time: str | None = None


Entry = Look | Event


@dataclass(frozen=True)
class Charge:
    """A look that counts: from a look line, or carried by an acknowledgement."""

    contract: str
    look: int
    level: float


def line_hash(raw: bytes) -> str:
    """Hex SHA-256 of one line's bytes, newline excluded: the next line's ``prev``."""
    return hashlib.sha256(raw).hexdigest()


def canonical_json(value: Any) -> bytes:
    """Compact, key-sorted, UTF-8 JSON: the same value always gives the same bytes.

    NaN and infinities are refused (they are not JSON). NumPy scalars and arrays are
    accepted through their ``tolist()``, so callers need not convert counts first.
    """
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False, default=_plain)
    except ValueError as exc:
        raise ValueError(f"cannot record a value that is not JSON: {exc}") from exc
    return text.encode("utf-8")


def _plain(value: Any) -> Any:
    to_list = getattr(value, "tolist", None)
    if callable(to_list):
        return to_list()
    raise TypeError(f"cannot record a {type(value).__name__} in the ledger; expected JSON")


def data_hash(cert_labels: Any, predictions: Any, rule: Any) -> str:
    """SHA-256 of what a test read: the cert labels, the predictions and the rule.

    Two tests with the same hash tested the same thing, so the second is not a new look
    (:meth:`Ledger.stored_result`). Mappings are hashed key-sorted; lists keep their
    order, so pass labels and predictions keyed by item (or as sorted lists) to make the
    hash independent of file order.
    """
    payload = {"cert_labels": cert_labels, "predictions": predictions, "rule": rule}
    return hashlib.sha256(b"accord-data-v1\n" + canonical_json(payload)).hexdigest()


# ----------------------------------------------------------------------------- parsing


class _MalformedError(Exception):
    """A line that is not a ledger entry; the text says why, for the damage sentence."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _MalformedError(f"key '{key}' appears twice")
        result[key] = value
    return result


def _no_constant(name: str) -> NoReturn:
    raise _MalformedError(f"{name} is not JSON")


def _is_hash(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= _HEX


def _is_int(value: Any, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _is_level(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value) and 0 < value <= 1)


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _is_cascade(value: Any) -> bool:
    return _is_name(value) or (isinstance(value, list) and all(_is_name(v) for v in value))


def _require(condition: bool, why: str) -> None:
    if not condition:
        raise _MalformedError(why)


def _check_keys(obj: dict[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise _MalformedError(f"unknown key '{unknown[0]}'")
    missing = sorted(allowed - _OPTIONAL_KEYS - set(obj))
    if missing:
        raise _MalformedError(f"key '{missing[0]}' is missing")


def _check_acknowledgement(details: dict[str, Any]) -> None:
    _require(isinstance(details.get("problem"), str), "acknowledgement without its problem")
    counted = details.get("counted")
    if not isinstance(counted, list):
        raise _MalformedError("acknowledgement without 'counted' looks")
    for item in counted:
        _require(isinstance(item, dict) and _is_name(item.get("contract"))
                 and _is_int(item.get("look"), 1) and _is_level(item.get("level")),
                 "acknowledgement with a malformed counted look")
    _require(_is_int(details.get("unattributed"), 0),
             "acknowledgement without an 'unattributed' count")
    renamed = details.get("renamed")
    _require(isinstance(renamed, list) and all(
        isinstance(pair, list) and len(pair) == 2 and all(_is_name(v) for v in pair)
        for pair in renamed), "acknowledgement with malformed renames")


def _parse_entry(raw: bytes, line: int) -> tuple[Entry, int]:
    """One line's entry and its recorded ``n``; :class:`_MalformedError` says what is wrong."""
    if not raw.strip():
        raise _MalformedError("the line is empty")
    if not within_bounds(raw):  # issue 16: no RecursionError, no digit-limit ValueError
        raise _MalformedError(f"it nests deeper than {MAX_DEPTH} levels or holds a number of "
                              f"more than {MAX_INT_DIGITS} digits")
    try:
        obj = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates,
                         parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise _MalformedError("it is not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise _MalformedError(f"malformed JSON: {exc.msg} at column {exc.colno}") from exc
    _require(isinstance(obj, dict), "it is not a JSON object")
    kind = obj.get("kind")
    _require(kind in ("look", "event"), "its 'kind' is neither 'look' nor 'event'")
    _check_keys(obj, _LOOK_KEYS if kind == "look" else _EVENT_KEYS)
    _require(_is_hash(obj["prev"]), "'prev' is not a SHA-256 hex digest")
    _require(_is_int(obj["n"], 1), "'n' is not a line number")
    time = obj.get("time")
    _require(time is None or isinstance(time, str), "'time' is not text")
    if kind == "look":
        _require(_is_name(obj["contract"]), "'contract' is not a contract id")
        _require(_is_int(obj["look"], 1), "'look' is not a look number")
        _require(_is_level(obj["level"]), "'level' is not a level in (0, 1]")
        _require(_is_hash(obj["data_hash"]), "'data_hash' is not a SHA-256 hex digest")
        _require(isinstance(obj["result"], dict), "'result' is not a JSON object")
        _require(_is_cascade(obj["cascade"]), "'cascade' is neither a hash nor tier names")
        return Look(line=line, contract=obj["contract"], look=obj["look"],
                    level=float(obj["level"]), data_hash=obj["data_hash"], rule=obj["rule"],
                    result=obj["result"], cascade=obj["cascade"], prev=obj["prev"],
                    time=time), obj["n"]
    _require(_is_name(obj["event"]), "'event' is not an event name")
    details = obj["details"]
    _require(isinstance(details, dict), "'details' is not a JSON object")
    if obj["event"] == RENAMED:
        _require(_is_name(details.get("contract")) and _is_name(details.get("from")),
                 "a rename without 'contract' and 'from'")
    elif obj["event"] == ACKNOWLEDGED_DAMAGE:
        _check_acknowledgement(details)
    return Event(line=line, event=obj["event"], details=details, prev=obj["prev"],
                 time=time), obj["n"]


# ---------------------------------------------------------------------- counting


def _charges(entries: Iterable[Entry], ids: set[str] | None) -> list[Charge]:
    """The looks ``entries`` record for ``ids`` (all ids for ``None``), in file order.

    An acknowledgement contributes the looks it carried from the lines it set aside.
    """
    charges: list[Charge] = []
    for entry in entries:
        if isinstance(entry, Look) and (ids is None or entry.contract in ids):
            charges.append(Charge(entry.contract, entry.look, entry.level))
        elif isinstance(entry, Event) and entry.event == ACKNOWLEDGED_DAMAGE:
            charges.extend(Charge(item["contract"], item["look"], float(item["level"]))
                           for item in entry.details["counted"]
                           if ids is None or item["contract"] in ids)
    return charges


def _renames(entries: Iterable[Entry]) -> set[tuple[str, str]]:
    """``(new id, old id)`` pairs from rename events and acknowledgements."""
    pairs: set[tuple[str, str]] = set()
    for entry in entries:
        if isinstance(entry, Event) and entry.event == RENAMED:
            pairs.add((entry.details["contract"], entry.details["from"]))
        elif isinstance(entry, Event) and entry.event == ACKNOWLEDGED_DAMAGE:
            pairs.update((new, old) for new, old in entry.details["renamed"])
    return pairs


def _unattributed(entries: Iterable[Entry]) -> int:
    """Lost lines that acknowledgements among ``entries`` carried forward."""
    return sum(entry.details["unattributed"] for entry in entries
               if isinstance(entry, Event) and entry.event == ACKNOWLEDGED_DAMAGE)
