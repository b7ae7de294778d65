"""A media file of the project (a picture, a sound, a point cloud, a video): the entry for
files that are never read whole.

Why an entry of its own: a media file may be far larger than anything parsed (a lidar
sweep, an hour of audio), so it has no size limit (:data:`~.boundary.UNBOUNDED`); its
readers memory-map it, decode it in blocks or read only its header. Every other
guarantee of :mod:`.boundary` holds: the real file lies inside ``root`` (by default the
folder it is named in), and it is a regular file, never a FIFO, a device or a folder.
A media reader that does read a file whole (a text PLY, an ``.npy`` loaded at once)
asks :func:`~.boundary.checked_file` for the bounded check instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from app.core.formats.reading.boundary import UNBOUNDED, checked_file, open_checked, present


def media_file(path: Path, *, root: Path | None = None) -> Path:
    """The resolved ``path`` once it is a regular file inside ``root``, of any size; else
    one :class:`~app.core.errors.InputError` naming it."""
    return checked_file(path, root=root, limit=UNBOUNDED)


def named_media_file(path: Path, *, root: Path | None = None) -> Path | None:
    """:func:`media_file`, or ``None`` when nothing at all is named ``path`` (a broken link
    or a FIFO is something: refused with a reason, never passed over as absent)."""
    return media_file(path, root=root) if present(path) else None


def open_media_file(path: Path, *, root: Path | None = None) -> IO[bytes]:
    """``path`` opened for reading in binary, after the checks of :func:`media_file`."""
    return open_checked(path, root=root, limit=UNBOUNDED)
