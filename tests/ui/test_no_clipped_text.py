"""No text is cut at the screenshot sizes, in the window and in presentation mode.

Renders the real window with every real view at 1280×800 and 1920×1080 on the demos,
raises each view in turn, and fails on any header section, tree column, combo box,
button or one-line label narrower than its text (:mod:`tests.ui.clipping`). A lead saw
"ount differen" in presentation mode, "agreement 0.3…" in the tree and a cut scheme box.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.paths import demo_studies
from app.ui.main_window import MainWindow
from app.ui.settings import Settings
from app.ui.views.registry import available_views
from tests.ui.clipping import clipped_texts
from tests.ui.shell_helpers import open_and_wait

SIZES = ((1280, 800), (1920, 1080))
DEMOS = ("support_triage", "street_images", "speaker_turns", "lidar_sweeps",
         "sentiment_reviews")


def _opened(qtbot: QtBot, settings: Settings, demo: str, size: tuple[int, int]
            ) -> MainWindow:
    """The real window at ``size`` with the demo ``demo`` open."""
    window = MainWindow(settings, views=available_views(), watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    open_and_wait(qtbot, window, demo_studies()[demo])
    return window


def _settle(qtbot: QtBot) -> None:
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(30)


def _each_view(qtbot: QtBot, window: MainWindow) -> list[str]:
    found: list[str] = []
    for name, dock in window.dock_layout.docks.items():
        if dock.isHidden():  # a kind the project does not have
            continue
        window.dock_layout.raise_view(name)
        _settle(qtbot)
        found += [f"{name}: {text}" for text in clipped_texts(dock.widget())]
    found += [f"project tree: {text}" for text in clipped_texts(window.tree)]
    return sorted(set(found))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("demo", DEMOS)
def test_no_text_is_cut_in_the_window(qtbot: QtBot, settings: Settings, demo: str,
                                      size: tuple[int, int]) -> None:
    window = _opened(qtbot, settings, demo, size)
    _settle(qtbot)
    found = _each_view(qtbot, window)
    assert not found, "cut text:\n" + "\n".join(found)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("demo", DEMOS)
def test_no_text_is_cut_in_presentation_mode(qtbot: QtBot, settings: Settings, demo: str,
                                             size: tuple[int, int]) -> None:
    window = _opened(qtbot, settings, demo, size)
    window.presentation.enter()
    window.showNormal()  # the offscreen screen is 800 px: give the window the test's size
    window.resize(*size)
    _settle(qtbot)
    found = []
    for name, dock in window.dock_layout.docks.items():
        if dock.isVisible():
            found += [f"{name}: {text}" for text in clipped_texts(dock.widget())]
    window.presentation.leave()
    found = sorted(set(found))
    assert not found, "cut text:\n" + "\n".join(found)


def test_the_detector_sees_cut_text(qtbot: QtBot) -> None:
    """The check above must be able to fail: a squeezed label, combo and header are named."""
    from PySide6.QtWidgets import QComboBox, QLabel, QTableWidget, QVBoxLayout, QWidget

    root = QWidget()
    qtbot.addWidget(root)
    layout = QVBoxLayout(root)
    label, combo, table = QLabel("agreement 0.345 over 40 items"), QComboBox(), QTableWidget(1, 1)
    combo.addItem("partially_resolved and more")
    table.setHorizontalHeaderLabels(["Count difference"])
    for widget in (label, combo, table):
        layout.addWidget(widget)
    root.resize(400, 300)
    root.show()
    label.setFixedWidth(40)
    combo.setFixedWidth(50)
    table.setColumnWidth(0, 30)
    _settle(qtbot)
    found = "\n".join(clipped_texts(root))
    assert "label 'agreement 0.345" in found
    assert "combo box 'partially_resolved" in found
    assert "header section 'Count difference'" in found
