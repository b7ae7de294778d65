"""Reading and verifying the ledger: the chain, the head and the one-sentence damage.

:func:`_verify` is pure: given the ledger's bytes and the head's text it checks every
line (:mod:`app.core.contracts.ledger.format`), the chain and the head, and finds the
intact prefix (below, "Damage and acknowledgement").
:func:`_read_state` reads both files; :func:`_locked` is the lock readers and writers
share. Nothing here writes to the ledger or repairs it.

Head
    ``.accord/ledger-head`` holds ``"<line count> <hash of the last line>\\n"``, rewritten
    after every append. Without it a deleted *last* line would leave a perfectly valid
    chain. A missing head beside a non-empty ledger is damage; neither file is fine.

    The ledger line is the one durable record of a look; the head is a cache of it,
    written after the line. A crash between the two leaves the ledger exactly one
    valid, hash-chained line ahead of its head, and that is **not** damage: the head
    is *behind* (:attr:`_State.head_behind`) and the next writer rebuilds it
    (:mod:`app.core.contracts.ledger.recovery`). A head behind can never hide a lost
    look (only a ledger behind its head can), so accepting it gives nothing back.
    "One line ahead" is read strictly: the head names line ``n − 1`` of ``n`` with that
    line's hash (the very first write puts ``0 <genesis>`` in the head before its line,
    so even it is one line ahead of a head, never of a missing one); or the last line is
    an ``acknowledged_damage`` event whose ``head_was`` is the head text found (the
    acknowledgement was written, its new head was not). A missing head is never "behind":
    deleting the head and the last lines must stay visible. Two lines ahead, or a head
    that names a line by the wrong hash, is damage as before.

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
import dataclasses
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from app.core.atomic import ensure_directory
from app.core.contracts.ledger.format import (
    ACKNOWLEDGED_DAMAGE,
    GENESIS,
    HEAD_FILE,
    LEDGER_FILE,
    LOCK_FILE,
    Entry,
    Event,
    _is_hash,
    _MalformedError,
    _parse_entry,
    ledger_file,
    line_hash,
)
from app.core.formats.reading.boundary import present, read_bytes

_LEDGER_NAME = LEDGER_FILE.as_posix()
_HEAD_NAME = HEAD_FILE.as_posix()


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
    head_behind: bool = False           # whole, but the head names the line before the last

    @property
    def head_line(self) -> str:
        """The head for the intact prefix: what a writer puts in ``.accord/ledger-head``."""
        return f"{self.intact_lines} {self.last_hash}\n"


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
                  head: tuple[int, str] | None, last: Entry | None) -> str | None:
    """The head's disagreement with a chain that is otherwise whole, or ``None``.

    A head exactly one line behind is no disagreement (:func:`_head_behind`).
    """
    if _head_behind(count, hashes, head_text, head, last):
        return None
    if head_text is None:
        if count == 0:
            return None
        return (f"{_LEDGER_NAME} has {count} lines but {_HEAD_NAME} is missing (the head is "
                "written with every line: it was deleted, or the ledger was copied without it)")
    if head is None:
        # one line on stderr whatever the head holds: control characters as escapes
        shown = head_text.strip()[:80].encode("unicode_escape").decode("ascii")
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
        return (f"{_LEDGER_NAME} has {count} lines but {_HEAD_NAME} names line {named} "
                f"({count - named} lines ahead of it, and a write adds one line before its "
                "head: lines were added by hand, or an older head was copied back)")
    return (f"{_LEDGER_NAME} has {count} lines but {_HEAD_NAME} names line {named}, which does "
            "not match it (the head or the ledger was altered)")


def _head_behind(count: int, hashes: list[str], head_text: str | None,
                 head: tuple[int, str] | None, last: Entry | None) -> bool:
    """Whether a whole chain is exactly one line ahead of its head (module docstring):
    a write was interrupted after its ledger line and before its head."""
    if count == 0 or head_text is None:
        return False
    if (isinstance(last, Event) and last.event == ACKNOWLEDGED_DAMAGE
            and last.details.get("head_was") == head_text.strip()):
        return True
    return head == (count - 1, hashes[count - 2] if count > 1 else GENESIS)


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
    last = parsed[-1][0] if parsed and parsed[-1] is not None else None
    if damage is None:
        damage = _head_problem(count, hashes, head_text, head, last)

    if damage is None:
        entries = tuple(item[0] for item in parsed if item is not None)
        return _State(raw=raw, head_text=head_text, entries=entries, unverified=(),
                      unattributed=0, damage=None, intact_lines=count,
                      intact_end=len(raw), last_hash=hashes[-1] if hashes else GENESIS,
                      head_behind=_head_behind(count, hashes, head_text, head, last))

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
    ledger, head = project / ledger_file(project), project / HEAD_FILE
    # Through the reader boundary (issue 16): a FIFO blocked here, a link to /dev/zero
    # read without end, a link out of the project was read as the ledger.
    raw = read_bytes(ledger, root=project) if present(ledger) else b""
    head_text: str | None = (read_bytes(head, root=project).decode("ascii", errors="replace")
                             if present(head) else None)
    state = _verify(raw, head_text)
    name = ledger_file(project).as_posix()
    if state.damage is not None and name != _LEDGER_NAME:  # say where this ledger is
        state = dataclasses.replace(state, damage=state.damage.replace(_LEDGER_NAME, name))
    return state


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
            # O_NONBLOCK: a lock file replaced by a FIFO must not block status (issue 16);
            # it does not change flock, which blocks or not by its own flag
            descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
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
