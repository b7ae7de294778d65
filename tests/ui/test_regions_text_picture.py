"""The regions view shows the picture of an item whose text is its image path (Potato's
``text_key: image``), on the project Potato 2.12.1's server wrote; before, it said
"no picture for this item" there."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QGraphicsPixmapItem, QGraphicsSimpleTextItem

from app.core.progress import run
from app.core.project import open_project
from app.ui.views.base import ViewContext
from app.ui.views.regions.view import RegionsView
from tests.core.picture_projects import text_picture_project


def _shown(qtbot, folder: Path) -> tuple[list[tuple[int, int]], list[str]]:  # type: ignore[no-untyped-def]
    """The sizes of the pictures drawn on item m01, and the sentences drawn."""
    view = RegionsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=run(open_project(folder)), item="m01"))
    items = view.canvas.scene().items()
    pictures = [(i.pixmap().width(), i.pixmap().height()) for i in items
                if isinstance(i, QGraphicsPixmapItem)]
    texts = [i.text() for i in items if isinstance(i, QGraphicsSimpleTextItem)]
    return pictures, texts


def test_the_items_text_is_drawn_as_its_picture(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pictures, texts = _shown(qtbot, text_picture_project(tmp_path / "p"))
    assert pictures == [(320, 180)]
    assert "no picture for this item" not in texts


def test_prose_text_is_no_picture(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pictures, texts = _shown(qtbot, text_picture_project(tmp_path / "p", text_key="text"))
    assert pictures == [] and "no picture for this item" in texts
