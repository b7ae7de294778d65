"""The PDF as a viewer reads it (pypdf), and the signs that it was changed after Accord wrote it.

A viewer follows the cross-reference table from the last ``startxref``; it never looks at an
object the table does not point at. So does this module: the file is parsed by pypdf
(strictly first: Accord's own files parse strictly), the attachments are the viewer's (the
``/EmbeddedFiles`` name tree and file-attachment annotations on the pages), and whatever a
viewer would not show is not trusted but reported:

- more than one revision (an incremental update appends objects and a new table: a viewer
  shows the new ones, the old ones stay in the file);
- bytes after the last ``%%EOF``;
- an object in the body that the table does not point at (an orphan: an earlier reader of
  ours took the last object of a number, a viewer takes the table's);
- a cross-reference entry that points where its object does not start;
- a file that parses only leniently (a table pypdf had to rebuild, a wrong ``/Length``);
- more than one attachment of the certificate's name.

An Accord certificate is one revision with none of these, so each is a *problem* (``verify``
exits 1), not bad input; a file that is not a PDF at all, encrypted or unreadable even
leniently is bad input (:class:`~app.core.errors.InputError`, exit 2).
"""

from __future__ import annotations

import io
import logging
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import pypdf
from pypdf.generic import DictionaryObject, IndirectObject, StreamObject

from app.core.errors import InputError

MAX_FILE_BYTES = 256 * 1024 * 1024
_EOF = re.compile(rb"startxref\s+\d+\s+%%EOF")
_HEADER = re.compile(rb"(?:^|(?<=[\r\n]))[ \t]*(\d+)[ \t\r\n]+(\d+)[ \t\r\n]+obj\b")
_OBJECT_AT = re.compile(rb"\s*(\d+)\s+(\d+)\s+obj\b")
_STREAM_START = re.compile(rb">>\s*stream(?:\r\n|\n|\r)")
# pypdf raises its own errors for malformed files, and Python's for some hostile ones.
READ_ERRORS = (
    pypdf.errors.PyPdfError,
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    IndexError,
    RecursionError,
    OverflowError,
    NotImplementedError,  # a filter pypdf does not know (a flipped byte in /FlateDecode)
    zlib.error,
)


@dataclass
class ReadPdf:
    """A parsed PDF, its bytes and the structural problems found in it."""

    data: bytes
    reader: pypdf.PdfReader
    problems: list[str] = field(default_factory=list)


def _quiet() -> logging.Logger:
    """pypdf logs what it repairs or skips, errors too; verify reports what matters as a
    sentence and keeps stderr to one line."""
    logger = logging.getLogger("pypdf")
    logger.setLevel(logging.CRITICAL + 1)
    return logger


def _open(data: bytes, strict: bool) -> pypdf.PdfReader:
    reader = pypdf.PdfReader(io.BytesIO(data), strict=strict)
    if reader.is_encrypted:
        raise InputError("the PDF is encrypted; Accord certificates never are")
    _ = reader.pages[0], reader.root_object
    return reader


def parse(data: bytes) -> ReadPdf:
    """The PDF parsed as a viewer would, with its structural problems (see the module)."""
    _quiet()
    if not data.startswith(b"%PDF-"):
        raise InputError("not a PDF file (it does not start with %PDF-)")
    problems: list[str] = []
    try:
        reader = _open(data, strict=True)
    except READ_ERRORS as strict_error:
        try:
            reader = _open(data, strict=False)
        except READ_ERRORS as exc:
            raise InputError(f"cannot be read as a PDF ({exc})") from exc
        problems.append(
            f"the PDF does not follow the PDF format exactly ({strict_error}); the certificates "
            "Accord writes do, so it was rewritten or edited by hand"
        )
    read = ReadPdf(data, reader, problems)
    read.problems += _revision_problems(read)
    return read


def read_pdf(path: Path) -> ReadPdf:
    """:func:`parse` of the file at ``path``; a clear error naming it otherwise."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(f"the file is {size:,} bytes; a certificate is far smaller", file=path)
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror})", file=path) from exc
    try:
        return parse(data)
    except InputError as exc:
        raise InputError(exc.problem, file=path) from exc


SHOWN = 5
"""Objects named in a sentence before "and N more": the named and the rest add up to the
count the sentence starts with."""


def _revision_problems(read: ReadPdf) -> list[str]:
    data = read.data
    out: list[str] = []
    ends = list(_EOF.finditer(data))
    prev = read.reader.trailer.get("/Prev")
    if len(ends) > 1 or prev is not None:
        count = max(len(ends), 2)
        out.append(
            f"the PDF has {count} revisions: it was changed after it was written (an "
            "incremental update; a viewer shows the last revision)"
        )
    if ends and data[ends[-1].end() :].strip():
        extra = len(data) - ends[-1].end()
        out.append(f"{extra:,} bytes follow the end of the PDF (%%EOF)")
    misplaced = _misplaced(read)
    if misplaced:
        named = ", ".join(f"object {n} at byte {o:,}" for n, o in misplaced[:SHOWN])
        rest = f" and {len(misplaced) - SHOWN} more" if len(misplaced) > SHOWN else ""
        out.append(
            f"the cross-reference table points {len(misplaced)} object"
            f"{'s' if len(misplaced) != 1 else ''} at bytes where they do not start "
            f"({named}{rest}): the file was edited by hand"
        )
    orphans = _orphans(read)
    if orphans:
        listed = ", ".join(f"{n} {g}" for n, g in orphans[:SHOWN])
        more = f" and {len(orphans) - SHOWN} more" if len(orphans) > SHOWN else ""
        out.append(
            f"the file holds {len(orphans)} object{'s' if len(orphans) != 1 else ''} that its "
            f"cross-reference table does not point at (object {listed}{more}): a viewer never "
            "shows them, so they were put there to be read by something else"
        )
    return out


def _misplaced(read: ReadPdf) -> list[tuple[int, int]]:
    """(number, offset) of the table's entries whose offset is not that object's header."""
    out: list[tuple[int, int]] = []
    for generation, table in read.reader.xref.items():
        for number, offset in table.items():
            head = _OBJECT_AT.match(read.data, int(offset))
            if head is None or (int(head.group(1)), int(head.group(2))) != (number, generation):
                out.append((int(number), int(offset)))
    return sorted(out)


def _stream_spans(read: ReadPdf, offsets: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte ranges of the stream data of the table's objects (headers inside don't count)."""
    spans: list[tuple[int, int]] = []
    for offset, (number, generation) in offsets.items():
        try:
            obj = read.reader.get_object(IndirectObject(number, generation, read.reader))
            if not isinstance(obj, StreamObject):
                continue
            start = _STREAM_START.search(read.data, offset)
            if start is None:
                continue
            length = obj.get("/Length")
            size = int(length.get_object()) if length is not None else len(obj._data)
        except READ_ERRORS:
            continue
        spans.append((start.end(), start.end() + max(size, 0)))
    return spans


def _orphans(read: ReadPdf) -> list[tuple[int, int]]:
    """Object headers in the body that the cross-reference table does not point at."""
    offsets: dict[int, tuple[int, int]] = {}
    for generation, table in read.reader.xref.items():
        for number, offset in table.items():
            offsets[int(offset)] = (int(number), int(generation))
    spans = _stream_spans(read, offsets)
    found: list[tuple[int, int]] = []
    for match in _HEADER.finditer(read.data):
        at = match.start(1)
        if at in offsets or any(a <= at < b for a, b in spans):
            continue
        found.append((int(match.group(1)), int(match.group(2))))
    return found


def _spec_name(spec: DictionaryObject) -> str:
    for key in ("/UF", "/F"):
        value = spec.get(key)
        if isinstance(value, str):
            return str(value)
    return ""


def _spec_data(spec: DictionaryObject) -> bytes | None:
    embedded = spec.get("/EF")
    if not isinstance(embedded, DictionaryObject):
        return None
    stream = (embedded.get("/UF") or embedded.get("/F") or DictionaryObject()).get_object()
    return stream.get_data() if isinstance(stream, StreamObject) else None


def annotation_attachments(reader: pypdf.PdfReader) -> list[tuple[str, bytes | None]]:
    """(name, bytes) of every file-attachment annotation on the pages (a viewer lists them)."""
    out: list[tuple[str, bytes | None]] = []
    for page in reader.pages:
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            if isinstance(annot, DictionaryObject) and annot.get("/Subtype") == "/FileAttachment":
                spec = annot.get("/FS")
                spec = spec.get_object() if spec is not None else None
                if isinstance(spec, DictionaryObject):
                    out.append((_spec_name(spec), _spec_data(spec)))
    return out


def attachment(read: ReadPdf, name: str) -> bytes:
    """The one attachment ``name`` a viewer lists; a problem is added when there are several
    (the first is returned so the rest of the check can still run), an error when none."""
    try:
        found = dict(read.reader.attachments)
        listed = list(found.get(name, []))
        listed += [data for n, data in annotation_attachments(read.reader) if n == name and data]
    except READ_ERRORS as exc:
        raise InputError(f"the attachment '{name}' cannot be read ({exc})") from exc
    if not listed:
        names = ", ".join(sorted(str(n) for n in found)) or "none"
        raise InputError(
            f"no attachment named '{name}' (attachments found: {names}); "
            "expected a certificate written by 'accord certificate'"
        )
    if len(listed) > 1:
        read.problems.append(
            f"the PDF has {len(listed)} attachments named '{name}' (Accord attaches one): "
            "viewers and readers may each pick a different one"
        )
    return listed[0]


def optional_attachment(read: ReadPdf, name: str) -> bytes | None:
    """Attachment ``name`` when the PDF has one, else ``None`` (duplicates are a problem)."""
    try:
        return attachment(read, name)
    except InputError as exc:
        if exc.problem.startswith("no attachment named"):
            return None
        raise
