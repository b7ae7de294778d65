"""A contract state as a small coloured badge: the word on the palette's state colour.

The word is always shown (colour alone would not reach everyone, and tests read it);
the colour comes from :data:`app.ui.palette.STATE_COLORS`, with white or near-black text,
whichever reads on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from app.ui.palette import state_color


class StateBadge(QLabel):
    """``met``, ``insufficient``… (Potato's five states) in a rounded coloured pill."""

    def __init__(self, state: str = "insufficient", parent: QWidget | None = None,
                 font_scale: float = 1.0) -> None:
        super().__init__(parent)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._font_scale = font_scale
        self.set_state(state)

    def set_state(self, state: str) -> None:
        color = state_color(state)
        luminance = 0.2126 * color.redF() + 0.7152 * color.greenF() + 0.0722 * color.blueF()
        text = "#FFFFFF" if luminance < 0.55 else "#111111"
        size = round(11 * self._font_scale)
        self.setText(state)
        self.setProperty("state", state)
        self.setStyleSheet(
            f"QLabel {{ background: {color.name()}; color: {text}; border-radius: 8px; "
            f"padding: 2px 10px; font-weight: bold; font-size: {size}px; }}")

    def state(self) -> str:
        return str(self.property("state"))


def potato_badge(record: Mapping[str, Any] | None, font_scale: float = 1.0,
                 verdict: str | None = None, differences: tuple[str, ...] = ()
                 ) -> StateBadge:
    """What Potato's own engine recorded for a contract: "Potato: met · look 1 ·
    reproduced", on the state's colour (or "Potato: never evaluated" in grey); the
    tooltip lists the audit's differences."""
    if record is None:
        badge = StateBadge("insufficient", font_scale=font_scale)
        badge.setText("Potato: never evaluated")
    else:
        badge = StateBadge(str(record.get("state")), font_scale=font_scale)
        badge.setText(f"Potato: {record.get('state')} · look {record.get('looks')}"
                      + (f" · {verdict}" if verdict else ""))
    tip = ("The state and looks Potato 2.12's engine stored for this contract in "
           "engine.sqlite (its latest contract_version row), and whether Accord's "
           "recomputation with Potato's method reproduces it.")
    badge.setToolTip("\n".join([tip, *differences]))
    return badge
