"""The picture under the 2D regions and masks views, and their annotator legend.

Shared by :mod:`app.ui.views.regions.view` and :mod:`app.ui.views.masks.view`: a
``QGraphicsView`` whose scene is the item's image in **pixel** coordinates (normalized
region coordinates are multiplied by the image size), kept fitted to the widget, and a
row of checkboxes, one per annotator in their palette colour, that show or hide what
that annotator drew.

Choices (the spec is silent):

- The image is loaded with ``QImage`` when the view shows the item (one small file
  read; the demo pictures are 320×240). A missing or unreadable file shows a grey
  canvas of the record's ``width``×``height`` (else 640×480) with a sentence, so shapes
  are still drawn where they belong.
- Items carry the annotator's raw name in ``data(ANNOTATOR_ROLE)`` so visibility
  toggles (and tests) find them without keeping a second list.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QIcon, QImage, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QGraphicsItem,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QWidget,
)

from app.core.formats.media.locate import IMAGE_SUFFIXES, item_media
from app.core.model import Item, Scheme

ANNOTATOR_ROLE = 0
"""``QGraphicsItem.data`` key holding the annotator's raw name."""
DEFAULT_SIZE = (640, 480)


MAX_SIDE = 100_000
"""A data file's declared width or height beyond this (or not a positive number) is not
believed: the canvas uses its default size (a huge scene would be allocated)."""


def _dimension(value: object, default: int) -> int:
    """A data file's declared width or height in pixels, or ``default`` when it is not a
    number from 1 to :data:`MAX_SIDE` ("abc", -3, NaN, 1e308 were tracebacks or hangs)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return default
    try:
        number = float(value)
    except ValueError:
        return default
    return int(number) if 1 <= number <= MAX_SIDE else default


def item_image(item: Item | None, scheme: Scheme | None = None
               ) -> tuple[QImage | None, tuple[int, int]]:
    """The item's picture (``None`` when missing) and its size in pixels: the scheme's
    ``source_field`` file, else the item's first file with an image extension (its
    text's path when the text is the picture: ``media.locate``), else its first file."""
    record = item.record if item is not None else {}
    size = (_dimension(record.get("width"), DEFAULT_SIZE[0]),
            _dimension(record.get("height"), DEFAULT_SIZE[1]))
    if item is None:
        return None, size
    path = item_media(item, scheme, IMAGE_SUFFIXES) or item.media.get("image") \
        or next(iter(item.media.values()), None)
    if path is None:
        return None, size
    image = QImage(str(path))
    if image.isNull():
        return None, size
    return image, (image.width(), image.height())


class ImageCanvas(QGraphicsView):
    """The picture with drawn items, always fitted to the widget."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setBackgroundBrush(QBrush(QColor("#2B2B2B")))
        self.setMinimumSize(320, 240)
        self.setRenderHint(self.renderHints().Antialiasing)
        self._bounds = QRectF(0, 0, *DEFAULT_SIZE)

    def show_image(self, image: QImage | None, size: tuple[int, int], missing: str = "") -> None:
        scene = self.scene()
        scene.clear()
        self._bounds = QRectF(0, 0, size[0], size[1])
        scene.setSceneRect(self._bounds)
        if image is not None:
            scene.addItem(QGraphicsPixmapItem(QPixmap.fromImage(image)))
        else:
            scene.addRect(self._bounds, Qt.PenStyle.NoPen, QBrush(QColor("#5A5A5A")))
            if missing:
                text = scene.addSimpleText(missing)
                text.setBrush(QBrush(QColor("#EEEEEE")))
                text.setPos(8, 8)
        self.fit()

    def add(self, item: QGraphicsItem, annotator: str | None = None) -> None:
        if annotator is not None:
            item.setData(ANNOTATOR_ROLE, annotator)
        self.scene().addItem(item)

    def items_of(self, annotator: str) -> list[QGraphicsItem]:
        return [i for i in self.scene().items() if i.data(ANNOTATOR_ROLE) == annotator]

    def set_annotator_visible(self, annotator: str, visible: bool) -> None:
        for item in self.items_of(annotator):
            item.setVisible(visible)

    def fit(self) -> None:
        self.fitInView(self._bounds, Qt.AspectRatioMode.KeepAspectRatio)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.fit()


def swatch(color: QColor, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(color)
    return QIcon(pixmap)


class AnnotatorLegend(QWidget):
    """One checkbox per annotator: colour swatch, name (presentation label), a count."""

    toggled = Signal(str, bool)
    """(raw annotator name, visible)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(4, 2, 4, 2)
        self.boxes: dict[str, QCheckBox] = {}

    def set_entries(self, entries: Mapping[str, tuple[str, QColor, str]], title: str = "") -> None:
        """``entries``: raw name → (shown name, colour, suffix such as "5 shapes")."""
        while self._layout.count():
            child = self._layout.takeAt(0)
            widget = child.widget() if child is not None else None
            if widget is not None:
                widget.deleteLater()
        self.boxes = {}
        if title:
            self._layout.addWidget(QLabel(title))
        for name, (shown, color, suffix) in entries.items():
            box = QCheckBox(f"{shown} · {suffix}" if suffix else shown)
            box.setIcon(swatch(color))
            box.setChecked(True)
            box.toggled.connect(lambda on, n=name: self.toggled.emit(n, on))
            self._layout.addWidget(box)
            self.boxes[name] = box
        self._layout.addStretch(1)
