"""Small HTML pieces shared by the certificate's sections: escaping, numbers, badges, tables.

:func:`e` is the one escape (``html.escape`` with quotes) every user string goes
through; the number formatters never emit markup from their input.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

STATE_COLOURS = {
    "met": "#1b7f3b",
    "violated": "#b3261e",
    "infeasible": "#6b1d86",
    "insufficient": "#9a6700",
    "stale": "#57606a",
}
"""Potato 2.12.1's five states; anything else is drawn grey."""
Image = tuple[str, int, int]
"""(resource name, width, height) in document units (1/96 inch)."""


def e(value: Any) -> str:
    """Escape anything for HTML text or attribute values."""
    return html.escape(str(value), quote=True)


def num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1e-3 and value else f"{value:.{digits}f}"
    return e(value)


def pct(value: Any, digits: int = 1) -> str:
    return "—" if value is None else f"{float(value) * 100:.{digits}f}%"


def interval(value: Any, digits: int = 3) -> str:
    if not isinstance(value, Sequence) or len(value) != 2:
        return "—"
    # a no-break space: an interval never wraps between its ends
    return f"[{num(value[0], digits)},&nbsp;{num(value[1], digits)}]"


def badge(state: str) -> str:
    colour = STATE_COLOURS.get(state, "#57606a")
    return (
        f'<span style="background-color:{colour}; color:#ffffff; font-weight:bold;">'
        f"&nbsp;{e(state.upper())}&nbsp;</span>"
    )


def facts(pairs: Sequence[tuple[str, str]], columns: int = 3) -> str:
    """Key–value pairs in a grid without a header row; values are HTML already."""
    cells = [f'<td bgcolor="#f6f8fa" style="color:#57606a;">{k}</td><td>{v}</td>' for k, v in pairs]
    rows = "".join(
        "<tr>" + "".join(cells[i : i + columns]) + "</tr>" for i in range(0, len(cells), columns)
    )
    return (
        f'<table width="100%" cellspacing="0" cellpadding="3" border="1" '
        f'style="border-collapse:collapse; border-color:#c8ccd0;">{rows}</table>'
    )


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    widths: Sequence[int] = (),
    small: bool = False,
) -> str:
    """A ruled table; cells are HTML already (escape before calling)."""
    size = ' style="font-size:8pt;"' if small else ""
    head = "".join(
        f'<th align="left" bgcolor="#eef1f4"{f" width={widths[i]}%" if i < len(widths) else ""}>'
        f"{h}</th>"
        for i, h in enumerate(headers)
    )
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return (
        f'<table width="100%" cellspacing="0" cellpadding="4" border="1"{size} '
        f'style="border-collapse:collapse; border-color:#c8ccd0;">'
        f"<thead><tr>{head}</tr></thead>{body}</table>"
    )


def notes_list(notes: Sequence[Any]) -> str:
    if not notes:
        return ""
    items = "".join(f"<li>{e(n)}</li>" for n in notes)
    return f'<p style="margin-bottom:0;"><b>Notes</b></p><ul style="margin-top:2px;">{items}</ul>'


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.4g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def compact(value: Any) -> str:
    """Any JSON value as short escaped text (for values without a dedicated layout);
    floats to 4 significant digits (the exact values are in the attached JSON)."""
    return e(json.dumps(_rounded(value), ensure_ascii=False, sort_keys=True))
