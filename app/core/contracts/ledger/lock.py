"""One certify at a time per project: an advisory lock on ``.accord/certify.lock``.

The ledger's own lock (``.accord/ledger.lock``, :func:`verify._locked`) is held only
while a line is written, so two ``certify`` runs at once kept the ledger right, but the
second computed its test at a look the first had just spent and then died on
:class:`~app.core.contracts.ledger.errors.LookConflictError`. This lock is held for the
whole of a ``certify`` (read, test, record), by the CLI and by the GUI's certify and
scheduler alike: both go through :func:`app.core.contracts.label_report.label_report`,
which takes it. A second run waits up to :data:`DEFAULT_WAIT` seconds (or
``$ACCORD_CERTIFY_WAIT``) and then gives up with :class:`CertifyBusyError`, one line.

``status`` never takes it: it never writes, and must not wait on a long certify.

POSIX: ``fcntl.flock`` (released by the kernel when the process dies, so a killed
certify never leaves the project locked). Windows: ``msvcrt.locking`` on the file's
first byte, likewise released on exit. Both are advisory: only Accord honours them.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from app.core.atomic import ensure_directory
from app.core.errors import InputError

CERTIFY_LOCK_FILE = Path(".accord") / "certify.lock"
DEFAULT_WAIT = 5.0
"""Seconds a second certify waits for the first before it gives up."""
WAIT_VARIABLE = "ACCORD_CERTIFY_WAIT"
_POLL = 0.05


class CertifyBusyError(InputError):
    """Another certify holds the project's lock: nothing was tested or recorded.

    An :class:`~app.core.errors.InputError` so that it takes bad input's one path: one
    line and exit 2 in the CLI, one line in the GUI's dialog, never a traceback.
    """


def certify_wait() -> float:
    """How long to wait for the lock: ``$ACCORD_CERTIFY_WAIT`` seconds, else 5."""
    text = os.environ.get(WAIT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_WAIT
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise InputError(f"expected a number of seconds >= 0, found '{text[:40]}'",
                         key=WAIT_VARIABLE)
    return value


@contextlib.contextmanager
def certify_lock(project: Path, *, wait: float | None = None) -> Iterator[None]:
    """Hold ``project``'s certify lock; :class:`CertifyBusyError` after ``wait`` seconds."""
    path = project / CERTIFY_LOCK_FILE
    seconds = certify_wait() if wait is None else wait
    try:
        ensure_directory(path.parent)
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise InputError(f"cannot open the certify lock ({exc.strerror or exc})",
                         file=path) from exc
    try:
        if not _acquire(descriptor, seconds):
            raise CertifyBusyError(
                f"another certify is running on this project (it holds this lock; waited "
                f"{seconds:g} s): nothing was tested, try again when it has finished",
                file=path)
        try:
            yield
        finally:
            _release(descriptor)
    finally:
        os.close(descriptor)


def _acquire(descriptor: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while True:
        if _try_lock(descriptor):
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(_POLL, left))


def _try_lock(descriptor: int) -> bool:
    if sys.platform == "win32":
        import msvcrt
        os.lseek(descriptor, 0, os.SEEK_SET)
        try:
            msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _release(descriptor: int) -> None:
    if sys.platform == "win32":
        import msvcrt
        os.lseek(descriptor, 0, os.SEEK_SET)
        msvcrt.locking(descriptor, msvcrt.LK_UNLCK, 1)
        return
    import fcntl
    fcntl.flock(descriptor, fcntl.LOCK_UN)
