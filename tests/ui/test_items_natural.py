"""Item ids in natural order, and the items table's columns that do not apply.

Oracle for the order: a comparator written here that walks two ids character by
character (runs of ASCII digits compared by value, everything else as text, a
shorter list of runs first, then the plain string), independent of the regex split
and of the numpy fast path that :mod:`app.ui.views.items.natural` uses.
"""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.ui.views.items.model import COUNT, ITEM, SCHEME
from app.ui.views.items.natural import natural_rank
from app.ui.views.items.view import ItemsView
from tests.ui.views_helpers import context


def _runs(text: str) -> list[tuple[int, object]]:
    runs: list[tuple[int, object]] = []
    k = 0
    while k < len(text):
        start, digit = k, text[k] in "0123456789"
        while k < len(text) and (text[k] in "0123456789") == digit:
            k += 1
        runs.append((1, int(text[start:k])) if digit else (0, text[start:k]))
    if not runs or runs[0][0] == 1:
        runs.insert(0, (0, ""))  # every id starts with a (maybe empty) text run
    return runs


def _compare(a: str, b: str) -> int:
    ra, rb = _runs(a), _runs(b)
    for (_, x), (_, y) in zip(ra, rb, strict=False):
        if x != y:
            return -1 if x < y else 1  # type: ignore[operator]
    if len(ra) != len(rb):
        return -1 if len(ra) < len(rb) else 1
    return (a > b) - (a < b)


def _oracle(ids: list[str]) -> list[str]:
    return sorted(ids, key=functools.cmp_to_key(_compare))


def test_numbers_sort_by_value() -> None:
    ids = ["31", "4", "13", "3"]
    assert [ids[k] for k in np.argsort(natural_rank(ids))] == ["3", "4", "13", "31"]
    ids = ["t13", "t4", "t31", "t3", "t04"]
    assert [ids[k] for k in np.argsort(natural_rank(ids), kind="stable")] == \
        ["t3", "t04", "t4", "t13", "t31"]


@pytest.mark.parametrize("seed", range(30))
def test_random_ids_in_the_oracles_order(seed: int) -> None:
    rng = random.Random(seed)
    # Seeds below 15: the usual shape (text then a number: the numpy path); above: ids
    # with digits inside the text and after it (the general path).
    general = seed >= 15
    prefixes = ["", "item_", "c", "conv-", "C", "é"] + (["a1b", "x2_", "v10."] if general else [])
    suffixes = [""] + (["", "b", "_2", ".10"] if general else [])
    ids = []
    for _ in range(rng.randint(1, 80)):
        number = str(rng.choice([0, 1, 2, 3, 9, 10, 11, 13, 31, 100, 10**19, rng.randint(0, 999)]))
        if rng.random() < 0.2:
            number = "0" * rng.randint(1, 3) + number
        if rng.random() < 0.1:
            number = ""
        ids.append(rng.choice(prefixes) + number + rng.choice(suffixes))
    rank = natural_rank(ids)
    got = [ids[k] for k in np.argsort(rank, kind="stable")]
    assert got == _oracle(ids)
    # Equal ids share a rank; different ids never do.
    for a, ra in zip(ids, rank.tolist(), strict=True):
        for b, rb in zip(ids, rank.tolist(), strict=True):
            assert (ra == rb) == (a == b)


def test_the_item_column_sorts_naturally_on_potatos_project(qtbot: QtBot) -> None:
    view = ItemsView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    view.show_context(context("support_triage", scheme="resolution"))
    view.table.sortByColumn(ITEM, Qt.SortOrder.AscendingOrder)
    shown = view.column_texts(ITEM)
    assert shown == _oracle(shown)
    view.table.sortByColumn(ITEM, Qt.SortOrder.DescendingOrder)
    assert view.column_texts(ITEM) == _oracle(shown)[::-1]


def test_columns_that_do_not_apply_are_hidden(qtbot: QtBot) -> None:
    view = ItemsView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    # Labels only, one scheme: no count difference, no scheme column.
    view.show_context(context("support_triage", scheme="resolution"))
    view._set_combo(view.scheme_combo, "resolution")
    assert view.table.isColumnHidden(COUNT) and view.table.isColumnHidden(SCHEME)
    assert not view.table.isColumnHidden(ITEM)
    # Every scheme: the scheme column is back; still no objects to count.
    view._set_combo(view.scheme_combo, "")
    assert not view.table.isColumnHidden(SCHEME) and view.table.isColumnHidden(COUNT)
    # Boxes have counts: the column shows.
    view.show_context(context("lidar_sweeps"))
    view._set_combo(view.scheme_combo, "")
    assert not view.table.isColumnHidden(COUNT)
