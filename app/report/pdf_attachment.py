"""Read a file attachment back out of a PDF the way a viewer does (pypdf, no Qt).

This was a hand-written reader that took the last object of the attachment's number; a
crafted file showed a viewer one attachment and it another (issue 16). It is now a thin
door to :mod:`app.report.verification.structure`: pypdf follows the cross-reference table,
the ``/EmbeddedFiles`` name tree and the file-attachment annotations, as viewers do, and the
structure checks say what a viewer would not show (revisions, orphan objects, duplicates).
"""

from __future__ import annotations

from pathlib import Path

from app.core.errors import InputError
from app.report.verification.structure import READ_ERRORS, attachment, parse, read_pdf


def attachments(data: bytes) -> dict[str, bytes]:
    """name → bytes of every attachment a viewer lists (the first of a repeated name)."""
    read = parse(data)
    try:
        names = list(read.reader.attachments)
    except READ_ERRORS as exc:
        raise InputError(f"the attachments cannot be read ({exc})") from exc
    return {name: attachment(read, name) for name in names}


def read_attachment(path: Path, name: str) -> bytes:
    """The bytes of attachment ``name`` in the PDF at ``path``; a clear error otherwise.
    (Structural problems are not raised here: ``accord verify`` reports them.)"""
    read = read_pdf(path)
    try:
        return attachment(read, name)
    except InputError as exc:
        raise InputError(exc.problem, file=path) from exc
