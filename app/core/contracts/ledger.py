"""The looks ledger: ``labeling/ledger.jsonl``, append-only and hash-chained.

Every test of a contract runs at a stricter level than the one before (look k gets
``(1 − confidence) · 6 / (π² k²)``). That only protects anyone if the number of looks
cannot be lowered: losing a look would let someone test until a contract passes. The
ledger is where looks are counted, so it is built to make a lost, reordered or altered
line visible, and to never give looks back.

Format
    One JSON object per line: compact (``,`` and ``:`` separators), sorted keys, UTF-8
    (not ASCII-escaped), ending in ``\\n``. Every line holds

    - ``kind``: ``"look"`` or ``"event"``;
    - ``n``: its own 1-based line number, so a deleted line leaves a visible gap and
      the number of lost lines is known (they are then charged as looks, see below);
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

Head
    ``.accord/ledger-head`` holds ``"<line count> <hash of the last line>\\n"``, rewritten
    after every append. Without it a deleted *last* line would leave a perfectly valid
    chain. A missing head beside a non-empty ledger is damage; neither file is fine.

Writing
    Appends rewrite the whole file atomically (:mod:`app.core.contracts.atomic`): temp
    file in the same folder, flush, ``fsync``, ``os.replace``, ``fsync`` of the folder;
    then the head the same way. A crash between the two leaves a ledger one line ahead
    of its head, which :meth:`Ledger.open` reports (it cannot be told apart from an old
    head copied back). Writers hold an exclusive lock on ``.accord/ledger.lock`` and
    re-read the ledger under it, so two processes cannot lose each other's looks.

Damage and acknowledgement
    :meth:`Ledger.open` never repairs anything: it reports the first problem in one
    sentence naming ``ledger.jsonl`` and the line, and appends are refused until
    :meth:`Ledger.acknowledge_damage`. What "carries on from what is intact" means:

    - The *intact prefix* is the lines that something later vouches for: line i is
      vouched for by line i+1's ``prev`` or, for the last line, by the head. The line
      just before a break is therefore **not** intact (an altered byte in line 4 shows
      as "line 5 does not chain from line 4", and line 4 itself is the suspect).
    - Acknowledging keeps the intact prefix byte for byte, copies every byte after it
      to ``.accord/ledger-damaged-<sha256 prefix>.jsonl`` for audit, and appends an
      ``acknowledged_damage`` event chained from the last intact line, then a new head.
    - Conservatively, nothing is given back. Every damaged line that still parses keeps
      its looks (its contract, number and level are copied into the event's
      ``counted``); every line known to be missing or unreadable (from the gap in
      ``n``, the head's line count or a line that no longer parses) is counted in
      ``unattributed`` and charged as one look to *every* contract, since nothing says
      whose look it was. Renames found in damaged lines are kept too. Looks are counted
      the same way before and after acknowledgement.
    - Results from damaged lines are never served again: :meth:`Ledger.stored_result`
      and :meth:`Ledger.last_look` only read intact lines, so a result edited to "met"
      cannot be reused; testing that data again is a new look.

    The chain detects accidents and casual edits; it is not a signature. Someone who
    recomputes every hash and the head can forge a ledger.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import math
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

from app.core.contracts.atomic import ensure_directory, write_atomically
from app.core.errors import InputError

LEDGER_FILE = Path("labeling") / "ledger.jsonl"
HEAD_FILE = Path(".accord") / "ledger-head"
LOCK_FILE = Path(".accord") / "ledger.lock"
GENESIS = hashlib.sha256(b"accord-ledger-v1").hexdigest()
"""The ``prev`` of line 1: SHA-256 of the ASCII string ``accord-ledger-v1``."""

RENAMED = "renamed"
ACKNOWLEDGED_DAMAGE = "acknowledged_damage"

_LEDGER_NAME = LEDGER_FILE.as_posix()
_HEAD_NAME = HEAD_FILE.as_posix()
_HEX = frozenset("0123456789abcdef")
_LOOK_KEYS = frozenset({"cascade", "contract", "data_hash", "kind", "level", "look", "n",
                        "prev", "result", "rule", "time"})
_EVENT_KEYS = frozenset({"details", "event", "kind", "n", "prev", "time"})
_OPTIONAL_KEYS = frozenset({"time"})


class LedgerDamagedError(Exception):
    """The ledger failed verification and the damage was not acknowledged.

    Not an :class:`~app.core.errors.InputError`: the CLI exits 1 for a damaged ledger
    and 2 for bad input, so the two must stay distinguishable.
    """

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(
            f"{problem}. Nothing was recorded; `accord label certify --acknowledge-ledger` "
            "records the damage and carries on from the intact lines")


class LookConflictError(Exception):
    """The look number a test ran at is not the next one (another process tested first).

    The test's level was computed for the wrong look, so its result must not be
    recorded: test again at the look the ledger now expects.
    """


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


# ------------------------------------------------------------------------ verification


@dataclass(frozen=True)
class _State:
    """What one read of the ledger and its head found; never modified."""

    raw: bytes
    head_text: str | None
    entries: tuple[Entry, ...]          # the intact prefix
    unverified: tuple[Entry, ...]       # parsable lines after it (only when damaged)
    unattributed: int                   # lines known missing or unreadable (when damaged)
    damage: str | None
    intact_lines: int
    intact_end: int                     # byte offset just after the intact prefix
    last_hash: str                      # hash of the last intact line, or GENESIS


def _parse_head(text: str) -> tuple[int, str] | None:
    parts = text.split()
    if len(parts) == 2 and parts[0].isascii() and parts[0].isdigit() and _is_hash(parts[1]):
        return int(parts[0]), parts[1]
    return None


def _chain_problem(line: int, recorded: int) -> str:
    source = f"line {line - 1}" if line > 1 else "the start of the ledger"
    text = (f"{_LEDGER_NAME}: line {line} does not chain from {source} "
            "(a line was deleted, reordered or altered")
    if recorded != line:
        text += f"; it records itself as line {recorded}"
    return text + ")"


def _head_problem(count: int, hashes: list[str], head_text: str | None,
                  head: tuple[int, str] | None) -> str | None:
    """The head's disagreement with a chain that is otherwise whole, or ``None``."""
    if head_text is None:
        if count == 0:
            return None
        return (f"{_LEDGER_NAME} has {count} lines but {_HEAD_NAME} is missing (the head is "
                "written with every line: it was deleted, or the ledger was copied without it)")
    if head is None:
        shown = head_text.strip()[:80]
        return (f"{_LEDGER_NAME}: {_HEAD_NAME} is unreadable (expected '<line count> "
                f"<sha256>', found '{shown}')")
    named, digest = head
    if named > count:
        lost = named - count
        what = "the last line was deleted" if lost == 1 else f"the last {lost} lines were deleted"
        if count == 0:
            return (f"{_LEDGER_NAME} is empty or missing but {_HEAD_NAME} names line {named} "
                    f"({what})")
        return f"{_LEDGER_NAME} ends at line {count} but {_HEAD_NAME} names line {named} ({what})"
    actual = hashes[named - 1] if named > 0 else GENESIS
    if named == count:
        if digest == actual:
            return None
        return (f"{_LEDGER_NAME}: line {count}, the last line, does not match {_HEAD_NAME} "
                "(the last line was altered or replaced)")
    if digest == actual:
        return (f"{_LEDGER_NAME} has {count} lines but {_HEAD_NAME} names line {named} (a write "
                "was interrupted before the head was updated, or an older head was copied back)")
    return (f"{_LEDGER_NAME} has {count} lines but {_HEAD_NAME} names line {named}, which does "
            "not match it (the head or the ledger was altered)")


def _verify(raw: bytes, head_text: str | None) -> _State:
    """Check every line, the chain and the head; find the intact prefix. Pure."""
    complete = raw == b"" or raw.endswith(b"\n")
    pieces = raw.split(b"\n")
    if complete:
        pieces.pop()
    count = len(pieces)
    hashes = [line_hash(piece) for piece in pieces]
    ends: list[int] = []
    offset = 0
    for piece in pieces:
        offset += len(piece) + 1
        ends.append(min(offset, len(raw)))
    parsed: list[tuple[Entry, int] | None] = []
    reasons: list[str] = []
    for number, piece in enumerate(pieces, start=1):
        try:
            parsed.append(_parse_entry(piece, number))
            reasons.append("")
        except _MalformedError as exc:
            parsed.append(None)
            reasons.append(str(exc))

    head = _parse_head(head_text) if head_text is not None else None
    damage: str | None = None
    failed_at = count + 1
    for number in range(1, count + 1):
        piece, found = pieces[number - 1], parsed[number - 1]
        if number == count and not complete:
            damage = (f"{_LEDGER_NAME}: line {number} is cut short (it has no newline at its "
                      "end: the file was truncated or a write was interrupted)")
        elif piece.endswith(b"\r"):
            damage = (f"{_LEDGER_NAME}: line {number} ends with a carriage return (its line "
                      "endings were converted, e.g. by git or an editor)")
        elif found is None:
            damage = (f"{_LEDGER_NAME}: line {number} is not a valid ledger entry "
                      f"({reasons[number - 1]})")
        elif found[0].prev != (hashes[number - 2] if number > 1 else GENESIS):
            damage = _chain_problem(number, found[1])
        elif found[1] != number:
            damage = (f"{_LEDGER_NAME}: line {number} records itself as line {found[1]} "
                      "(the line was altered)")
        if damage is not None:
            failed_at = number
            break
    if damage is None:
        damage = _head_problem(count, hashes, head_text, head)

    if damage is None:
        entries = tuple(item[0] for item in parsed if item is not None)
        return _State(raw=raw, head_text=head_text, entries=entries, unverified=(),
                      unattributed=0, damage=None, intact_lines=count,
                      intact_end=len(raw), last_hash=hashes[-1] if hashes else GENESIS)

    # Lines 1 .. failed_at-1 chain from the start; the last of them is vouched for only
    # by the head (its successor is missing or broken), so it is intact only if the
    # head names it exactly.
    candidate = failed_at - 1
    vouched = head is not None and head == (candidate, hashes[candidate - 1] if candidate
                                            else GENESIS)
    intact = candidate if vouched else max(candidate - 1, 0)
    kept = [item[0] for item in parsed[:intact] if item is not None]
    rest = [item for item in parsed[intact:] if item is not None]
    expected = max([count, head[0] if head is not None else 0, *(item[1] for item in rest)])
    unattributed = max(expected - intact - len(rest), 0)
    return _State(raw=raw, head_text=head_text, entries=tuple(kept),
                  unverified=tuple(item[0] for item in rest), unattributed=unattributed,
                  damage=damage, intact_lines=intact,
                  intact_end=ends[intact - 1] if intact else 0,
                  last_hash=hashes[intact - 1] if intact else GENESIS)


def _read_state(project: Path) -> _State:
    ledger, head = project / LEDGER_FILE, project / HEAD_FILE
    try:
        raw = ledger.read_bytes()
    except FileNotFoundError:
        raw = b""
    except OSError as exc:
        raise InputError(f"cannot read the ledger ({exc})", file=ledger) from exc
    try:
        head_text: str | None = head.read_bytes().decode("ascii", errors="replace")
    except FileNotFoundError:
        head_text = None
    except OSError as exc:
        raise InputError(f"cannot read the ledger head ({exc})", file=head) from exc
    return _verify(raw, head_text)


@contextlib.contextmanager
def _locked(project: Path, *, exclusive: bool) -> Iterator[None]:
    """Hold ``.accord/ledger.lock``: exclusive for writers, shared for readers.

    A reader never creates the lock file (``status`` never writes): without it no
    writer has ever run. Windows has no shared lock; readers there rely on each file
    being replaced atomically and may, in a rare race, see a head one line behind.
    """
    path = project / LOCK_FILE
    if exclusive:
        ensure_directory(path.parent)
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    else:
        try:
            if sys.platform == "win32":
                raise FileNotFoundError(path)
            descriptor = os.open(path, os.O_RDONLY)
        except OSError:  # never written, or not ours to open: read without the lock
            yield
            return
    try:
        if sys.platform == "win32":
            import msvcrt
            msvcrt.locking(descriptor, msvcrt.LK_LOCK, 1)
            try:
                yield
            finally:
                os.lseek(descriptor, 0, os.SEEK_SET)
                msvcrt.locking(descriptor, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl
            fcntl.flock(descriptor, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield
    finally:
        os.close(descriptor)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# ------------------------------------------------------------------------------ ledger


class Ledger:
    """A verified view of one project's ledger, and the only way to write to it.

    Open it with :meth:`open`. Queries answer from what was read; every write takes the
    lock, re-reads and re-verifies the files, and refreshes this view, so a stale view
    can never overwrite another process's look.
    """

    def __init__(self, project: Path, state: _State) -> None:
        """Use :meth:`open`; this wraps an already verified state."""
        self.project = project
        self._state = state

    @classmethod
    def open(cls, project: Path) -> Ledger:
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
        return cls(project, state)

    # ------------------------------------------------------------------- the view

    @property
    def path(self) -> Path:
        return self.project / LEDGER_FILE

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
        return recorded + self.unattributed

    def level_spent(self, contract_id: str, renamed_from: str | None = None) -> float:
        """Sum of the levels of the recorded looks (lost lines' levels are unknown)."""
        return math.fsum(c.level for c in self._charges(self.ids(contract_id, renamed_from)))

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
            records: list[dict[str, Any]] = []
            stamp = time if time is not None else _now()
            if (renamed_from and renamed_from != contract
                    and (contract, renamed_from) not in current.renames()):
                records.append({"kind": "event", "event": RENAMED, "time": stamp,
                                "details": {"contract": contract, "from": renamed_from}})
            records.append({"kind": "look", "contract": contract, "look": look,
                            "level": float(level), "data_hash": data_hash, "rule": rule,
                            "result": result, "cascade": cascade, "time": stamp})
            written = self._commit(current._state, records)
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
        ledger is whole. Order of writes: the side file with the damaged bytes, then the
        ledger, then the head; a crash anywhere leaves a state that ``open`` reports and
        that can be acknowledged again without losing anything.
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
            written = self._commit(kept, [record])
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

    def _commit(self, base: _State, records: list[dict[str, Any]]) -> list[Entry]:
        """Chain ``records`` after ``base``'s intact lines; write the ledger, then the head."""
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
        write_atomically(self.project / LEDGER_FILE, bytes(data))
        write_atomically(self.project / HEAD_FILE, head_text.encode("ascii"))
        self._state = _verify(bytes(data), head_text)
        return written


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


def _require_argument(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)
