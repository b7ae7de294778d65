"""Durable, atomic file replacement: a reader sees the old content or the new, never half.

The ledger's promise ("flushed to disk before a result is shown") rests on these steps:
the new content goes to a temporary file in the *same folder* (so the rename cannot
cross file systems), is flushed and ``fsync``-ed, replaces the target with
``os.replace`` (atomic on POSIX and Windows), and the folder itself is ``fsync``-ed so
the rename survives a power cut. Any failure before the rename removes the temporary
file and leaves the target untouched.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path


def fsync_directory(path: Path) -> None:
    """Flush a folder's entries (a rename, a new file) to disk.

    Windows cannot open a folder for ``fsync``; there NTFS journals the rename itself,
    so this is a no-op.
    """
    if sys.platform == "win32":
        return
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def ensure_directory(path: Path) -> None:
    """Create ``path`` and missing parents, each made durable in its own parent folder."""
    missing: list[Path] = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir()
        fsync_directory(folder.parent)


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``; return only once both are on disk.

    The temporary file is named ``.<name>.<random>.tmp`` beside the target, so a crash
    can leave at most such a stray file, never a partial target. The target keeps its
    permission bits (a new one gets ``0o644``): ``mkstemp`` alone would make it private.
    """
    folder = path.parent
    ensure_directory(folder)
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o644
    descriptor, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    temporary = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        temporary.chmod(mode)
        # os.replace, not Path.replace: one well-known call that tests can interrupt.
        os.replace(temporary, path)  # noqa: PTH105
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    fsync_directory(folder)
