"""The contract between the main window and its views.

A view is a ``QWidget`` that renders one :class:`ViewContext` and emits what the user
picked; it keeps no state that is not in the context (architecture rule 3). The main
window owns the context and calls :meth:`View.show_context` on every view whenever the
project, the selected item or the presentation mode changes; a view must cope with any
of them being absent (no project yet, an item the scheme does not cover).

Names and presentation mode: every annotator name a view shows goes through
:meth:`ViewContext.annotator_label`, so presentation mode can replace names by A, B, C
everywhere at once, and machine raters are marked the same way everywhere
("⚙ name (machine)", :func:`app.report.agreement_vocabulary.machine_label`).
``ViewContext.font_scale`` is 1.0 normally and larger in presentation mode.

``View.name`` is the CLI's view name (``cli.md``: overview, items, cuboids, tiers,
traces, regions, masks, contracts, answers, spans, numbers, rankings, matrices,
volumes, tracks),
used by ``accord open --view``.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, ClassVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from app.ui.views.empty_state import EmptyState

if TYPE_CHECKING:  # not at run time: the core's import (scipy) would delay the first paint
    from app.core.project import ProjectData

NO_PROJECT = "No project is open: File › Open…, File › Open demo, or drop a project folder here."
"""Every view's empty-state sentence when no project is open."""

VIEW_NAMES = ("overview", "items", "cuboids", "tiers", "traces", "regions", "masks",
              "contracts", "answers", "spans", "numbers", "rankings", "matrices",
              "volumes", "tracks")


@dataclass(frozen=True, slots=True)
class ViewContext:
    project: ProjectData | None = None
    item: str | None = None
    """The selected item id, or ``None``."""
    scheme: str | None = None
    """The selected scheme, or ``None`` (a view then picks the first scheme it can show)."""
    anonymous: bool = False
    """Presentation mode: annotator names are shown as A, B, C…"""
    font_scale: float = 1.0
    aliases: dict[str, str] = field(default_factory=dict)

    def annotator_label(self, name: str) -> str:
        """The name to show for an annotator (A, B, C… in presentation mode); a machine
        rater (its ``user_state.json`` declares a non-person ``origin``) is marked
        "⚙ name (machine)" in every view that shows names through here."""
        shown = self.aliases.get(name, name) if self.anonymous else name
        if self.project is not None and name in self.project.study.origins:
            from app.report.agreement_vocabulary import machine_label  # loaded with a project

            return machine_label(shown)
        return shown

    def anonymize_text(self, text: str) -> str:
        """``text`` (a note, a reason) with every annotator's name, as a whole word,
        replaced by its alias in presentation mode; unchanged otherwise. Report notes
        name annotators ("the pair amara|chen is left out"), and a name shown there
        would undo the A, B, C everywhere else."""
        if not self.anonymous or not self.aliases:
            return text
        names = sorted(self.aliases, key=len, reverse=True)  # "ana" after "anabel"
        pattern = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, names)) + r")(?!\w)")
        return pattern.sub(lambda m: self.aliases[m.group(1)], text)

    def with_(self, **changes: object) -> ViewContext:
        return replace(self, **changes)  # type: ignore[arg-type]


def anonymous_aliases(annotators: tuple[str, ...]) -> dict[str, str]:
    """A, B, … Z, then AA, AB…, in the study's (sorted) annotator order."""
    letters = string.ascii_uppercase
    out: dict[str, str] = {}
    for i, name in enumerate(annotators):
        label = ""
        n = i
        while True:
            label = letters[n % 26] + label
            n = n // 26 - 1
            if n < 0:
                break
        out[name] = label
    return out


class View(QWidget):
    """Base of every docked view."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""

    item_picked = Signal(str)
    """The user picked an item (the main window selects it everywhere)."""
    scheme_picked = Signal(str)
    """The user picked a scheme."""

    _context: ViewContext
    """What the view shows now (kept by views that redraw themselves on a pick)."""

    def show_context(self, context: ViewContext) -> None:
        """Show ``context``; called on the GUI thread, must be quick (no computation)."""
        raise NotImplementedError

    def user_chose_scheme(self, scheme: str, *, keep_item: bool = True) -> None:
        """The user chose ``scheme`` in the view's own selector: tell the window and
        redraw here at once (the item too is forgotten unless ``keep_item``)."""
        if scheme:
            self.scheme_picked.emit(scheme)
            changes: dict[str, object] = {"scheme": scheme}
            if not keep_item:
                changes["item"] = None
            self.show_context(self._context.with_(**changes))

    def user_chose_item(self, item: str) -> None:
        """The user picked ``item`` in the view's own list: tell the window, redraw here."""
        if item:
            self.item_picked.emit(item)
            self.show_context(self._context.with_(item=item))

    def context_steps(self, context: ViewContext) -> list[Callable[[], object]]:
        """:meth:`show_context` as steps that the window runs one per event-loop turn
        when a project arrives, so that no step together with the repaint it causes
        stalls the window (the goal is under 50 ms); one step unless a view splits it."""
        return [partial(self.show_context, context)]

    def show_empty(self, sentence: str) -> None:
        """Cover the view with the one empty state every view shares: its title and
        ``sentence`` (why there is nothing to show), centred (:mod:`.empty_state`)."""
        self._empty_cover().show_message(self.title or self.name, sentence)

    def hide_empty(self) -> None:
        """Show the view's content again."""
        cover = self.__dict__.get("_empty_state")
        if cover is not None:
            cover.hide()

    @property
    def empty_message(self) -> str:
        """The empty state's sentence, or ``''`` when the view shows content."""
        cover = self.__dict__.get("_empty_state")
        return cover.message if cover is not None else ""

    def _empty_cover(self) -> EmptyState:
        cover = self.__dict__.get("_empty_state")
        if cover is None:
            cover = self.__dict__["_empty_state"] = EmptyState(self)
        return cover

    def scale_font(self, context: ViewContext) -> None:
        """The view's font at :data:`BASE_POINT_SIZE` times ``context.font_scale``
        (presentation mode), never below 6 pt; child widgets inherit it."""
        font = self.font()
        font.setPointSizeF(scaled_point_size(context))
        self.setFont(font)


BASE_POINT_SIZE = 9.0


def scaled_point_size(context: ViewContext) -> float:
    """The point size a view's text has in ``context`` (bigger in presentation mode)."""
    return max(6.0, BASE_POINT_SIZE * context.font_scale)
