"""The lanes canvas (one lane per track over the frames) and the small frame panel.

:class:`LaneCanvas` draws :func:`.model.lanes`: rows of aligned tracks (one object each,
shaded alternately), each track a bar in its annotator's colour from its first frame to
its last; for the chosen pair, its partner written on each run of frames, misses hatched
red with a red underline, ID switches as an orange diamond on the frame. A click picks a
frame (a blue line), a double click opens it (the 3D view, for 3D tracks).

:class:`FramePanel` draws one frame of video tracks: the boxes on a blank picture of the
video's aspect ratio (no video is decoded), each labelled with its annotator and track.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetricsF,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.ui.views.tracks.model import Lane

MISS = QColor("#C62828")
SWITCH = QColor("#FF8F00")
CURSOR = QColor("#1565C0")
ROW_SHADE = (QColor(0, 0, 0, 0), QColor(0, 0, 0, 18))


@dataclass(frozen=True, slots=True)
class LaneStyle:
    colors: dict[str, QColor]
    names: dict[str, str]
    """Annotator → the name shown (A, B, C in presentation mode)."""
    scale: float = 1.0


class LaneCanvas(QWidget):
    frame_clicked = Signal(int)
    frame_opened = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lanes: list[Lane] = []
        self.first = 0
        self.last = 0
        self.frame: int | None = None
        self.style_ = LaneStyle({}, {})
        self.setMinimumWidth(300)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)

    def show_lanes(self, lanes: list[Lane], first: int, last: int, style: LaneStyle,
                   frame: int | None) -> None:
        self.lanes, self.first, self.last, self.style_ = lanes, first, max(first, last), style
        self.frame = frame
        self.setFixedHeight(self.total_height())
        self.update()

    def set_frame(self, frame: int | None) -> None:
        self.frame = frame
        self.update()

    # ----------------------------------------------------------------- geometry
    def lane_height(self) -> float:
        return QFontMetricsF(self.font()).height() + 6.0

    def row_gap(self) -> float:
        return 6.0 * self.style_.scale

    def axis_height(self) -> float:
        return QFontMetricsF(self.font()).height() + 10.0

    def label_width(self) -> float:
        metrics = QFontMetricsF(self.font())
        widest = max((metrics.horizontalAdvance(self._lane_label(lane)) for lane in self.lanes),
                     default=60.0)
        widest = max(widest, metrics.horizontalAdvance("frame"))
        return min(widest + 16.0, max(120.0, self.width() * 0.35))

    def total_height(self) -> int:
        rows = len({lane.row for lane in self.lanes})
        return int(self.axis_height() + len(self.lanes) * self.lane_height()
                   + rows * self.row_gap() + 8)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(600, self.total_height())

    def frame_x(self, frame: float) -> float:
        left = self.label_width()
        cell = (self.width() - left - 8.0) / (self.last - self.first + 1)
        return left + (frame - self.first) * cell

    def frame_at(self, x: float) -> int:
        left = self.label_width()
        cell = (self.width() - left - 8.0) / (self.last - self.first + 1)
        frame = self.first + int((x - left) // max(cell, 1e-9))
        return min(self.last, max(self.first, frame))

    def _lane_label(self, lane: Lane) -> str:
        name = self.style_.names.get(lane.annotator, lane.annotator)
        return f"{name} · {lane.shown}"

    # ----------------------------------------------------------------- painting
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.fillRect(self.rect(), self.palette().base())
        if not self.lanes:
            painter.end()
            return
        self._paint_axis(painter)
        y = self.axis_height()
        h = self.lane_height()
        row = -1
        for lane in self.lanes:
            if lane.row != row:
                row = lane.row
                y += self.row_gap()
                n = sum(1 for other in self.lanes if other.row == row)
                painter.fillRect(QRectF(0, y - self.row_gap() / 2, self.width(),
                                        n * h + self.row_gap()), ROW_SHADE[row % 2])
            self._paint_lane(painter, lane, y, h)
            y += h
        if self.frame is not None and self.first <= self.frame <= self.last:
            x = (self.frame_x(self.frame) + self.frame_x(self.frame + 1)) / 2
            painter.setPen(QPen(CURSOR, 2.0))
            painter.drawLine(QPointF(x, self.axis_height() - 4), QPointF(x, self.height()))
        painter.end()

    def _paint_axis(self, painter: QPainter) -> None:
        metrics = QFontMetricsF(self.font())
        n = self.last - self.first + 1
        widest = metrics.horizontalAdvance(str(self.last)) + 10
        cell = (self.width() - self.label_width() - 8.0) / n
        step = next((s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
                     if s * cell >= widest), 10000)
        painter.setPen(QPen(self.palette().text().color(), 1))
        base = self.axis_height() - 2
        painter.drawText(QRectF(4, 0, self.label_width() - 8, base),
                         int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                         "frame")
        start = -(-self.first // step) * step
        for f in range(start, self.last + 1, step):
            x = (self.frame_x(f) + self.frame_x(f + 1)) / 2
            painter.drawLine(QPointF(x, base - 4), QPointF(x, base))
            painter.drawText(QRectF(x - widest / 2, 0, widest, base - 4),
                             int(Qt.AlignmentFlag.AlignCenter), str(f))

    def _paint_lane(self, painter: QPainter, lane: Lane, y: float, h: float) -> None:
        text = self.palette().text().color()
        painter.setPen(QPen(text if lane.in_pair else QColor(text.red(), text.green(),
                                                             text.blue(), 130), 1))
        painter.drawText(QRectF(6, y, self.label_width() - 10, h),
                         int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                         self._lane_label(lane))
        color = QColor(self.style_.colors.get(lane.annotator, QColor("#888888")))
        color.setAlpha(190 if lane.in_pair else 70)
        top, height = y + 2, h - 4
        bar = QRectF(self.frame_x(lane.first), top,
                     self.frame_x(lane.last + 1) - self.frame_x(lane.first), height)
        painter.fillRect(bar, color)
        for a, b in lane.misses:
            rect = QRectF(self.frame_x(a), top, self.frame_x(b + 1) - self.frame_x(a), height)
            painter.fillRect(rect, QBrush(MISS, Qt.BrushStyle.BDiagPattern))
            painter.fillRect(QRectF(rect.left(), top + height - 3, rect.width(), 3), MISS)
        metrics = QFontMetricsF(self.font())
        painter.setPen(QPen(QColor("#111111"), 1))
        switched = {frame for frame, _old, _new in lane.switches}
        cell = self.frame_x(self.first + 1) - self.frame_x(self.first)
        for a, b, partner in lane.partners:
            pad = 3 + ((cell + h) / 2 if a in switched else 0)  # clear of the switch's diamond
            rect = QRectF(self.frame_x(a) + pad, top,
                          self.frame_x(b + 1) - self.frame_x(a) - pad - 3, height)
            label = metrics.elidedText(f"= {partner}", Qt.TextElideMode.ElideRight,
                                       rect.width())
            if rect.width() > metrics.horizontalAdvance("= …"):
                painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft
                                           | Qt.AlignmentFlag.AlignVCenter), label)
        for frame, _old, _new in lane.switches:
            x = (self.frame_x(frame) + self.frame_x(frame + 1)) / 2
            r = h / 2 - 1
            diamond = QPolygonF([QPointF(x, y + 1), QPointF(x + r, y + h / 2),
                                 QPointF(x, y + h - 1), QPointF(x - r, y + h / 2)])
            painter.setPen(QPen(QColor("#000000"), 1))
            painter.setBrush(SWITCH)
            painter.drawPolygon(diamond)
        painter.setBrush(Qt.BrushStyle.NoBrush)

    # -------------------------------------------------------------------- input
    def lane_at(self, y: float) -> Lane | None:
        top = self.axis_height()
        row = -1
        for lane in self.lanes:
            if lane.row != row:
                row = lane.row
                top += self.row_gap()
            if top <= y < top + self.lane_height():
                return lane
            top += self.lane_height()
        return None

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self.lanes and event.button() == Qt.MouseButton.LeftButton:
            self.frame_clicked.emit(self.frame_at(event.position().x()))

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self.lanes and event.button() == Qt.MouseButton.LeftButton:
            self.frame_opened.emit(self.frame_at(event.position().x()))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        lane = self.lane_at(event.position().y())
        if lane is None or event.position().x() < self.label_width():
            self.setToolTip("")
            return
        frame = self.frame_at(event.position().x())
        self.setToolTip(lane_tip(lane, frame, self.style_.names))


def lane_tip(lane: Lane, frame: int, names: dict[str, str]) -> str:
    """What a lane says about ``frame`` (its tooltip)."""
    who = f"{names.get(lane.annotator, lane.annotator)} · {lane.shown} ({lane.label})"
    if not lane.first <= frame <= lane.last:
        return f"{who}: not on frame {frame} (frames {lane.first}–{lane.last})"
    if not lane.in_pair:
        return f"{who}: frame {frame} (not in the chosen pair)"
    partner = next((p for a, b, p in lane.partners if a <= frame <= b), None)
    switch = next((f"; ID switch here: {old} → {new}" for f, old, new in lane.switches
                   if f == frame), "")
    state = f"matched to {partner}" if partner else "missed (nothing matched)"
    return f"{who}: frame {frame}, {state}{switch}"


@dataclass(frozen=True, slots=True)
class FrameBox:
    box: tuple[float, float, float, float]
    """``x, y, width, height`` as fractions of the picture."""
    color: QColor
    text: str


class FramePanel(QWidget):
    """One frame's video boxes on a blank picture (``aspect`` = width / height)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.boxes: list[FrameBox] = []
        self.aspect = 16 / 9
        self.setMinimumSize(200, 120)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def show_boxes(self, boxes: list[FrameBox], aspect: float) -> None:
        self.boxes, self.aspect = boxes, aspect
        self.updateGeometry()
        self.update()

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt's name
        return max(120, round(width / self.aspect) + 12)

    def picture_rect(self) -> QRectF:
        margin = 6.0
        w = self.width() - 2 * margin
        h = self.height() - 2 * margin
        if w / max(h, 1.0) > self.aspect:
            w = h * self.aspect
        else:
            h = w / self.aspect
        return QRectF((self.width() - w) / 2, (self.height() - h) / 2, max(w, 1), max(h, 1))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        picture = self.picture_rect()
        painter.fillRect(picture, QColor("#2b2f36"))
        painter.setClipRect(picture)
        metrics = QFontMetricsF(self.font())
        placed: list[QRectF] = []
        for box in self.boxes:
            x, y, w, h = box.box
            pw, ph = picture.width(), picture.height()
            rect = QRectF(picture.left() + x * pw, picture.top() + y * ph, w * pw, h * ph)
            painter.setPen(QPen(box.color, 2.0))
            painter.drawRect(rect)
            tw, th = metrics.horizontalAdvance(box.text) + 6, metrics.height() + 2
            tx = min(max(rect.left(), picture.left()), picture.right() - tw)
            ty = min(max(rect.top(), picture.top()), picture.bottom() - th)
            while any(QRectF(tx, ty, tw, th).intersects(p) for p in placed):
                ty += th  # coinciding boxes (annotators who agree): stack their labels
            placed.append(QRectF(tx, ty, tw, th))
            painter.fillRect(placed[-1], box.color)
            painter.setPen(QPen(QColor("#000000"), 1))
            painter.drawText(QRectF(tx + 3, ty, tw, th), int(Qt.AlignmentFlag.AlignVCenter),
                             box.text)
        painter.end()
