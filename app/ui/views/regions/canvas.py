"""The regions picture with a readable label on every object, laid out on screen.

Why labels are painted in the viewport rather than added to the scene: the picture is
scaled to fit (a 320×240 demo image shown at 550 px, a 4,000 px photo at the same size),
and text in scene units would be huge on one and unreadable on the other. So the labels
are placed in device pixels after each fit (:mod:`.label_layout`), and painted over the
scene in :meth:`RegionsCanvas.drawForeground`; the last layout is kept in
:attr:`RegionsCanvas.drawn` for tests.

Look (choices; the spec is silent): each label is a white card (85% opaque) naming each
class in bold, then a swatch of each annotator's colour before their (shown) name; an
unmatched shape's label ends in "unmatched" in the disagreement red. A label moved away
from its shapes gets a thin grey leader line. Hiding an annotator (the legend) hides
their names from the labels, and a label with no visible shape left goes; the layout is
done again, so the remaining labels may move closer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import QWidget

from app.ui.palette import DISAGREE_COLOR
from app.ui.views.image_canvas import ImageCanvas
from app.ui.views.label_geometry import Rect
from app.ui.views.regions.label_layout import Layout, Request, hidden_note, place
from app.ui.views.regions.matches import GroupText, ShapeKey

TEXT = QColor("#202020")
CARD = QColor(255, 255, 255, 218)
LEADER = QColor(60, 60, 60, 210)
PAD_X, PAD_Y = 4.0, 1.0
NOTE_MARGIN = 6.0
UNMATCHED_WORD = "unmatched"
MIN_SIZE = (320, 160)


@dataclass(frozen=True, slots=True)
class LabelSpec:
    """One label: the shapes it names (their scene rectangles) and what it says."""

    members: tuple[ShapeKey, ...]
    rects: tuple[QRectF, ...]
    """Scene bounding rectangle per member."""
    text: GroupText
    colors: dict[str, QColor]
    """Shown annotator name → colour."""
    shown: dict[str, str]
    """Raw annotator name → shown name."""

    def visible(self, hidden: set[str]) -> LabelSpec | None:
        """This label with hidden annotators' shapes and names left out (None if none left)."""
        keep = [i for i, (name, _) in enumerate(self.members) if name not in hidden]
        if not keep:
            return None
        if len(keep) == len(self.members):
            return self
        names = {self.shown.get(self.members[i][0], self.members[i][0]) for i in keep}
        classes = tuple((c, tuple(n for n in who if n in names)) for c, who in self.text.classes)
        text = GroupText(tuple((c, w) for c, w in classes if w), self.text.unmatched)
        return LabelSpec(
            tuple(self.members[i] for i in keep),
            tuple(self.rects[i] for i in keep),
            text,
            self.colors,
            self.shown,
        )


@dataclass(frozen=True, slots=True)
class Drawn:
    """What the last layout shows, for painting and for tests."""

    specs: tuple[LabelSpec, ...]
    """The visible labels, in priority order (``layout`` indexes into these)."""
    targets: tuple[Rect, ...]
    layout: Layout
    texts: tuple[str, ...]
    """Per placed label, the text painted (full or short form)."""
    note: str
    note_rect: Rect | None


Run = tuple[str, bool, QColor, QColor | None]
"""(text, bold, text colour, swatch colour drawn before the text or None)."""


def runs(text: GroupText, colors: dict[str, QColor]) -> list[Run]:
    out: list[Run] = []
    for k, (cls, names) in enumerate(text.classes):
        out.append((("  ·  " if k else "") + (cls or "(no label)"), True, TEXT, None))
        for name in names:
            out.append((" " + name, False, TEXT, colors.get(name, TEXT)))
    if text.unmatched:
        out.append(("  " + UNMATCHED_WORD, True, DISAGREE_COLOR, None))
    return out


class RegionsCanvas(ImageCanvas):
    """The picture, its shapes, and one label per object laid out so none overlaps."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Shorter than the masks view's minimum: docked at 1280×800 the view is ~340 px
        # tall and the legend and the unmatched count sit under the picture.
        self.setMinimumSize(MIN_SIZE[0], MIN_SIZE[1])
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._specs: list[LabelSpec] = []
        self._hidden: set[str] = set()
        self.drawn = Drawn((), (), Layout((), ()), (), "", None)

    # ------------------------------------------------------------------ input
    def show_image(self, image: QImage | None, size: tuple[int, int], missing: str = "") -> None:
        self._specs = []
        self._hidden = set()
        super().show_image(image, size, missing)

    def set_labels(self, specs: Sequence[LabelSpec]) -> None:
        self._specs = list(specs)
        self.relayout()

    def set_annotator_visible(self, annotator: str, visible: bool) -> None:
        super().set_annotator_visible(annotator, visible)
        (self._hidden.discard if visible else self._hidden.add)(annotator)
        self.relayout()

    def fit(self) -> None:
        super().fit()
        if hasattr(self, "_specs"):  # ImageCanvas.__init__ fits before we exist
            self.relayout()

    # ------------------------------------------------------------------ layout
    def _fonts(self) -> tuple[QFont, QFont]:
        font = QFont(self.font())
        bold = QFont(font)
        bold.setBold(True)
        return font, bold

    def _width(self, parts: Sequence[Run]) -> float:
        font, bold = self._fonts()
        plain, heavy = QFontMetricsF(font), QFontMetricsF(bold)
        swatch = plain.ascent() * 0.8 + 2
        return sum(
            (heavy if b else plain).horizontalAdvance(t) + (swatch if s else 0.0)
            for t, b, _, s in parts
        )

    def relayout(self) -> None:
        visible = [s for s in (spec.visible(self._hidden) for spec in self._specs) if s]
        transform = self.viewportTransform()
        targets = []
        for spec in visible:
            box = QRectF()
            for rect in spec.rects:
                box = box.united(transform.mapRect(rect))
            targets.append(Rect(box.x(), box.y(), box.width(), box.height()))
        order = sorted(
            range(len(visible)),
            key=lambda i: (
                not visible[i].text.unmatched,
                len(visible[i].text.classes) == 1,
                targets[i].y,
                targets[i].x,
            ),
        )
        specs = tuple(visible[i] for i in order)
        targets = [targets[i] for i in order]
        font, _ = self._fonts()
        h = QFontMetricsF(font).height() + 2 * PAD_Y
        requests = [
            Request(
                t,
                (self._width(runs(s.text, s.colors)) + 2 * PAD_X, h),
                (self._width([(s.text.short(), False, TEXT, None)]) + 2 * PAD_X, h),
            )
            for s, t in zip(specs, targets, strict=True)
        ]
        width, height = self.viewport().width(), self.viewport().height()
        layout = place(requests, width, height)
        note_rect = None
        if layout.dropped:
            # Reserve the note's corner and lay out again, so the note covers no label.
            probe = hidden_note(len(requests))
            w = self._width([(probe, False, TEXT, None)]) + 2 * PAD_X
            note_rect = Rect(NOTE_MARGIN, height - h - NOTE_MARGIN, w, h)
            layout = place(requests, width, height, reserved=(note_rect,))
        texts = tuple(
            specs[p.index].text.short() if p.short else specs[p.index].text.plain()
            for p in layout.placed
        )
        self.drawn = Drawn(
            specs, tuple(targets), layout, texts, hidden_note(len(layout.dropped)), note_rect
        )
        self.viewport().update()

    # ------------------------------------------------------------------ painting
    def drawForeground(self, painter: QPainter, rect: QRectF | object) -> None:  # noqa: N802
        drawn = self.drawn
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        font, bold = self._fonts()
        for placed in drawn.layout.placed:  # leaders first: no line crosses a card
            segment = placed.leader(drawn.targets[placed.index])
            if segment is not None:
                (lx, ly), (tx, ty) = segment
                painter.setPen(QPen(LEADER, 1.2))
                painter.setBrush(LEADER)
                painter.drawLine(QPointF(lx, ly), QPointF(tx, ty))
                painter.drawEllipse(QPointF(tx, ty), 2.0, 2.0)
        for placed in drawn.layout.placed:
            spec = drawn.specs[placed.index]
            parts = (
                [(spec.text.short(), False, DISAGREE_COLOR if spec.text.unmatched else TEXT, None)]
                if placed.short
                else runs(spec.text, spec.colors)
            )
            self._card(painter, placed.rect, parts, font, bold)
        if drawn.note and drawn.note_rect is not None:
            self._card(painter, drawn.note_rect, [(drawn.note, False, TEXT, None)], font, bold)
        painter.restore()

    def _card(
        self, painter: QPainter, r: Rect, parts: Sequence[Run], font: QFont, bold: QFont
    ) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(CARD)
        painter.drawRoundedRect(QRectF(r.x, r.y, r.w, r.h), 3, 3)
        plain, heavy = QFontMetricsF(font), QFontMetricsF(bold)
        x = r.x + PAD_X
        baseline = r.y + PAD_Y + plain.ascent()
        side = plain.ascent() * 0.8
        for text, is_bold, color, swatch in parts:
            metrics = heavy if is_bold else plain
            lead = len(text) - len(text.lstrip(" "))
            if swatch is not None:
                x += metrics.horizontalAdvance(text[:lead])
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(swatch)
                painter.drawRect(QRectF(x, baseline - side, side, side))
                x += side + 2
                text = text[lead:]
            painter.setPen(color)
            painter.setFont(bold if is_bold else font)
            painter.drawText(QPointF(x, baseline), text)
            x += metrics.horizontalAdvance(text)
