"""An image's size in pixels from its file header (PNG, JPEG, GIF, BMP), or ``None``.

Only the header is read. Agreement needs the size where Potato normalized the two axes
by different numbers (ellipse radii, freeform strokes in pixels): ``agreement.md``.
"""

from __future__ import annotations

import struct
from pathlib import Path

from app.core.errors import InputError
from app.core.formats.reading.boundary import ANYWHERE, open_checked

_HEADER = 64 * 1024


def image_size(path: Path) -> tuple[int, int] | None:
    """``(width, height)`` of the image at ``path``; ``None`` when unknown or unreadable."""
    try:
        with open_checked(path, root=ANYWHERE) as f:  # a FIFO or device is refused, unread
            head = f.read(_HEADER)
    except (OSError, InputError):
        return None
    if head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
        w, h = struct.unpack(">II", head[16:24])
        return (int(w), int(h)) if w and h else None
    if head[:6] in (b"GIF87a", b"GIF89a"):
        w, h = struct.unpack("<HH", head[6:10])
        return (int(w), int(h)) if w and h else None
    if head[:2] == b"BM" and len(head) >= 26:
        w, h = struct.unpack("<ii", head[18:26])
        return (abs(int(w)), abs(int(h))) if w and h else None
    if head[:2] == b"\xff\xd8":
        return _jpeg(head)
    return None


def _jpeg(head: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(head):
        if head[i] != 0xFF:
            return None
        marker = head[i + 1]
        length = struct.unpack(">H", head[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", head[i + 5:i + 9])
            return (int(w), int(h)) if w and h else None
        i += 2 + length
    return None
