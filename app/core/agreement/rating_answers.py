"""The answers of the rating kinds, read when a Potato project is opened.

Called by :func:`app.core.formats.potato.answers.parse_answer` with one annotator's
stored ``(label name, value)`` entries for one scheme on one item; the readers are the
pure ones of the kinds' packages (Potato 2.12.1's gathering, kinds.md B §2.1–2.5):

- continuous (number, vas, confidence slider, pairwise scale): the first number, a
  stored 0 kept (:func:`~app.core.agreement.continuous.reading.read_number`);
- ranking: the ``rank_order`` options, best first;
- matrix: every sub-answer with its stored value (``None`` and ``""`` dropped);
- ``hierarchical_multiselect`` and ``card_sort``: a label set (the selected names, or
  the ``group␟card`` placements), scored by the multilabel kind.

``None`` is "not answered". A number scheme whose chosen entry holds no number is bad
input (the caller's ``place`` names file, item, scheme and annotator); Potato would skip
it silently.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.core.agreement.continuous.reading import chosen, read_number
from app.core.agreement.matrix.block import read_matrix
from app.core.agreement.multilabel.packed import read_packed_set
from app.core.agreement.ranking.metrics import read_ranking
from app.core.errors import InputError
from app.core.model import Answer, Kind, Scheme, SubAnswers

PACKED_SET_TYPES = frozenset({"hierarchical_multiselect", "card_sort"})
RATING_KINDS = frozenset({Kind.CONTINUOUS, Kind.RANKING, Kind.MATRIX})
Entries = list[tuple[str, Any]]


def reads(scheme: Scheme) -> bool:
    """Is this scheme's answer read here?"""
    return scheme.kind in RATING_KINDS or scheme.annotation_type in PACKED_SET_TYPES


def read_rating(scheme: Scheme, entries: Entries, error: Callable[[str], InputError]
                ) -> Answer | None:
    """The typed answer of a rating scheme, or ``None`` (not answered)."""
    config = dict(scheme.config) or {"annotation_type": scheme.annotation_type,
                                     "name": scheme.name}
    config.setdefault("name", scheme.name)
    if scheme.annotation_type in PACKED_SET_TYPES:
        return read_packed_set(config, entries)
    if scheme.kind is Kind.RANKING:
        return read_ranking(entries)
    if scheme.kind is Kind.MATRIX:
        answers = read_matrix(entries)
        return SubAnswers(tuple(answers.items())) if answers else None
    number = read_number(config, entries)
    if number is None:
        stored = [v for n, v in entries if chosen(v, n) and v not in (None, "")]
        if stored:
            raise error(f"{scheme.annotation_type} value {stored[0]!r} is not a number")
    return number
