"""The one door every file Accord reads goes through: inside the project, regular, bounded.

Why one door: the readers grew one by one, and each checked a different part of what a
hostile or damaged project can hold. A data file linked out of the project was refused
while a ``user_state.json`` linked out was read; a ``requests.jsonl`` that is a FIFO
read as empty (or blocked forever), one linked to ``/dev/zero`` made its annotator
silently vanish. Here every file is checked the same way before a byte is read:

- **links are resolved** and the real file must lie inside ``root`` (the project
  folder; by default the folder the file is named in), whatever key or path led to it;
- it must be a **regular file**: a FIFO, a device, a socket or a folder is refused
  with ``os.stat`` *before* opening (opening a FIFO blocks until a writer comes), and
  the file is then opened with ``O_NONBLOCK`` and checked again with ``fstat`` (so a
  file swapped for a FIFO between the two is refused, not waited on);
- it may hold at most :data:`MAX_FILE_BYTES` (512 MiB): the largest real inputs are a
  few hundred MB (a 100,000-item lidar ``user_state.json``), and a sparse or runaway
  file of many GB would otherwise be parsed into many times its size in memory.

Depth and number limits of what is *parsed* are in :mod:`app.core.formats.reading.nesting`.
"""

from __future__ import annotations

import io
import mmap
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Literal, overload

from app.core.errors import InputError
from app.core.slices import let_others_run

MAX_FILE_BYTES = 512 * 1024 * 1024
"""The largest file any reader accepts (512 MiB)."""
ANYWHERE = Path("/")
"""The root for a file the user named directly (an ``accord import`` source): a link may
lead anywhere, but it must still be a regular file within the size limit."""
MAPPED_FROM_BYTES = 16 * 1024 * 1024
"""From this size on :func:`read_mapped` reads a file into a memory map."""
UNBOUNDED = 1 << 62
"""No size limit, for media that are never read whole (a memory-mapped point cloud, an
image of which only the header is read, a video)."""

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def checked_file(
    path: Path, *, root: Path | None = None, limit: int = MAX_FILE_BYTES, shown: Path | None = None
) -> Path:
    """The resolved ``path`` once it is a regular file of at most ``limit`` bytes inside
    ``root`` (default: the folder ``path`` is named in); else one :class:`InputError`
    naming ``shown`` (default ``path``). A missing file is ``file not found``."""
    shown = shown if shown is not None else path
    try:
        real = path.resolve()
        base = (root if root is not None else path.parent).resolve()
    except (OSError, RuntimeError) as exc:  # a loop of links, a name too long
        raise InputError(f"cannot follow the path ({exc})", file=shown) from exc
    if not _within(real, base):
        raise InputError(
            f"the file leads to {real}, outside the project folder {base} "
            "(through a link or '..'); expected every file Accord reads to stay "
            "inside the project",
            file=shown,
        )
    try:
        st = real.stat()
    except FileNotFoundError as exc:
        what = "a link to a missing file" if path.is_symlink() else "file not found"
        raise InputError(what, file=shown) from exc
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", file=shown) from exc
    _check_stat(st, shown, limit)
    return real


def _check_stat(st: os.stat_result, shown: Path, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise InputError(
            f"{_kind(st.st_mode)}, not a regular file; expected a file Accord can read", file=shown
        )
    if st.st_size > limit:
        raise InputError(
            f"the file holds {st.st_size:,} bytes; at most {limit:,} are read "
            f"({limit // (1024 * 1024)} MiB)",
            file=shown,
        )


@overload
def open_checked(
    path: Path, *, root: Path | None = ..., text: Literal[False] = ..., limit: int = ...
) -> IO[bytes]: ...
@overload
def open_checked(
    path: Path,
    *,
    root: Path | None = ...,
    text: Literal[True],
    limit: int = ...,
    newline: str | None = ...,
) -> IO[str]: ...
def open_checked(
    path: Path,
    *,
    root: Path | None = None,
    text: bool = False,
    limit: int = MAX_FILE_BYTES,
    newline: str | None = None,
) -> IO[bytes] | IO[str]:
    """Open ``path`` for reading after :func:`checked_file` (text: UTF-8)."""
    real = checked_file(path, root=root, limit=limit)
    try:
        descriptor = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", file=path) from exc
    try:
        _check_stat(os.fstat(descriptor), path, limit)
        os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    handle = os.fdopen(descriptor, "rb")
    if text:
        return io.TextIOWrapper(handle, encoding="utf-8", newline=newline)
    return handle


def read_bytes(path: Path, *, root: Path | None = None, limit: int = MAX_FILE_BYTES) -> bytes:
    """The whole file's bytes, through :func:`open_checked`."""
    with open_checked(path, root=root, limit=limit) as handle:
        return _read(handle, path)


@contextmanager
def read_mapped(path: Path, *, root: Path | None = None, limit: int = MAX_FILE_BYTES
                ) -> Iterator[bytes | mmap.mmap]:
    """The whole file's bytes, through :func:`open_checked`, as :func:`read_bytes` gives
    them; from :data:`MAPPED_FROM_BYTES` on in an anonymous memory map, unmapped when the
    ``with`` block is left.

    Why: freeing a ``bytes`` of a few hundred MB is one ``munmap`` made while the
    interpreter lock is held (20-56 ms for a million-item ``predictions.jsonl`` of 305
    MB, the window's thread stalled meanwhile); closing a map unmaps with the lock
    released, and ``readinto`` fills it with the lock released too. The map is
    anonymous, a private copy of the bytes: a file truncated by its writer while mapped
    cannot fault the process, as a map of the file itself would. A file whose size
    changes while it is read is read again as ``bytes``, whatever it then holds. The
    caller must not keep a ``memoryview`` of the map past the block (closing it would
    fail).
    """
    with open_checked(path, root=root, limit=limit) as handle:
        assert isinstance(handle, io.BufferedReader)  # open_checked's binary handle
        size = os.fstat(handle.fileno()).st_size
        if size < MAPPED_FROM_BYTES:
            yield _read(handle, path)
            return
        mapped = _private_map(size)
        try:
            try:
                whole = handle.readinto(mapped) == size and not handle.read(1)
            except OSError as exc:
                raise InputError(f"cannot read the file ({exc.strerror or exc})",
                                 file=path) from exc
            if whole:
                yield mapped
                return
        finally:
            _unmap(mapped)
        handle.seek(0)
        yield _read(handle, path)


RELEASE_BYTES = 16 * 1024 * 1024
"""The pages of a map :func:`_unmap` gives back per system call."""


def _private_map(size: int) -> mmap.mmap:
    """An anonymous private map of ``size`` bytes. ``mmap(-1, size)`` alone is a shared
    one on POSIX, its pages those of a shared-memory file, freed by truncating that file
    (``perf`` showed the kernel doing so); nothing here is shared."""
    if hasattr(mmap, "MAP_PRIVATE"):
        return mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)
    return mmap.mmap(-1, size)  # Windows: always private


def _unmap(mapped: mmap.mmap) -> None:
    """Close ``mapped``, its pages first given back :data:`RELEASE_BYTES` at a time.

    Why: unmapping 305 MB at once took 43 ms in the kernel (``strace``), and although the
    interpreter lock was free meanwhile, the window's thread stalled 25-31 ms at that very
    time (``bench_gui_stall.py``; our reading: a process's memory map is locked while a
    part of it is torn down, and the GUI thread needed memory). A piece is a millisecond
    or two, with a turn for other threads after each."""
    advise = getattr(mapped, "madvise", None)
    if advise is not None and hasattr(mmap, "MADV_DONTNEED") and not mapped.closed:
        for start in range(0, len(mapped), RELEASE_BYTES):
            advise(mmap.MADV_DONTNEED, start, min(RELEASE_BYTES, len(mapped) - start))
            let_others_run()
    mapped.close()


def _read(handle: IO[bytes], path: Path) -> bytes:
    try:
        return handle.read()
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", file=path) from exc


def present(path: Path) -> bool:
    """Whether anything is named ``path`` (a broken link or a FIFO included), so that a
    reader refuses it with a reason instead of skipping it as absent."""
    return os.path.lexists(path)
