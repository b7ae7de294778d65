"""Where the certificate's pages break: never inside a table row, a line or after a heading.

Qt's own pagination (``QTextDocument.setPageSize`` with a height) cuts wherever a page
ends: a table row of the agreement section split across two pages ("offensivenes" on
one, "s" on the next). So the certificate is laid out as one continuous page of the
printable width, and :func:`paginate` chooses the breaks itself:

- an **atom** is a span no break may cut: every paragraph (images are inline, so an
  image is inside its line; Qt draws a block whole and clips it, so a paragraph cut
  between lines would have its text on both pages of a copy-paste), every table row, a
  table's header row with its first body row, a paragraph that introduces a table with
  the table's first rows, and a heading with the opening of its section (the next few
  paragraphs and tables, up to :data:`OPENING` high);
- a page ends at the lowest boundary (the top of a line, a row or a block) that fits and
  cuts no atom; an explicit ``page-break-before`` starts a new page;
- a page that starts inside a table repeats the table's header row at its top;
- an atom taller than a page (a very long cell or paragraph) is the one case cut, at a
  line if it can be, else at the page's height: there is no other way to print it.

:class:`Analysis` is the geometry read from the laid-out document (document
coordinates, 1/96 inch); tests read it to check every row lies on one page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QTextBlock, QTextBlockFormat, QTextDocument, QTextTable

EPSILON = 0.5
OPENING = 220.0
"""A section's opening kept with its heading: up to this height (document units)."""
OPENING_UNITS = 4


@dataclass(frozen=True, slots=True)
class Span:
    top: float
    bottom: float


@dataclass(frozen=True, slots=True)
class Table:
    """A table's rows (``rows[0]`` is the header row when ``header``)."""

    rows: tuple[Span, ...]
    header: bool

    @property
    def span(self) -> Span:
        return Span(self.rows[0].top, self.rows[-1].bottom)


@dataclass(frozen=True, slots=True)
class Page:
    """Document ``top``…``bottom`` on one page, below the repeated ``header`` if any."""

    top: float
    bottom: float
    header: Span | None = None


@dataclass(slots=True)
class Analysis:
    height: float
    atoms: list[Span] = field(default_factory=list)
    boundaries: set[float] = field(default_factory=set)
    forced: set[float] = field(default_factory=set)
    tables: list[Table] = field(default_factory=list)


def _lines(doc: QTextDocument, block: QTextBlock) -> list[Span]:
    layout = block.layout()
    top = doc.documentLayout().blockBoundingRect(block).top()
    spans = []
    for i in range(layout.lineCount()):
        rect = layout.lineAt(i).rect()
        spans.append(Span(top + rect.top(), top + rect.bottom()))
    return spans or [Span(top, top)]


def _cell_blocks(table: QTextTable, row: int, column: int) -> list[QTextBlock]:
    cell = table.cellAt(row, column)
    block = cell.firstCursorPosition().block()
    last = cell.lastCursorPosition().block().blockNumber()
    out = []
    while block.isValid() and block.blockNumber() <= last:
        out.append(block)
        block = block.next()
    return out


def _table(doc: QTextDocument, table: QTextTable) -> Table:
    padding = table.format().cellPadding() + table.format().border()
    rows: list[Span] = []
    for r in range(table.rows()):
        lines = [
            s
            for c in range(table.columns())
            if table.cellAt(r, c).row() == r
            for b in _cell_blocks(table, r, c)
            for s in _lines(doc, b)
        ]
        rows.append(
            Span(min(s.top for s in lines) - padding, max(s.bottom for s in lines) + padding)
        )
    # rows touch: each row runs to the next one's top (the border between them)
    joined = [
        Span(rows[i].top, rows[i + 1].top if i + 1 < len(rows) else rows[i].bottom)
        for i in range(len(rows))
    ]
    return Table(tuple(joined), table.format().headerRowCount() > 0)


def _keeps(block: QTextBlock) -> bool:
    """A heading is kept with what follows it."""
    return block.blockFormat().headingLevel() > 0


def analyse(doc: QTextDocument) -> Analysis:
    """The atoms, boundaries, forced breaks and tables of a document laid out without
    a page height (``setPageSize(QSizeF(width, -1))``)."""
    out = Analysis(height=doc.size().height())
    units: list[tuple[list[Span], bool, bool]] = []  # (atoms, keep with next, is table)
    lines_of: list[list[Span]] = []
    it = doc.rootFrame().begin()
    while not it.atEnd():
        frame, block = it.currentFrame(), it.currentBlock()
        if isinstance(frame, QTextTable) and frame.rows():
            table = _table(doc, frame)
            out.tables.append(table)
            rows = list(table.rows)
            if table.header and len(rows) > 1:
                rows = [Span(rows[0].top, rows[1].bottom), *rows[2:]]
            units.append((rows, False, True))
            lines_of.append(rows)
        elif block.isValid():
            lines = _lines(doc, block)
            policy = block.blockFormat().pageBreakPolicy()
            if policy & QTextBlockFormat.PageBreakFlag.PageBreak_AlwaysBefore:
                out.forced.add(lines[0].top)
            if block.text().strip() or block.layout().lineCount() > 1:
                units.append(([Span(lines[0].top, lines[-1].bottom)], _keeps(block), False))
                lines_of.append(lines)
        it += 1
    for i, (atoms, keep, _) in enumerate(units):
        out.atoms.extend(atoms)
        out.boundaries.update(a.top for a in lines_of[i])
        out.boundaries.add(atoms[-1].bottom)
        following = units[i + 1] if i + 1 < len(units) else None
        if following is None:
            continue
        introduces = following[2] and not units[i][2] and len(lines_of[i]) <= 2
        if introduces:
            out.atoms.append(Span(atoms[-1].top, following[0][0].bottom))
        if keep:
            out.atoms.append(_opening(units, i))
    out.boundaries.add(out.height)
    return out


def _opening(units: list[tuple[list[Span], bool, bool]], i: int) -> Span:
    """A heading and the opening of its section: the units after it while they stay
    within :data:`OPENING` (at least the first atom of the next unit)."""
    top = units[i][0][0].top
    bottom = units[i + 1][0][0].bottom
    for atoms, keep, _ in units[i + 1 : i + 1 + OPENING_UNITS]:
        if keep or atoms[-1].bottom - top > OPENING:
            break
        bottom = atoms[-1].bottom
    return Span(top, bottom)


def _cuts(y: float, atoms: list[Span], height: float) -> bool:
    return any(
        a.top + EPSILON < y < a.bottom - EPSILON and a.bottom - a.top <= height for a in atoms
    )


def _header_at(y: float, tables: list[Table]) -> Span | None:
    """The header row to repeat on a page starting at ``y`` inside a table's body."""
    for t in tables:
        if t.header and len(t.rows) > 1 and t.rows[1].top - EPSILON < y < t.span.bottom:
            return t.rows[0]
    return None


def paginate(analysis: Analysis, page_height: float) -> list[Page]:
    """The pages, top to bottom: each as high as fits without cutting an atom."""
    pages: list[Page] = []
    top = 0.0
    boundaries = sorted(analysis.boundaries | analysis.forced)
    forced = sorted(analysis.forced)
    while top < analysis.height - EPSILON:
        header = _header_at(top, analysis.tables)
        room = page_height - (header.bottom - header.top if header else 0.0)
        limit = top + room
        hard = [f for f in forced if top + EPSILON < f <= limit]
        if hard:
            bottom = hard[0]
        elif limit >= analysis.height - EPSILON:
            bottom = analysis.height
        else:
            fits = [
                b
                for b in boundaries
                if top + EPSILON < b <= limit and not _cuts(b, analysis.atoms, room)
            ]
            bottom = fits[-1] if fits else limit
        pages.append(Page(top, bottom, header))
        top = bottom
    return pages or [Page(0.0, analysis.height)]
