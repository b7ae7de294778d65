"""What a bar's label shows when its bar is narrow: the whole text, a readable elision,
or nothing (the text is then in the bar's tooltip).

Why not ``QFontMetrics.elidedText`` alone: it happily returns "ho…" or a bare "…" for a
narrow bar, and a lead reading "ho" cannot tell host from hold (issue 15). Here a label
is elided only while at least :data:`MIN_CHARS` characters survive before the "…" (or
the whole word, when it is that short and fits); below that it is hidden. The text
width comes from a function, so the rule is tested with real font metrics and without.
"""

from __future__ import annotations

from collections.abc import Callable

ELLIPSIS = "…"
MIN_CHARS = 3
"""The fewest characters of a label shown before an ellipsis."""


def fit_label(
    text: str, width: float, advance: Callable[[str], float], min_chars: int = MIN_CHARS
) -> str:
    """``text`` if it fits ``width``, else its longest prefix of at least ``min_chars``
    characters followed by "…" that fits, else ``""`` (hidden)."""
    if width <= 0 or not text:
        return ""
    if advance(text) <= width:
        return text
    lo, hi = min_chars, len(text) - 1
    best = ""
    while lo <= hi:  # the widest prefix that fits; a prefix's width grows with its length
        mid = (lo + hi) // 2
        prefix = text[:mid].rstrip()
        candidate = prefix + ELLIPSIS
        if len(prefix) < min_chars:  # a space cut off: look at longer prefixes
            lo = mid + 1
        elif advance(candidate) <= width:
            best, lo = candidate, mid + 1
        else:
            hi = mid - 1
    return best
