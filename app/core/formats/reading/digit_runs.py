"""Runs of digits in a JSON text: an overlong integer, or one past 64 bits.

Why a module: the readers bound integers (:mod:`.nesting`: at most
:data:`MAX_INT_DIGITS` digits, so every integer converts to a number fast) and send a
text with a 19-digit run to ``json.loads`` rather than orjson (which reads such an
integer as a float); both tests look for a run in the text's digits, the bytes mapped by
:data:`DIGITS` to ``0`` for a digit and a space for anything else.
"""

from __future__ import annotations

MAX_INT_DIGITS = 300
DIGITS = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))
"""``bytes.translate`` table: a digit becomes ``0``, any other byte a space."""
LONG = b"0" * (MAX_INT_DIGITS + 1)
WIDE = b"0" * 19
"""A run of 19 digits: the shortest integer orjson may read past its 64-bit range."""
SCAN_SLICE = 1 << 18
"""Characters of a text searched for an overlong integer by one C call."""


def has_long_integer(data: bytes | str) -> bool:
    """Whether ``data`` holds a run of more than :data:`MAX_INT_DIGITS` digits.

    Looked for a slice of :data:`SCAN_SLICE` characters at a time (each slice overlaps
    the next by a run's length, so no run is missed): over a whole 14 MB
    ``user_state.json`` the translation and search were single C calls that held the
    interpreter lock 30-60 ms while the window waited (``bench_gui_stall.py``)."""
    if len(data) <= MAX_INT_DIGITS:
        return False
    reach = SCAN_SLICE + len(LONG) - 1
    for start in range(0, max(len(data) - len(LONG) + 1, 1), SCAN_SLICE):
        piece = data[start:start + reach]
        raw = piece.encode("utf-8", "surrogatepass") if isinstance(piece, str) else piece
        if LONG in raw.translate(DIGITS):
            return True
    return False


def has_wide_number(raw: bytes) -> bool:
    """Whether ``raw`` holds a run of 19 digits (an integer past 64 bits may be there)."""
    return len(raw) >= len(WIDE) and WIDE in raw.translate(DIGITS)
