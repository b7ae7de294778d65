"""The certificate's plots, drawn with QPainter into PNG bytes (no matplotlib).

Each plot is a pure function of one contract's entry in the certificate data, so the
PDF shows nothing the embedded JSON does not hold:

- :func:`interval_plot` (``ppi``): each estimate with its interval, one row per label
  (per ``by`` value and label), on [0, 1] for prevalences;
- :func:`coverage_plot` (``selective_risk``): dev error against dev coverage as the
  threshold falls, one line per tier, the target error and the dev-choice limit (half
  the target) as horizontal lines, the chosen threshold marked;
- :func:`distance_plot` (``distributional``): the mean Jensen–Shannon distance with its
  interval against the noise ceiling, overall and per group, and ``max_distance``.

Choices: images are drawn at :data:`SCALE` × their logical size (about 190 dpi at the
width the PDF prints them), colours are Okabe–Ito (distinguishable with the common
colour-vision deficiencies), text is drawn with ``drawText`` (never HTML), so a label
name is shown as written. Plots with nothing to draw return ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen, QPolygonF

from app.report.ppi_rows import estimate_groups

SCALE = 2.0
WIDTH = 640.0
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
INK = QColor("#222222")
GRID = QColor("#dddddd")
MUTED = QColor("#777777")


def _png(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]
    buffer.close()
    return bytes(data.data())


def _canvas(height: float) -> tuple[QImage, QPainter]:
    image = QImage(int(WIDTH * SCALE), int(height * SCALE), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    painter.scale(SCALE, SCALE)
    painter.setFont(_font(10))
    return image, painter


def _font(pixels: float, bold: bool = False) -> QFont:
    font = QFont("DejaVu Sans")
    font.setPixelSize(max(1, round(pixels)))
    font.setBold(bold)
    return font


def _x_axis(
    p: QPainter,
    area: QRectF,
    low: float,
    high: float,
    ticks: Sequence[float],
    label: str,
    fmt: str = "{:g}",
) -> None:
    p.setFont(_font(9))
    for t in ticks:
        x = area.left() + (t - low) / (high - low) * area.width()
        p.setPen(QPen(GRID, 1))
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
        p.setPen(INK)
        p.drawText(
            QRectF(x - 30, area.bottom() + 3, 60, 14),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
            fmt.format(t),
        )
    p.setPen(QPen(INK, 1))
    p.drawLine(area.bottomLeft(), area.bottomRight())
    p.setFont(_font(10))
    p.drawText(
        QRectF(area.left(), area.bottom() + 17, area.width(), 16),
        Qt.AlignmentFlag.AlignHCenter,
        label,
    )


def _title(p: QPainter, text: str) -> None:
    p.setPen(INK)
    p.setFont(_font(12, bold=True))
    p.drawText(QRectF(10, 4, WIDTH - 20, 20), Qt.AlignmentFlag.AlignLeft, text)


def _elide(p: QPainter, text: str, width: float) -> str:
    return p.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, int(width))


def _rows_plot(
    title: str,
    rows: list[dict[str, Any]],
    low: float,
    high: float,
    axis_label: str,
    limit: float | None,
    limit_label: str,
    legend: list[tuple[str, QColor, str]],
) -> bytes:
    """Dot-and-whisker rows: ``{"label", "estimate", "interval", "marker"?}``."""
    row_h = 20.0
    top, left, right = 48.0, 170.0, 24.0
    height = top + row_h * len(rows) + 44
    image, p = _canvas(height)
    _title(p, title)
    area = QRectF(left, top, WIDTH - left - right, row_h * len(rows))
    ticks = [low + (high - low) * i / 5 for i in range(6)]
    _x_axis(p, area, low, high, ticks, axis_label, "{:.2f}")

    def x_of(v: float) -> float:
        return area.left() + (min(max(v, low), high) - low) / (high - low) * area.width()

    if limit is not None:
        p.setPen(QPen(QColor("#D55E00"), 1.5, Qt.PenStyle.DashLine))
        p.drawLine(QPointF(x_of(limit), area.top() - 6), QPointF(x_of(limit), area.bottom()))
        p.setFont(_font(9))
        p.drawText(
            QRectF(x_of(limit) - 80, area.top() - 20, 160, 14),
            Qt.AlignmentFlag.AlignHCenter,
            limit_label,
        )
    for i, row in enumerate(rows):
        y = area.top() + row_h * (i + 0.5)
        p.setPen(INK)
        p.setFont(_font(10))
        p.drawText(
            QRectF(4, y - row_h / 2, left - 10, row_h),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            _elide(p, str(row["label"]), left - 12),
        )
        colour = QColor(row.get("colour", PALETTE[0]))
        interval = row.get("interval")
        if interval and interval[0] is not None and interval[1] is not None:
            p.setPen(QPen(colour, 2.2))
            p.drawLine(QPointF(x_of(interval[0]), y), QPointF(x_of(interval[1]), y))
            for end in interval:
                p.drawLine(QPointF(x_of(end), y - 4), QPointF(x_of(end), y + 4))
        if row.get("estimate") is not None:
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(colour)
            p.drawEllipse(QPointF(x_of(row["estimate"]), y), 4.0, 4.0)
        if row.get("marker") is not None:
            m = x_of(row["marker"])
            p.setPen(QPen(INK, 1))
            p.setBrush(QColor("white"))
            p.drawPolygon(
                QPolygonF(
                    [QPointF(m, y - 5), QPointF(m + 5, y), QPointF(m, y + 5), QPointF(m - 5, y)]
                )
            )
    _legend(p, legend, top - 22)
    p.end()
    return _png(image)


def _legend(p: QPainter, legend: list[tuple[str, QColor, str]], y: float) -> None:
    x = WIDTH - 12.0
    p.setFont(_font(9))
    for text, colour, shape in reversed(legend):
        w = p.fontMetrics().horizontalAdvance(text) + 22
        x -= w
        p.setPen(QPen(colour, 2))
        p.setBrush(colour if shape == "dot" else QColor("white"))
        if shape == "line":
            p.drawLine(QPointF(x, y + 6), QPointF(x + 14, y + 6))
        elif shape == "diamond":
            p.setPen(QPen(INK, 1))
            p.drawPolygon(
                QPolygonF(
                    [
                        QPointF(x + 7, y + 1),
                        QPointF(x + 12, y + 6),
                        QPointF(x + 7, y + 11),
                        QPointF(x + 2, y + 6),
                    ]
                )
            )
        else:
            p.drawEllipse(QPointF(x + 7, y + 6), 4, 4)
        p.setPen(INK)
        p.drawText(QRectF(x + 17, y - 1, w, 14), Qt.AlignmentFlag.AlignLeft, text)
        x -= 8


def interval_plot(contract: dict[str, Any]) -> bytes | None:
    """PPI estimates and intervals of a ``ppi`` contract."""
    result = contract.get("result") or {}
    rows: list[dict[str, Any]] = []
    for g, (group, labels) in enumerate(estimate_groups(result)):
        for name, value in labels.items():
            if not isinstance(value, dict):
                continue
            rows.append(
                {
                    "label": f"{group} · {name}" if group else str(name),
                    "estimate": value.get("estimate"),
                    "interval": value.get("interval"),
                    "colour": PALETTE[g % len(PALETTE)],
                }
            )
    if not rows:
        return None
    values = [v for r in rows for v in (r["interval"] or [r["estimate"]]) if v is not None]
    low, high = (
        (0.0, 1.0)
        if result.get("estimand", "prevalence") == "prevalence"
        else (min(values), max(values) if max(values) > min(values) else min(values) + 1)
    )
    level = result.get("level") or result.get("confidence") or contract.get("confidence") or 0.9
    return _rows_plot(
        f"Estimates with {float(level):.1%} intervals (PPI, the look's level)",
        rows,
        low,
        high,
        "estimate",
        None,
        "",
        [("estimate", QColor(PALETTE[0]), "dot")],
    )


def distance_plot(contract: dict[str, Any]) -> bytes | None:
    """Jensen–Shannon distance against the noise ceiling of a ``distributional`` contract."""
    result = contract.get("result") or {}
    rows: list[dict[str, Any]] = []
    entries = [("all items (judged)", result)] + [
        (f"{k} (reported)", v) for k, v in (result.get("groups") or {}).items()
    ]
    for name, value in entries:
        if isinstance(value, dict) and value.get("mean_js") is not None:
            rows.append(
                {
                    "label": name,
                    "estimate": value.get("mean_js"),
                    "interval": value.get("interval"),
                    "marker": value.get("noise_ceiling"),
                    "colour": PALETTE[0],
                }
            )
    if not rows:
        return None
    limit = (contract.get("parameters") or {}).get("max_distance")
    return _rows_plot(
        "Machine–people distance and the people's own noise ceiling",
        rows,
        0.0,
        1.0,
        "Jensen–Shannon distance (base 2)",
        limit,
        f"maximum distance {limit:g}" if limit is not None else "",
        [("machine vs people", QColor(PALETTE[0]), "dot"), ("noise ceiling", INK, "diamond")],
    )


def _nice_step(top: float) -> float:
    """A round tick step (1, 2, 2.5 or 5 times a power of ten) giving at most 6 intervals,
    so that every tick label is exact: 0%, 10%, 20%, never 7.5% printed as 8%."""
    for step in (0.001, 0.002, 0.0025, 0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25):
        if top / step <= 6 + 1e-9:
            return step
    return 0.25


def coverage_plot(contract: dict[str, Any]) -> bytes | None:
    """Dev error versus dev coverage by threshold, per tier, of a ``selective_risk`` contract."""
    curves: dict[str, list[dict[str, Any]]] = contract.get("dev_curve") or {}
    if not any(curves.values()):
        return None
    target = float((contract.get("parameters") or {}).get("error", 0.1))
    top_error = max([target * 1.6] + [pt["error"] for c in curves.values() for pt in c])
    top_error = min(1.0, top_error)
    step = _nice_step(top_error)
    top_error = min(1.0, math.ceil(top_error / step - 1e-9) * step)
    height = 300.0
    image, p = _canvas(height)
    _title(p, "Dev labels: error versus coverage as the threshold falls")
    area = QRectF(64, 48, WIDTH - 90, height - 100)
    _x_axis(
        p,
        area,
        0.0,
        1.0,
        [i / 5 for i in range(6)],
        "coverage (share of the items accepted)",
        "{:.0%}",
    )
    p.setFont(_font(9))
    for i in range(round(top_error / step) + 1):
        v = i * step
        y = area.bottom() - v / top_error * area.height()
        p.setPen(QPen(GRID, 1))
        p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
        p.setPen(INK)
        p.drawText(
            QRectF(area.left() - 52, y - 7, 46, 14),
            Qt.AlignmentFlag.AlignRight,
            f"{v:.0%}" if step >= 0.01 else f"{v:.1%}",
        )
    p.save()
    p.translate(12, area.center().y())
    p.rotate(-90)
    p.setFont(_font(10))
    p.drawText(QRectF(-80, -8, 160, 16), Qt.AlignmentFlag.AlignHCenter, "dev error")
    p.restore()

    def point(cov: float, err: float) -> QPointF:
        return QPointF(
            area.left() + cov * area.width(),
            area.bottom() - min(err, top_error) / top_error * area.height(),
        )

    for value, colour, style in (
        (target, QColor("#D55E00"), Qt.PenStyle.DashLine),
        (target / 2, MUTED, Qt.PenStyle.DotLine),
    ):
        p.setPen(QPen(colour, 1.5, style))
        p.drawLine(point(0, value), point(1, value))
    rule = contract.get("rule") or {}
    legend: list[tuple[str, QColor, str]] = []
    for i, (tier, points) in enumerate(curves.items()):
        colour = QColor(PALETTE[i % len(PALETTE)])
        legend.append((str(tier), colour, "line"))
        if not points:
            continue
        p.setPen(QPen(colour, 2))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPolyline(QPolygonF([point(pt["coverage"], pt["error"]) for pt in points]))
        chosen = rule.get(tier) if isinstance(rule, dict) else None
        if isinstance(chosen, int | float):
            at = [pt for pt in points if pt["threshold"] >= float(chosen) - 1e-12]
            if at:
                pt = at[-1]
                p.setPen(QPen(INK, 1))
                p.setBrush(colour)
                p.drawEllipse(point(pt["coverage"], pt["error"]), 5, 5)
                legend.append((f"{tier} rule t ≥ {float(chosen):.2f}", colour, "dot"))
    legend += [(f"target {target:.0%}", QColor("#D55E00"), "line"), ("half target", MUTED, "line")]
    _legend(p, legend, 26)
    p.end()
    return _png(image)


def contract_plots(contract: dict[str, Any]) -> list[bytes]:
    """The plots of one contract, in the order the PDF shows them."""
    kind = contract.get("kind")
    make = {
        "ppi": interval_plot,
        "selective_risk": coverage_plot,
        "distributional": distance_plot,
    }.get(str(kind))
    image = make(contract) if make else None
    return [image] if image is not None else []
