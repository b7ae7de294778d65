"""Item ids in natural order: 3, 4, 13, 31, not 13, 3, 31, 4 (issue 35).

Why: ids are strings ("item_13", "conv-009", "31"), and a plain string sort puts
"item_13" before "item_3", which a lead reads as a broken sort. Pure Python and numpy (no
Qt), tested without a window.

The rule (a choice; the spec is silent): an id is split into runs of digits and runs of
everything else; runs compare in turn, digit runs by their value, the others as text.
Ids with equal keys ("7" and "007") fall back to the plain string order, so the order
is total and the same from run to run. Digit runs are ASCII digits only (``[0-9]``):
another script's digits are text here, as in most file managers.

Cost: built once per table and kept by the caller, paid only when the Item column is
sorted. Ids of the usual shape (text, then a number) are ordered in numpy; measured on
this machine (two shared cores) 1.3 s for a million distinct ids, 0.8 s of it the
``np.unique`` that the plain string sort paid too; other ids take a Python key each
(2.3 s for a million).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

_RUNS = re.compile(r"([0-9]+)")


def natural_key(text: str) -> tuple[tuple[object, ...], str]:
    """The sort key of one id: its runs, text and numbers alternating (text first, maybe
    empty, so a text never meets a number), then the id itself to order equal runs."""
    parts = _RUNS.split(text)
    return tuple(int(p) if k % 2 else p for k, p in enumerate(parts)), text


def natural_rank(ids: Sequence[str] | np.ndarray) -> np.ndarray:
    """``rank[k]`` is the position of ``ids[k]`` in natural order (equal ids share one),
    as int64: an ``argsort`` of it sorts the ids naturally."""
    values = np.asarray(ids, dtype=str)
    if not values.size:
        return np.zeros(0, dtype=np.int64)
    unique, inverse = np.unique(values, return_inverse=True)
    order = _prefix_number_order(unique)
    if order is None:
        order = np.asarray(sorted(range(unique.size),
                                  key=lambda k: natural_key(str(unique[k]))), dtype=np.int64)
    position = np.empty(unique.size, dtype=np.int64)
    position[order] = np.arange(unique.size, dtype=np.int64)
    out: np.ndarray = position[inverse.reshape(-1)]
    return out


def _prefix_number_order(unique: np.ndarray) -> np.ndarray | None:
    """The natural order of sorted distinct ids that are all "text, then maybe a number"
    (``item_13``, ``conv-009``, ``31``), in numpy: the usual shape of an id, and a
    million of them take a fraction of a second instead of seconds. ``None`` when some
    id has digits inside its text or a number too long for int64 (the general path)."""
    digits = "0123456789"
    prefix = np.strings.rstrip(unique, digits)
    prefixes, prefix_rank = np.unique(prefix, return_inverse=True)
    if any(_RUNS.search(str(p)) for p in prefixes):
        return None
    number_text = np.strings.slice(unique, np.strings.str_len(prefix), np.strings.str_len(unique))
    length = np.strings.str_len(number_text)
    if int(length.max(initial=0)) > 18:
        return None
    number = np.where(length > 0, number_text, "-1").astype(np.int64)
    # ``unique`` is in string order, so a stable sort keeps it for equal (text, number).
    order: np.ndarray = np.lexsort((number, prefix_rank.reshape(-1))).astype(np.int64)
    return order
