"""Read a file attachment back out of a PDF, without a PDF library (no Qt, no pypdf).

``accord verify`` must run anywhere the core runs, and pypdf is a test-only dependency,
so this is a small reader for the structure Accord writes (Qt's ``QPdfWriter.
addFileAttachment``) and for the same structure as common PDF rewriters keep it:

    N 0 obj << /F (name) /UF (name)? /EF << /F K 0 R >> /Type /Filespec >> endobj
    K 0 obj << /Filter /FlateDecode? /Length L | M 0 R >> stream ... endstream endobj

A file specification is found by its ``/EF`` entry, its name read from ``/UF`` or
``/F`` (PDF literal or hex strings; UTF-16BE with a byte-order mark, else PDFDocEncoding
read as Latin-1); the embedded stream is located through its object header (the last
definition wins, as in an incremental update), its length read directly or through an
indirect object, and inflated when ``/FlateDecode``.

Not supported (a clear :class:`~app.core.errors.InputError`, exit 2): objects packed in
compressed object streams (PDF 1.5), encrypted PDFs and filters other than Flate. Inflating
is capped at :data:`MAX_BYTES` so a hostile file cannot exhaust memory.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

from app.core.errors import InputError

MAX_BYTES = 256 * 1024 * 1024
_FILESPEC = re.compile(rb"/EF\s*<<\s*/F\s+(\d+)\s+(\d+)\s+R")
_OBJ_START = rb"(?<![0-9])%d\s+%d\s+obj\b"


def _object_body(data: bytes, number: int, generation: int) -> tuple[int, bytes]:
    """(offset after ``obj``, text up to ``stream`` or ``endobj``) of the last definition."""
    starts = list(re.finditer(_OBJ_START % (number, generation), data))
    if not starts:
        raise KeyError(number)
    start = starts[-1].end()
    ends = [i for i in (data.find(b"stream", start), data.find(b"endobj", start)) if i >= 0]
    end = min(ends) if ends else len(data)
    return start, data[start:end]


def _literal(raw: bytes) -> bytes:
    """Decode the body of a PDF literal string (escapes, octal codes, line continuations)."""
    out = bytearray()
    i = 0
    simple = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b",
              ord("f"): b"\f", ord("("): b"(", ord(")"): b")", ord("\\"): b"\\"}
    while i < len(raw):
        c = raw[i]
        if c != 0x5C or i + 1 >= len(raw):
            out.append(c)
            i += 1
            continue
        nxt = raw[i + 1]
        if nxt in simple:
            out += simple[nxt]
            i += 2
        elif 0x30 <= nxt <= 0x37:
            digits = re.match(rb"[0-7]{1,3}", raw[i + 1:i + 4])
            assert digits is not None
            out.append(int(digits.group(), 8) & 0xFF)
            i += 1 + len(digits.group())
        elif nxt in (0x0A, 0x0D):
            i += 2 + (1 if nxt == 0x0D and raw[i + 2:i + 3] == b"\n" else 0)
        else:
            out.append(nxt)
            i += 2
    return bytes(out)


def _string_after(body: bytes, key: bytes) -> str | None:
    """The text of the string value of ``key`` in a dictionary body, or ``None``."""
    match = re.search(re.escape(key) + rb"\s*(\(|<(?!<))", body)
    if match is None:
        return None
    i = match.end()
    if match.group(1) == b"<":
        end = body.find(b">", i)
        hexdigits = re.sub(rb"\s", b"", body[i:end])
        raw = bytes.fromhex((hexdigits + b"0" * (len(hexdigits) % 2)).decode("ascii"))
    else:
        depth, j = 1, i
        while j < len(body) and depth:
            if body[j] == 0x5C:
                j += 2
                continue
            depth += {0x28: 1, 0x29: -1}.get(body[j], 0)
            j += 1
        raw = _literal(body[i:j - 1])
    if raw.startswith(b"\xfe\xff"):
        return raw[2:].decode("utf-16-be", errors="replace")
    return raw.decode("latin-1")


def _stream(data: bytes, number: int, generation: int) -> bytes:
    start, head = _object_body(data, number, generation)
    length_match = re.search(rb"/Length\s+(\d+)(?:\s+(\d+)\s+R)?", head)
    keyword = data.find(b"stream", start)
    if keyword < 0 or length_match is None:
        raise InputError("the attachment's stream is malformed (no stream or no /Length)")
    begin = keyword + len(b"stream")
    begin += 2 if data[begin:begin + 2] == b"\r\n" else 1
    if length_match.group(2) is not None:
        _, length_body = _object_body(data, int(length_match.group(1)),
                                      int(length_match.group(2)))
        length = int(length_body.split()[0])
    else:
        length = int(length_match.group(1))
    raw = data[begin:begin + length]
    filters = re.search(rb"/Filter\s*(\[[^\]]*\]|/\w+)", head)
    names = re.findall(rb"/(\w+)", filters.group(1)) if filters else []
    for name in names:
        if name != b"FlateDecode":
            raise InputError(f"the attachment uses the /{name.decode()} filter; only "
                             "/FlateDecode is supported")
        inflater = zlib.decompressobj()
        raw = inflater.decompress(raw, MAX_BYTES)
        if inflater.unconsumed_tail:
            raise InputError(f"the attachment inflates beyond {MAX_BYTES} bytes")
    return raw


def attachments(data: bytes) -> dict[str, bytes]:
    """name → bytes of every attachment found (the last of a name wins)."""
    if not data.startswith(b"%PDF-"):
        raise InputError("not a PDF file (it does not start with %PDF-)")
    if re.search(rb"/Encrypt\b", data):
        raise InputError("the PDF is encrypted; Accord certificates never are")
    found: dict[str, bytes] = {}
    for match in _FILESPEC.finditer(data):
        # The enclosing object: the last "obj" header before the /EF entry.
        headers = list(re.finditer(rb"(?<![0-9])\d+\s+\d+\s+obj\b", data[:match.start()]))
        body = data[headers[-1].end() if headers else 0:data.find(b"endobj", match.end())]
        name = _string_after(body, b"/UF") or _string_after(body, b"/F") or ""
        try:
            found[name] = _stream(data, int(match.group(1)), int(match.group(2)))
        except (KeyError, ValueError, zlib.error) as exc:
            raise InputError(f"the attachment '{name}' cannot be read ({exc!r})") from exc
    return found


def read_attachment(path: Path, name: str) -> bytes:
    """The bytes of attachment ``name`` in the PDF at ``path``; a clear error otherwise."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror})", file=path) from exc
    try:
        found = attachments(data)
    except InputError as exc:
        raise InputError(exc.problem, file=path) from exc
    if name not in found:
        listed = ", ".join(sorted(found)) or "none"
        raise InputError(f"no attachment named '{name}' (attachments found: {listed}); "
                         "expected a certificate written by 'accord certificate'", file=path)
    return found[name]
