"""Page text as a reader sees it, and its differences in words.

The text is pypdf's extraction of a page, normalised for what layout alone changes: Unicode
compatibility forms (NFKC, so a ligature "ﬁ" reads "fi") and runs of whitespace (a line
break, a tab between words) collapsed to one space. Every word, number, hash and date
stays as printed, so "90%" against "99%" or "480 items" against "430 items" is a
difference, and :func:`text_differences` names it with a few words of context.
"""

from __future__ import annotations

import difflib
import unicodedata

CONTEXT_WORDS = 4
MAX_WORDS = 12
MAX_PER_PAGE = 4


def normalise(text: str) -> str:
    """NFKC and single spaces: what stays when the layout is set aside."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def _quote(words: list[str]) -> str:
    if not words:
        return "nothing"
    shown = " ".join(words[:MAX_WORDS]) + (" …" if len(words) > MAX_WORDS else "")
    return f"“{shown}”"


def text_differences(page: int, printed: str, expected: str) -> list[str]:
    """Sentences for the word runs where ``printed`` (on the page) differs from ``expected``
    (what the attached certificate prints), at most :data:`MAX_PER_PAGE` then a count."""
    a, b = normalise(printed).split(), normalise(expected).split()
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    out: list[str] = []
    changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    for _, i1, i2, j1, j2 in changes[:MAX_PER_PAGE]:
        before = a[max(0, i1 - CONTEXT_WORDS) : i1]
        where = f" after “{' '.join(before)}”" if before else " at its start"
        out.append(
            f"page {page} prints {_quote(a[i1:i2])} where the attached certificate prints "
            f"{_quote(b[j1:j2])}{where}"
        )
    if len(changes) > MAX_PER_PAGE:
        out.append(f"page {page}: and {len(changes) - MAX_PER_PAGE} more differences in its text")
    return out


def first_words(text: str, n: int = 6) -> str:
    """The first words of a page, to name it in a sentence."""
    words = normalise(text).split()
    return " ".join(words[:n]) + (" …" if len(words) > n else "")
