"""After a crash: stray temporary files removed, a head left behind caught up.

A write to the ledger (:func:`app.core.atomic.write_atomically`) goes through a
temporary file beside its target, ``.<name>.<random>.tmp``; a process killed before its
``os.replace`` leaves that file behind, and one killed between the ledger line and the
head leaves the head one line behind (not damage: ``verify``'s "Head"). Neither loses or
adds a look. :func:`recover`, run by every ``certify`` before it reads the ledger, puts
both right, so a crash leaves no trace after the next run.

Only our own temporary files are removed: the ledger's, the head's and the damaged-lines
side file's, in the two folders the ledger lives in. They are only ever written under
the exclusive ledger lock, which :func:`recover` holds, so none of them can belong to a
write still in progress.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from pathlib import Path

from app.core.atomic import write_atomically
from app.core.contracts.ledger.format import HEAD_FILE, LEDGER_FILE, POTATO_LEDGER_FILE
from app.core.contracts.ledger.verify import _locked, _read_state

_STRAY = re.compile(r"\.(ledger\.jsonl|ledger-head|ledger-damaged-[0-9a-f]{16}\.jsonl)"
                    r"\.[A-Za-z0-9_]+\.tmp")
"""``tempfile.mkstemp(prefix=".<name>.", suffix=".tmp")`` for our three file names."""
_FOLDERS = (LEDGER_FILE.parent, POTATO_LEDGER_FILE.parent, HEAD_FILE.parent)


@dataclass(frozen=True)
class Recovered:
    """What :func:`recover` put right (nothing, after a clean run)."""

    removed: tuple[str, ...]
    """Project-relative names of the stray temporary files removed."""
    head_rebuilt: bool
    """Whether the head was one line behind its ledger and was rewritten."""


def stray_files(project: Path) -> list[Path]:
    """Our temporary files left in ``project`` by an interrupted write."""
    found: list[Path] = []
    for folder in dict.fromkeys(_FOLDERS):
        with contextlib.suppress(OSError):
            found.extend(p for p in sorted((project / folder).iterdir())
                         if _STRAY.fullmatch(p.name) and p.is_file())
    return found


def recover(project: Path) -> Recovered:
    """Remove stray temporary files and rebuild a head one line behind; never a look.

    Does nothing (and creates nothing, not even the ledger's lock file) when there is
    nothing to put right. A damaged ledger is left as it is: only
    ``--acknowledge-ledger`` deals with damage.
    """
    if not stray_files(project):
        with _locked(project, exclusive=False):
            if not _read_state(project).head_behind:
                return Recovered((), False)
    with _locked(project, exclusive=True):
        removed: list[str] = []
        for path in stray_files(project):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed.append(path.relative_to(project).as_posix())
        state = _read_state(project)
        rebuilt = state.damage is None and state.head_behind
        if rebuilt:
            write_atomically(project / HEAD_FILE, state.head_line.encode("ascii"))
    return Recovered(tuple(removed), rebuilt)
