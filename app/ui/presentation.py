"""Presentation mode: show annotators where they disagree, without naming anyone.

Entering it puts the window in full screen, replaces every annotator name by A, B, C
(``ViewContext.anonymous`` with :func:`~app.ui.views.base.anonymous_aliases`), enlarges
fonts (``font_scale``) and selects the item with the most disagreement; the arrow keys
then step through the items in that order (:func:`app.core.agreement.item_ranking.
rank_items`, lowest item score first). Escape (or F11 again) leaves it and restores the
window as it was.

Choices where the design is silent:

- The order is over the selected scheme when there is one, else over every scheme
  (an item's worst scheme); it is recomputed when the project reloads, keeping the
  current item when it is still ranked.
- Right and Down go to the next item (less disagreement), Left and Up back; the ends
  do not wrap. Home and End jump to the first and last.
- ``FONT_SCALE`` is 1.6; the window's own font (tabs, status bar) grows with it.
- The layout: the window says which docks to hide (``hidden``: the project tree, and
  the summaries when the scheme has a detail view, so that view fills the screen) and
  ``arrange`` raises the view to show. Above them a caption in a large font names the
  item, where it is in the order ("3 of 12, most disagreement first") and its item
  score; the status bar keeps one short line with the keys. The window's dock layout
  is saved (``QMainWindow.saveState``) on entering and restored exactly on leaving.
- ``accord open --presentation`` starts in it once the project has arrived
  (:func:`enter_when_loaded`); ``--screenshot`` with it renders what the room sees.
- The aliases follow the study's sorted annotator order, so A is always the same
  person within one project, whichever item is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from html import escape
from typing import Any

from PySide6.QtCore import QByteArray, QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import QLabel, QMainWindow, QToolBar, QWidget

from app.ui.views.base import ViewContext, anonymous_aliases

FONT_SCALE = 1.6
CAPTION_SCALE = 1.5
"""The caption's item name, relative to the (already enlarged) window font."""
NEXT_KEYS = (Qt.Key.Key_Right, Qt.Key.Key_Down)
PREVIOUS_KEYS = (Qt.Key.Key_Left, Qt.Key.Key_Up)
KEYS_HINT = "← → step through the items · Home, End · Esc leaves"


def _nothing() -> None:
    return None


class Presentation(QObject):
    """Drives the window's context and layout while presentation mode is on."""

    changed = Signal(str)
    """A line for the status bar (the keys), or "" when leaving."""

    def __init__(self, window: QMainWindow, get_context: Callable[[], ViewContext],
                 set_context: Callable[[ViewContext], None],
                 hidden: Callable[[], Sequence[QWidget]] = tuple,
                 arrange: Callable[[], None] = _nothing) -> None:
        super().__init__(window)
        self._window = window
        self._hidden = hidden
        self._arrange = arrange
        self._state: QByteArray | None = None
        self._get = get_context
        self._set = set_context
        self.active = False
        self.order: list[str] = []
        self._scores: dict[str, float] = {}
        self.index = 0
        self._was_maximized = False
        self._font: QFont | None = None
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setObjectName("presentation_caption_text")
        self.caption.setContentsMargins(12, 6, 12, 6)
        self.caption_bar = QToolBar("Presentation", window)
        self.caption_bar.setObjectName("presentation_caption")
        self.caption_bar.setMovable(False)
        self.caption_bar.setFloatable(False)
        self.caption_bar.toggleViewAction().setVisible(False)
        self.caption_bar.addWidget(self.caption)
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.caption_bar)
        self.caption_bar.hide()
        self._shortcuts: list[QShortcut] = []
        keys = [(k, 1) for k in NEXT_KEYS] + [(k, -1) for k in PREVIOUS_KEYS]
        for key, delta in keys:
            self._shortcut(QKeySequence(key), partial(self.step, delta))
        self._shortcut(QKeySequence(Qt.Key.Key_Home), lambda: self.go(0))
        self._shortcut(QKeySequence(Qt.Key.Key_End), lambda: self.go(len(self.order) - 1))
        self._shortcut(QKeySequence(Qt.Key.Key_Escape), self.leave)

    def _shortcut(self, keys: QKeySequence, slot: Callable[[], object]) -> None:
        shortcut = QShortcut(keys, self._window)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.setEnabled(False)
        shortcut.activated.connect(slot)
        self._shortcuts.append(shortcut)

    @property
    def caption_text(self) -> str:
        """The caption as plain text (what the room reads)."""
        return self.caption.property("plain") or ""

    def toggle(self) -> None:
        if self.active:
            self.leave()
        else:
            self.enter()

    def enter(self) -> None:
        if self.active:
            return
        self.active = True
        self._was_maximized = self._window.isMaximized()
        self._state = self._window.saveState()
        self._font = QFont(self._window.font())
        big = QFont(self._font)
        size = self._font.pointSizeF()
        if size > 0:
            big.setPointSizeF(size * FONT_SCALE)
        self._window.setFont(big)
        for widget in self._hidden():
            widget.hide()
        self.caption_bar.show()
        for shortcut in self._shortcuts:
            shortcut.setEnabled(True)
        self._window.showFullScreen()
        self.refresh(keep=False)
        self._arrange()

    def leave(self) -> None:
        if not self.active:
            return
        self.active = False
        for shortcut in self._shortcuts:
            shortcut.setEnabled(False)
        # Fonts first: the layout's minimum sizes must be the normal ones again before
        # the window leaves full screen, or it comes back taller than it was.
        self._set(self._get().with_(anonymous=False, font_scale=1.0))
        if self._font is not None:
            self._window.setFont(self._font)
        self.caption_bar.hide()
        if self._was_maximized:
            self._window.showMaximized()
        else:
            self._window.showNormal()
        if self._state is not None:
            # The normal fonts' layouts first (each settled layout asks its parent to
            # lay out again): restored over stale sizes, docks come back a few px off.
            for _ in range(8):
                QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            self._window.restoreState(self._state)
            self._state = None
        self.changed.emit("")

    def refresh(self, keep: bool = True) -> None:
        """Recompute the order from the current project (after a reload)."""
        if not self.active:
            return
        context = self._get()
        project = context.project
        current = context.item
        if project is None:
            self.order = []
            self._set(context.with_(anonymous=True, font_scale=FONT_SCALE, aliases={}))
            self._caption("No project is open", "open one with File › Open")
            self.changed.emit(KEYS_HINT)
            return
        from app.core.agreement.item_ranking import item_scores, rank_items  # scipy: lazily

        self.order = rank_items(project.report, context.scheme)
        self._scores = item_scores(project.report, context.scheme)
        aliases = anonymous_aliases(tuple(sorted(project.study.annotators)))
        self._set(context.with_(anonymous=True, font_scale=FONT_SCALE, aliases=aliases))
        self.index = self.order.index(current) if keep and current in self.order else 0
        if not self.order:
            self._caption("No item to show", "no item has an item score")
            self.changed.emit(KEYS_HINT)
            return
        self.go(self.index)

    def step(self, delta: int) -> None:
        self.go(self.index + delta)

    def go(self, index: int) -> None:
        if not self.active or not self.order:
            return
        self.index = max(0, min(len(self.order) - 1, index))
        item = self.order[self.index]
        context = self._get()
        self._set(context.with_(item=item))
        score = self._scores.get(item)
        parts = [f"{self.index + 1} of {len(self.order)}, most disagreement first"]
        if score is not None:
            parts.append(f"item score {score:.2f}")
        if context.scheme:
            parts.append(f"scheme {context.scheme}")
        self._caption(item, " · ".join(parts))
        self.changed.emit(KEYS_HINT)

    def _caption(self, title: str, line: str) -> None:
        size = self.caption.font().pointSizeF()
        big = f"font-size:{size * CAPTION_SCALE:.1f}pt;" if size > 0 else ""
        self.caption.setText(f"<span style='{big}font-weight:600'>{escape(title)}</span>"
                             f"&nbsp;&nbsp;&nbsp;<span style='color:#444'>"
                             f"{escape(line)}</span>")
        self.caption.setProperty("plain", f"{title}   {line}")


def enter_when_loaded(window: Any) -> None:
    """Enter ``window``'s presentation mode once its next project has arrived
    (``accord open --presentation``): the order of items needs the project, and entering
    before the views are docked would leave them out of the layout it saves."""

    def present(_data: object) -> None:
        window.project_loaded.disconnect(present)
        window.presentation.enter()

    window.project_loaded.connect(present)
