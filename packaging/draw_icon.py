"""Render resources/icons/accord.svg to the 256 px PNG beside it (run after editing the SVG).

The SVG is the source; the PNG is what the .desktop file, the window managers without SVG
support and the macOS/Windows builds use. ``python packaging/draw_icon.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SIZE = 256


def main() -> int:
    app = QGuiApplication(sys.argv[:1])  # noqa: F841 (QImage painting needs one)
    renderer = QSvgRenderer(str(ICONS / "accord.svg"))
    if not renderer.isValid():
        print("accord.svg does not parse", file=sys.stderr)
        return 1
    image = QImage(SIZE, SIZE, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return 0 if image.save(str(ICONS / "accord.png")) else 1


if __name__ == "__main__":
    raise SystemExit(main())
