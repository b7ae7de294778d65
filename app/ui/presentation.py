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
- ``FONT_SCALE`` is 1.6; the window's own font (tabs, status bar) grows with it. The
  project tree is hidden (the room goes to the views) and comes back on leaving.
- The aliases follow the study's sorted annotator order, so A is always the same
  person within one project, whichever item is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget

from app.ui.views.base import ViewContext, anonymous_aliases

FONT_SCALE = 1.6
NEXT_KEYS = (Qt.Key.Key_Right, Qt.Key.Key_Down)
PREVIOUS_KEYS = (Qt.Key.Key_Left, Qt.Key.Key_Up)


class Presentation(QObject):
    """Drives the window's context while presentation mode is on."""

    changed = Signal(str)
    """A line for the status bar (where we are in the order), or "" when leaving."""

    def __init__(self, window: QWidget, get_context: Callable[[], ViewContext],
                 set_context: Callable[[ViewContext], None],
                 hidden: tuple[QWidget, ...] = ()) -> None:
        super().__init__(window)
        self._window = window
        self._hidden = hidden
        self._was_visible: list[bool] = []
        self._get = get_context
        self._set = set_context
        self.active = False
        self.order: list[str] = []
        self._scores: dict[str, float] = {}
        self.index = 0
        self._was_maximized = False
        self._font: QFont | None = None
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
        self._font = QFont(self._window.font())
        big = QFont(self._font)
        size = self._font.pointSizeF()
        if size > 0:
            big.setPointSizeF(size * FONT_SCALE)
        self._window.setFont(big)
        self._was_visible = [w.isVisible() for w in self._hidden]
        for widget in self._hidden:
            widget.hide()
        for shortcut in self._shortcuts:
            shortcut.setEnabled(True)
        self._window.showFullScreen()
        self.refresh(keep=False)

    def leave(self) -> None:
        if not self.active:
            return
        self.active = False
        for shortcut in self._shortcuts:
            shortcut.setEnabled(False)
        if self._font is not None:
            self._window.setFont(self._font)
        for widget, visible in zip(self._hidden, self._was_visible, strict=False):
            widget.setVisible(visible)
        if self._was_maximized:
            self._window.showMaximized()
        else:
            self._window.showNormal()
        self._set(self._get().with_(anonymous=False, font_scale=1.0))
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
            self.changed.emit("Presentation: no project open")
            return
        from app.core.agreement.item_ranking import item_scores, rank_items  # scipy: lazily

        self.order = rank_items(project.report, context.scheme)
        self._scores = item_scores(project.report, context.scheme)
        aliases = anonymous_aliases(tuple(sorted(project.study.annotators)))
        self._set(context.with_(anonymous=True, font_scale=FONT_SCALE, aliases=aliases))
        self.index = self.order.index(current) if keep and current in self.order else 0
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
        shown = "" if score is None else f" · item score {score:.2f}"
        self.changed.emit(f"{item} · {self.index + 1} of {len(self.order)}, most "
                          f"disagreement first{shown} · ← → step · Esc leaves")
