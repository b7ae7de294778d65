"""The certificate PDF: Qt's ``QPdfWriter`` and ``QTextDocument``, no browser, no network.

:func:`render_pdf` lays out the HTML of :mod:`app.report.certificate_html` as one
continuous column, breaks it into A4 pages where no table row, line or heading is cut
(:mod:`app.report.pagination`; a table continued on a new page repeats its header row),
draws a footer with the page number on each, sets the document metadata (title, creator
``Accord <version>``) and attaches the certificate data as ``accord-certificate.json``
(``QPdfWriter.addFileAttachment``, Qt ≥ 6.8). :func:`write_certificate_pdf` writes it
atomically (temporary file in the same folder, ``fsync``, ``os.replace``): an interrupted
export leaves no half-written PDF under the target name.

**No resource is ever loaded.** The plots are handed to the document as resources
before the HTML is set; :class:`GuardedDocument` refuses every other resource (a
``file:`` or ``http:`` image, a style sheet) and records what it refused. With the HTML
escaped at the source, this is the second guard.

**Determinism.** Qt stamps the PDF with the wall-clock time (``/CreationDate``,
``/ModDate`` and the XMP dates) and a random document id. The dates are rewritten to the
certificate's stated ``generated_at`` (same byte length, so the cross-reference offsets
stay right) and the id is derived from the content hash, so the same certificate gives
the same PDF bytes.

Choices: layout units are 1/96 inch (the writer's resolution is 96 dpi, so point sizes
in the HTML mean what they say); margins 17 mm; DejaVu Sans (bundled with most Linux
systems; Qt substitutes a sans font elsewhere); the footer shows the project name, the
first 16 hex digits of the content hash and "page i of n".
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QIODevice,
    QMarginsF,
    QPointF,
    QRectF,
    QSizeF,
    Qt,
    QUrl,
    QUuid,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
    QTextDocument,
)

from app.core.atomic import write_atomically
from app.core.certificate.build import ATTACHMENT_NAME
from app.report.certificate_html import certificate_html
from app.report.pagination import Page, analyse, paginate
from app.report.plots import SCALE, contract_plots

DPI = 96
MARGIN_X = 64.0
MARGIN_TOP = 60.0
MARGIN_BOTTOM = 76.0
FONT_FAMILY = "DejaVu Sans"
CLIP_INSET = 0.5


class GuardedDocument(QTextDocument):
    """A text document that loads nothing it was not given: every request is refused."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: list[str] = []

    def loadResource(self, kind: int, name: QUrl | str) -> Any:  # noqa: N802 (Qt override)
        # Called only for resources not added with addResource: refuse them all.
        self.refused.append(name.toString() if isinstance(name, QUrl) else str(name))
        return None


def text_font(points: float) -> QFont:
    """The certificate's font at ``points``, without ligatures: "ff" and "fi" stay two
    glyphs, so text copied or extracted from the PDF (a hash, a label, a path) reads
    exactly as written. (The footer's font had them: a hash with "ff" in its first 16
    digits lost a letter to anything reading the page's text.)"""
    font = QFont(FONT_FAMILY)
    font.setPointSizeF(points)
    font.setFeature(QFont.Tag("liga"), 0)
    return font


def build_document(cert: dict[str, Any]) -> GuardedDocument:
    """The laid-out document (plots added as resources, then the escaped HTML)."""
    doc = GuardedDocument()
    doc.setDefaultFont(text_font(9.5))
    doc.setDocumentMargin(0)
    plots: dict[str, list[tuple[str, int, int]]] = {}
    for i, (ident, contract) in enumerate((cert.get("contracts") or {}).items()):
        for j, png in enumerate(contract_plots(contract)):
            name = f"accord-plot-{i}-{j}.png"
            image = QImage.fromData(png)
            doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
            plots.setdefault(ident, []).append(
                (name, round(image.width() / SCALE), round(image.height() / SCALE))
            )
    doc.setHtml(certificate_html(cert, plots))
    return doc


def _writer(device: QIODevice, cert: dict[str, Any]) -> QPdfWriter:
    writer = QPdfWriter(device)
    writer.setPageLayout(
        QPageLayout(
            QPageSize(QPageSize.PageSizeId.A4),
            QPageLayout.Orientation.Portrait,
            QMarginsF(0, 0, 0, 0),
            QPageLayout.Unit.Millimeter,
        )
    )
    writer.setResolution(DPI)
    project = (cert.get("project") or {}).get("name", "")
    writer.setTitle(f"Accord certificate — {project}")
    writer.setCreator(f"Accord {cert.get('accord_version', '')}")
    digest = str(cert.get("content_hash") or "0" * 32)
    writer.setDocumentId(QUuid(str(uuid.UUID(hex=digest[:32]))))
    return writer


def _layout(doc: QTextDocument, writer: QPdfWriter) -> tuple[QSizeF, list[Page]]:
    """Lay the document out as one continuous page of the printable width, then choose
    the page breaks (:mod:`app.report.pagination`: never inside a row or a line)."""
    doc.documentLayout().setPaintDevice(writer)
    size = QSizeF(writer.width() - 2 * MARGIN_X, writer.height() - MARGIN_TOP - MARGIN_BOTTOM)
    doc.setPageSize(QSizeF(size.width(), -1))
    return size, paginate(analyse(doc), size.height())


def layout_pages(cert: dict[str, Any]) -> tuple[GuardedDocument, QSizeF, list[Page]]:
    """The document, the printable size and the pages, exactly as the PDF lays them out
    (for tests that check where rows and words fall)."""
    scratch = QBuffer()
    scratch.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = _writer(scratch, cert)
    doc = build_document(cert)
    size, pages = _layout(doc, writer)
    scratch.close()
    return doc, size, pages


def _strip(
    p: QPainter, doc: QTextDocument, top: float, bottom: float, at: float, width: float
) -> None:
    """Document ``top``…``bottom`` drawn at page height ``at`` below the top margin.

    The clip is half a unit inside the slice: Qt draws every line that touches the clip,
    and a line that starts exactly at the break belongs to the next page only (drawn
    clipped here, its text would be in this page's text too, twice in a copy-paste)."""
    p.save()
    p.translate(MARGIN_X, MARGIN_TOP + at - top)
    doc.drawContents(p, QRectF(0, top + CLIP_INSET, width, bottom - top - 2 * CLIP_INSET))
    p.restore()


def _paint_page(
    p: QPainter,
    doc: QTextDocument,
    pages: list[Page],
    index: int,
    size: QSizeF,
    page: QSizeF,
    cert: dict[str, Any],
) -> None:
    slice_ = pages[index]
    offset = 0.0
    if slice_.header is not None:
        _strip(p, doc, slice_.header.top, slice_.header.bottom, 0.0, size.width())
        offset = slice_.header.bottom - slice_.header.top
    _strip(p, doc, slice_.top, slice_.bottom, offset, size.width())
    count = len(pages)
    y = page.height() - MARGIN_BOTTOM + 26
    p.setPen(QPen(QColor("#c8ccd0"), 0.8))
    p.drawLine(QPointF(MARGIN_X, y), QPointF(page.width() - MARGIN_X, y))
    font = text_font(7.5)
    p.setFont(font)
    p.setPen(QColor("#57606a"))
    project = str((cert.get("project") or {}).get("name", ""))
    digest = str(cert.get("content_hash") or "")[:16]
    box = QRectF(MARGIN_X, y + 4, page.width() - 2 * MARGIN_X, 16)
    number = f"page {index + 1} of {count}"
    metrics = QFontMetricsF(font, p.device())
    room = box.width() - metrics.horizontalAdvance(number) - metrics.horizontalAdvance("    ")
    left = (
        f"Accord certificate · {project} · stated {cert.get('generated_at', '')} · sha256 {digest}…"
    )
    # a long study name is elided in the middle, never drawn under the page number
    p.drawText(
        box,
        Qt.AlignmentFlag.AlignLeft,
        metrics.elidedText(left, Qt.TextElideMode.ElideMiddle, room),
    )
    p.drawText(box, Qt.AlignmentFlag.AlignRight, number)


def _fix_dates(data: bytes, stated: str) -> bytes:
    """Qt's wall-clock dates → the stated time, keeping every byte offset."""
    match = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z", stated)
    if match is None:
        return data
    digits = "".join(match.groups()).encode("ascii")
    iso = stated[:-1].encode("ascii")

    def pdf_date(m: re.Match[bytes]) -> bytes:
        zone = m.group(2)
        fixed = b"Z" if zone == b"Z" else b"+00'00'"[: len(zone)]
        return b"D:" + digits + fixed

    def xmp_date(m: re.Match[bytes]) -> bytes:
        zone = m.group(2)
        return iso + (b"Z" if zone == b"Z" else b"+00:00")

    data = re.sub(rb"D:(\d{14})(Z|[+-]\d\d'\d\d'?)", pdf_date, data)
    return re.sub(rb"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(Z|[+-]\d\d:\d\d)", xmp_date, data)


def attachment_bytes(cert: dict[str, Any]) -> bytes:
    """The attached certificate: indented JSON in the certificate's own key order, so the
    data read back render the same pages (``accord verify`` renders them again; the pages
    list contracts in that order, sorted keys would reorder them). The content hash is
    of the canonical, sorted JSON and does not depend on this order."""
    return json.dumps(cert, indent=1, ensure_ascii=False, allow_nan=False).encode("utf-8")


def render_pdf(cert: dict[str, Any], extra: dict[str, bytes] | None = None) -> bytes:
    """The whole PDF as bytes (needs a QGuiApplication); ``extra`` are further attachments
    by name (the signature of ``accord certificate --sign``)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = _writer(buffer, cert)
    writer.addFileAttachment(
        ATTACHMENT_NAME, QByteArray(attachment_bytes(cert)), "application/json"
    )
    for name, content in (extra or {}).items():
        writer.addFileAttachment(name, QByteArray(content), "application/json")
    doc = build_document(cert)
    size, pages = _layout(doc, writer)
    page = QSizeF(writer.width(), writer.height())
    painter = QPainter(writer)
    try:
        for index in range(len(pages)):
            if index:
                writer.newPage()
            _paint_page(painter, doc, pages, index, size, page, cert)
    finally:
        painter.end()
    buffer.close()
    return _fix_dates(bytes(data.data()), str(cert.get("generated_at", "")))


def write_certificate_pdf(
    cert: dict[str, Any], path: Path, extra: dict[str, bytes] | None = None
) -> int:
    """Render and write atomically; returns the number of bytes written."""
    data = render_pdf(cert, extra)
    write_atomically(Path(path), data)
    return len(data)


def page_images(cert: dict[str, Any], pages: int | None = 1, dpi: float = 80) -> list[QImage]:
    """Pages of the PDF as images, laid out exactly as in the PDF (for previews and tests)."""
    scratch = QBuffer()
    scratch.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = _writer(scratch, cert)
    doc = build_document(cert)
    size, slices = _layout(doc, writer)
    page = QSizeF(writer.width(), writer.height())
    scale = dpi / DPI
    out: list[QImage] = []
    count = len(slices) if pages is None else min(pages, len(slices))
    for index in range(count):
        image = QImage(
            round(page.width() * scale), round(page.height() * scale), QImage.Format.Format_RGB32
        )
        image.fill(QColor("white"))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.scale(scale, scale)
        _paint_page(painter, doc, slices, index, size, page, cert)
        painter.end()
        out.append(image)
    scratch.close()
    return out
