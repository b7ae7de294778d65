"""The project tree adds a big scheme's item rows a few per turn, all of them in the end,
and still selects an item whose row was not added yet (``bench_gui_stall.py --spans``)."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

import app.ui.project_tree as project_tree
from app.ui.project_tree import ProjectTree
from tests.ui.views_helpers import demo


def _rows(tree: ProjectTree) -> dict[str, list[str]]:
    out = {}
    for i in range(tree.topLevelItemCount()):
        node = tree.topLevelItem(i)
        assert node is not None
        out[node.text(0)] = [node.child(j).text(0) for j in range(node.childCount())]
    return out


@pytest.fixture
def few_per_turn(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(project_tree, "ROWS_PER_TURN", 7)
    return 7


def test_every_item_row_arrives_in_order(qtbot: QtBot, few_per_turn: int) -> None:
    data = demo("support_triage")  # 40 items under each of four schemes
    expected = {name: sorted(data.study.answers_for(name)) for name in data.report.schemes}
    tree = ProjectTree()
    qtbot.addWidget(tree)
    tree.show_project(data)
    first = _rows(tree)
    assert all(len(rows) == few_per_turn for rows in first.values())  # not all at once
    assert first == {name: ids[:few_per_turn] for name, ids in expected.items()}
    qtbot.waitUntil(lambda: _rows(tree) == expected, timeout=5000)


def test_selecting_a_row_not_added_yet_adds_the_rest(qtbot: QtBot, few_per_turn: int
                                                     ) -> None:
    data = demo("support_triage")
    scheme = list(data.report.schemes)[2]
    last = sorted(data.study.answers_for(scheme))[-1]
    tree = ProjectTree()
    qtbot.addWidget(tree)
    tree.show_project(data)
    tree.select(scheme, last)
    current = tree.currentItem()
    assert current is not None and current.text(0) == last
    assert current.parent() is not None and current.parent().text(0) == scheme
    assert all(len(rows) == 40 for rows in _rows(tree).values())


def test_a_new_project_drops_the_rows_still_to_add(qtbot: QtBot, few_per_turn: int) -> None:
    first, second = demo("support_triage"), demo("street_images")
    tree = ProjectTree()
    qtbot.addWidget(tree)
    tree.show_project(first)
    tree.show_project(second)
    expected = {name: sorted(second.study.answers_for(name)) for name in second.report.schemes}
    qtbot.waitUntil(lambda: _rows(tree) == expected, timeout=5000)
    qtbot.wait(50)  # the first project's turns, had they run on, would add rows now
    assert _rows(tree) == expected
