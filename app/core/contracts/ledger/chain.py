"""The looks ledger: ``labeling/ledger.jsonl``, append-only and hash-chained.

Every test of a contract runs at a stricter level than the one before (look k gets
``(1 − confidence) · 6 / (π² k²)``). That only protects anyone if the number of looks
cannot be lowered: losing a look would let someone test until a contract passes. The
ledger is where looks are counted, so it is built to make a lost, reordered or altered
line visible, and to never give looks back.

The ledger is split in three: :mod:`app.core.contracts.ledger.format` (the line
format, hashing and parsing), :mod:`app.core.contracts.ledger.verify` (reading, the
chain and head checks, the damage sentences) and this module, the :class:`Ledger`
itself (queries and writes). The public names of all three are importable from here.

Writing
    Appends rewrite the whole file atomically (:mod:`app.core.atomic`): temp
    file in the same folder, flush, ``fsync``, ``os.replace``, ``fsync`` of the folder;
    then the head the same way. Every write adds exactly one line (a rename and the look
    after it are two writes), so a crash between the ledger and its head leaves the
    ledger one valid line ahead: the line is the durable record, the look is kept, and
    the head, a cache, is rebuilt by the next write (``verify``'s "Head"). Writers hold
    an exclusive lock on ``.accord/ledger.lock`` and re-read the ledger under it, so two
    processes cannot lose each other's looks; ``certify`` as a whole holds
    :mod:`app.core.contracts.ledger.lock` as well, so two never test at the same look.

Damage and acknowledgement
    :meth:`Ledger.open` reports damage and never repairs it; what counts as intact and
    what :meth:`Ledger.acknowledge_damage` keeps is set out in
    :mod:`app.core.contracts.ledger.verify`.
"""

from __future__ import annotations

import copy
import hashlib
import math
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.core.atomic import write_atomically
from app.core.contracts.ledger.errors import LedgerDamagedError, LookConflictError
from app.core.contracts.ledger.format import (
    ACKNOWLEDGED_DAMAGE,
    GENESIS,
    HEAD_FILE,
    LEDGER_FILE,
    LOCK_FILE,
    RENAMED,
    Charge,
    Entry,
    Event,
    Look,
    _charges,
    _is_cascade,
    _is_hash,
    _is_int,
    _is_level,
    _is_name,
    _MalformedError,
    _parse_entry,
    _renames,
    _unattributed,
    canonical_json,
    data_hash,
    ledger_file,
    line_hash,
)
from app.core.contracts.ledger.verify import _locked, _read_state, _State, _verify

__all__ = [  # the public names, wherever they now live
    "ACKNOWLEDGED_DAMAGE", "GENESIS", "HEAD_FILE", "LEDGER_FILE", "LOCK_FILE", "RENAMED",
    "Charge", "Entry", "Event", "Ledger", "LedgerDamagedError", "Look", "LookConflictError",
    "canonical_json", "data_hash", "line_hash",
]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# ------------------------------------------------------------------------------ ledger


class Ledger:
    """A verified view of one project's ledger, and the only way to write to it.

    Open it with :meth:`open`. Queries answer from what was read; every write takes the
    lock, re-reads and re-verifies the files, and refreshes this view, so a stale view
    can never overwrite another process's look.
    """

    def __init__(self, project: Path, state: _State,
                 prior: Mapping[str, tuple[int, float]] | None = None) -> None:
        """Use :meth:`open`; this wraps an already verified state."""
        self.project = project
        self._state = state
        self.prior: Mapping[str, tuple[int, float]] = dict(prior or {})
        """contract id → (looks, level) spent before this ledger: by Potato's own engine
        in a Potato project. The next look continues after them; they are never given
        back (``contracts.md``, "Agreeing with Potato 2.12.1", point 6)."""

    @classmethod
    def open(cls, project: Path, prior: Mapping[str, tuple[int, float]] | None = None
             ) -> Ledger:
        """Read and verify ``<project>/labeling/ledger.jsonl`` and its head; never write.

        Damage is reported in :attr:`damage`, not raised: ``status`` must still show it.
        An unreadable file (permissions) is an :class:`~app.core.errors.InputError`.
        """
        lock = project / LOCK_FILE
        had_lock = lock.exists()
        with _locked(project, exclusive=False):
            state = _read_state(project)
        if not had_lock and lock.exists():
            # The first writer started while we read without a lock: read again.
            with _locked(project, exclusive=False):
                state = _read_state(project)
        return cls(project, state, prior)

    # ------------------------------------------------------------------- the view

    @property
    def path(self) -> Path:
        return self.project / ledger_file(self.project)

    @property
    def head_path(self) -> Path:
        return self.project / HEAD_FILE

    @property
    def damage(self) -> str | None:
        """One sentence naming ``ledger.jsonl``, the line and what is wrong; ``None`` if whole."""
        return self._state.damage

    @property
    def ok(self) -> bool:
        return self._state.damage is None

    @property
    def report(self) -> dict[str, Any]:
        """The ``"ledger"`` block of ``status --json``: ``{"ok", "problem"}``."""
        return {"ok": self.ok, "problem": self._state.damage}

    @property
    def entries(self) -> tuple[Entry, ...]:
        """The intact entries, in file order (all of them when the ledger is whole)."""
        return self._state.entries

    @property
    def unverified(self) -> tuple[Entry, ...]:
        """Entries after the intact prefix of a damaged ledger: they count, they never serve."""
        return self._state.unverified

    @property
    def unattributed(self) -> int:
        """Lines missing or unreadable, each charged as a look to every contract."""
        return self._state.unattributed + _unattributed(self._all())

    # ---------------------------------------------------------------- queries

    def _all(self) -> tuple[Entry, ...]:
        return self._state.entries + self._state.unverified

    def _everything(self) -> Iterator[tuple[Entry, bool]]:
        for entry in self._state.entries:
            yield entry, True
        for entry in self._state.unverified:
            yield entry, False

    def renames(self) -> set[tuple[str, str]]:
        """Every recorded ``(new id, old id)``, damaged lines included."""
        return _renames(self._all())

    def ids(self, contract_id: str, renamed_from: str | None = None) -> set[str]:
        """The ids whose looks ``contract_id`` carries: itself, and back through renames.

        Renames recorded in the ledger are followed even when the configuration no
        longer says ``renamed_from``, so dropping that key cannot give looks back.
        """
        found = {contract_id}
        if renamed_from:
            found.add(renamed_from)
        pairs = self.renames()
        grew = True
        while grew:
            older = {old for new, old in pairs if new in found}
            grew = not older <= found
            found |= older
        return found

    def _charges(self, ids: set[str]) -> list[Charge]:
        return _charges(self._all(), ids)

    def looks(self, contract_id: str, renamed_from: str | None = None) -> int:
        """Looks spent so far by this contract, across every cascade; the next is this + 1.

        The larger of the highest recorded look number and the number of looks recorded
        (so an edited number or a duplicated line never lowers it), plus every line known
        to be lost or unreadable.
        """
        charges = self._charges(self.ids(contract_id, renamed_from))
        recorded = max([len(charges), *(charge.look for charge in charges)])
        return max(recorded + self.unattributed, self.prior.get(contract_id, (0, 0.0))[0])

    def level_spent(self, contract_id: str, renamed_from: str | None = None) -> float:
        """Sum of the levels of the recorded looks (lost lines' levels are unknown), and of
        the looks spent before the ledger (:attr:`prior`)."""
        own = [c.level for c in self._charges(self.ids(contract_id, renamed_from))]
        return math.fsum([*own, self.prior.get(contract_id, (0, 0.0))[1]])

    def _latest(self, ids: set[str]) -> tuple[Look | None, bool]:
        """The contract's latest look, whether it is intact; ``(None, False)`` if none."""
        latest: Look | None = None
        verified = False
        for entry, intact in self._everything():
            if isinstance(entry, Look) and entry.contract in ids:
                latest, verified = entry, intact
            elif (isinstance(entry, Event) and entry.event == ACKNOWLEDGED_DAMAGE
                  and any(item["contract"] in ids for item in entry.details["counted"])):
                latest, verified = None, False
        return latest, verified

    def last_look(self, contract_id: str, renamed_from: str | None = None) -> Look | None:
        """The contract's latest look, or ``None``: never tested, or that look is damaged.

        A damaged latest look is not trusted (its result may have been edited), so the
        caller treats the contract as untested; its look still counts in :meth:`looks`.
        """
        latest, verified = self._latest(self.ids(contract_id, renamed_from))
        return latest if verified else None

    def stored_result(self, contract_id: str, data_hash: str, rule: Any,
                      renamed_from: str | None = None) -> dict[str, Any] | None:
        """The result to show instead of testing again, or ``None`` (a new look is due).

        Only the contract's *latest* look is reused, and only when it tested the same
        data with the same rule: reaching back to an earlier look would let one pick the
        best of several results (returning to an earlier cascade is a new look).
        """
        latest = self.last_look(contract_id, renamed_from)
        if latest is None or latest.data_hash != data_hash:
            return None
        if canonical_json(latest.rule) != canonical_json(rule):
            return None
        return copy.deepcopy(latest.result)

    # ----------------------------------------------------------------- writing

    def append_look(self, contract: str, *, look: int, level: float, data_hash: str,
                    rule: Any, result: dict[str, Any], cascade: str | list[str],
                    renamed_from: str | None = None, time: str | None = None) -> Look:
        """Record one test; return once it is on disk.

        ``look`` must be the next look (:meth:`looks` + 1, counted afresh under the lock);
        otherwise :class:`LookConflictError`, because the test ran at the wrong level.
        With ``renamed_from``, a ``renamed`` event is written first (once) so the old
        id's looks stay with this contract even if the configuration later forgets it.
        Raises :class:`LedgerDamagedError` when the ledger is damaged.
        """
        _require_argument(_is_name(contract), "the contract id must be non-empty text")
        _require_argument(_is_int(look, 1), "the look number must be an integer >= 1")
        _require_argument(_is_level(level), "the level must be a number in (0, 1]")
        _require_argument(_is_hash(data_hash), "data_hash must be a SHA-256 hex digest")
        _require_argument(isinstance(result, dict), "the result must be a JSON object")
        _require_argument(_is_cascade(cascade), "the cascade must be a hash or tier names")
        with _locked(self.project, exclusive=True):
            current = self._fresh()
            expected = current.looks(contract, renamed_from) + 1
            if look != expected:
                raise LookConflictError(
                    f"contract '{contract}' is at look {expected}, not {look}: another test "
                    f"was recorded meanwhile; test again at look {expected}'s level")
            stamp = time if time is not None else _now()
            if (renamed_from and renamed_from != contract
                    and (contract, renamed_from) not in current.renames()):
                self._commit(current._state, [{  # its own write: one line ahead at most
                    "kind": "event", "event": RENAMED, "time": stamp,
                    "details": {"contract": contract, "from": renamed_from}}])
            written = self._commit(self._state, [{
                "kind": "look", "contract": contract, "look": look, "level": float(level),
                "data_hash": data_hash, "rule": rule, "result": result, "cascade": cascade,
                "time": stamp}])
        entry = written[-1]
        assert isinstance(entry, Look)
        return entry

    def append_event(self, event: str, details: dict[str, Any] | None = None, *,
                     time: str | None = None) -> Event:
        """Record an event (``renamed``, or any other name); return once it is on disk.

        ``acknowledged_damage`` is refused here: only :meth:`acknowledge_damage` may
        write it, because its counts decide how many looks survive damage.
        """
        _require_argument(_is_name(event), "the event name must be non-empty text")
        _require_argument(event != ACKNOWLEDGED_DAMAGE,
                          "record damage with acknowledge_damage(), not append_event()")
        record = {"kind": "event", "event": event, "details": dict(details or {}),
                  "time": time if time is not None else _now()}
        with _locked(self.project, exclusive=True):
            current = self._fresh()
            written = self._commit(current._state, [record])
        entry = written[-1]
        assert isinstance(entry, Event)
        return entry

    def acknowledge_damage(self, problem: str | None = None, *,
                           time: str | None = None) -> Event | None:
        """Record the damage as an event and carry on from the intact lines.

        ``problem``, when given, must be the damage the user was shown; if the files
        changed since, :class:`LedgerDamagedError` names the new problem instead of
        acknowledging something unseen. Returns ``None`` (and writes nothing) when the
        ledger is whole. Order of writes: the side file with the damaged bytes, the ledger,
        the head. Killed before the head, the event is one line ahead of the head it names
        as ``head_was`` (whole: ``verify``'s "Head"); earlier, or with no head to name, the
        damage is shown again and acknowledging it again loses and adds no look.
        """
        with _locked(self.project, exclusive=True):
            state = _read_state(self.project)
            self._state = state
            if state.damage is None:
                return None
            if problem is not None and problem != state.damage:
                raise LedgerDamagedError(state.damage)
            damaged = state.raw[state.intact_end:]
            side: str | None = None
            digest = hashlib.sha256(damaged).hexdigest()
            if damaged:
                side_path = self.project / ".accord" / f"ledger-damaged-{digest[:16]}.jsonl"
                write_atomically(side_path, damaged)
                side = side_path.relative_to(self.project).as_posix()
            counted = [{"contract": c.contract, "look": c.look, "level": c.level}
                       for c in _charges(state.unverified, None)]
            details = {
                "problem": state.damage,
                "kept_lines": state.intact_lines,
                "damaged_file": side,
                "damaged_sha256": digest,
                "damaged_lines": damaged.count(b"\n") + (0 if damaged.endswith(b"\n")
                                                         or not damaged else 1),
                "head_was": state.head_text.strip() if state.head_text is not None else None,
                "counted": counted,
                "renamed": sorted([new, old] for new, old in _renames(state.unverified)),
                "unattributed": state.unattributed + _unattributed(state.unverified),
            }
            record = {"kind": "event", "event": ACKNOWLEDGED_DAMAGE, "details": details,
                      "time": time if time is not None else _now()}
            kept = _State(raw=state.raw[:state.intact_end], head_text=None,
                          entries=state.entries, unverified=(), unattributed=0, damage=None,
                          intact_lines=state.intact_lines, intact_end=state.intact_end,
                          last_hash=state.last_hash)
            written = self._commit(kept, [record], catch_up=False)
        entry = written[-1]
        assert isinstance(entry, Event)
        return entry

    def _fresh(self) -> Ledger:
        """Re-read under the writer's lock; refuse a damaged ledger."""
        state = _read_state(self.project)
        self._state = state
        if state.damage is not None:
            raise LedgerDamagedError(state.damage)
        return self

    def _commit(self, base: _State, records: list[dict[str, Any]], *,
                catch_up: bool = True) -> list[Entry]:
        """Chain ``records`` after ``base``'s intact lines; write the ledger, then the head.

        With ``catch_up`` a head behind, or missing before the first line, is written
        first, so a crash never leaves the ledger more than one line ahead of a head.
        An acknowledgement passes ``False``: its old head is evidence until it is written.
        """
        data = bytearray(base.raw[:base.intact_end])
        previous, number = base.last_hash, base.intact_lines
        written: list[Entry] = []
        for record in records:
            number += 1
            line = canonical_json({**record, "prev": previous, "n": number})
            try:  # what is written must read back: the writer and reader share one schema
                entry, _ = _parse_entry(line, number)
            except _MalformedError as exc:
                raise ValueError(f"refusing to record an invalid ledger line ({exc})") from exc
            written.append(entry)
            data += line + b"\n"
            previous = line_hash(line)
        head_text = f"{number} {previous}\n"
        if catch_up and (base.head_behind or (base.head_text is None and not base.raw)):
            write_atomically(self.head_path, base.head_line.encode("ascii"))
        write_atomically(self.path, bytes(data))
        write_atomically(self.head_path, head_text.encode("ascii"))
        self._state = _verify(bytes(data), head_text)
        return written


def _require_argument(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)
