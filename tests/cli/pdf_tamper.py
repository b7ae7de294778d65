"""An adversary's tools for certificate PDFs: each returns the bytes of a tampered copy.

Two ways of editing, as an adversary has them: in place, byte for byte, where the file
keeps every offset (the uncompressed metadata, the document information), and through
pypdf (``PdfWriter(clone_from=...)``, one clean revision with a right cross-reference
table), where a stream must be recompressed (the page contents) or objects added. Printed
text is edited in the content stream the way it is drawn: Qt shows each character as a
glyph id of a subset font (``<0012> Tj``), mapped to Unicode by the font's ToUnicode CMap,
so "90%" becomes "99%" by swapping the glyph ids, every position left as it was.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

import pypdf
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    NameObject,
    NumberObject,
    TextStringObject,
)

_RANGE = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(\[[^\]]*\]|<[0-9A-Fa-f]+>)")
_CHAR = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>")
_TOKEN = re.compile(rb"(/F\w+) [\d.]+ Tf|<([0-9A-Fa-f]{4})> Tj")


def _to_unicode(font: Any) -> dict[str, str]:
    """Unicode character → the font's 4-hex-digit glyph code."""
    cmap = font["/ToUnicode"].get_object().get_data()
    out: dict[str, str] = {}
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", cmap, re.S):
        for lo, _hi, target in _RANGE.findall(block):
            start = int(lo, 16)
            if target.startswith(b"["):
                for k, code in enumerate(re.findall(rb"<([0-9A-Fa-f]+)>", target)):
                    out.setdefault(chr(int(code, 16)), f"{start + k:04X}")
            else:
                first = int(target.strip(b"<>"), 16)
                for k in range(int(_hi, 16) - start + 1):
                    out.setdefault(chr(first + k), f"{start + k:04X}")
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", cmap, re.S):
        for code, uni in _CHAR.findall(block):
            out.setdefault(chr(int(uni, 16)), code.decode().upper())
    return out


def _writer(pdf: bytes) -> pypdf.PdfWriter:
    return pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(pdf)))


def _bytes(writer: pypdf.PdfWriter) -> bytes:
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def edit_text(pdf: bytes, page: int, old: str, new: str, occurrence: int = 0) -> bytes:
    """The PDF with ``old`` drawn as ``new`` on ``page`` (same number of characters or
    fewer, the missing ones dropped from the end; glyphs of the same font)."""
    writer = _writer(pdf)
    target = writer.pages[page]
    fonts = {str(k): _to_unicode(v.get_object()) for k, v in target["/Resources"]["/Font"].items()}
    contents = target.get_contents()
    assert contents is not None
    data = contents.get_data()
    glyphs: list[tuple[int, int, str, str]] = []  # start, end, font, character
    font = ""
    for match in _TOKEN.finditer(data):
        if match.group(1):
            font = match.group(1).decode()
            continue
        reverse = {v: k for k, v in fonts[font].items()}
        glyphs.append(
            (match.start(2), match.end(2), font, reverse.get(match.group(2).decode(), "?"))
        )
    text = "".join(g[3] for g in glyphs)
    if old not in text:
        # Qt's ToUnicode maps its space glyph to a tab; some spaces are only a move
        tabbed = old.replace(" ", "\t")
        old, new = (
            (tabbed, new.replace(" ", "\t"))
            if tabbed in text
            else (old.replace(" ", ""), new.replace(" ", ""))
        )
    at = -1
    for _ in range(occurrence + 1):
        at = text.index(old, at + 1)
    run = glyphs[at : at + len(old)]
    assert len({g[2] for g in run}) == 1, "the text spans two fonts"
    codes = fonts[run[0][2]]
    out = bytearray(data)
    for (start, end, _, _), char in reversed(
        list(zip(run, new.ljust(len(old), "\0"), strict=True))
    ):
        if char == "\0":
            # drop the glyph: its "<code> Tj" and the move before it stay harmless
            out[start - 1 : end + 4] = b""
        else:
            out[start:end] = codes[char].encode()
    contents.set_data(bytes(out))
    target.replace_contents(contents)
    return _bytes(writer)


def in_place(pdf: bytes, old: bytes, new: bytes, count: int = 1) -> bytes:
    """A hex editor's edit: ``old`` → ``new`` of the same length, every offset kept."""
    assert len(old) == len(new) and pdf.count(old) >= count
    return pdf.replace(old, new, count)


def with_writer(pdf: bytes, change: Callable[[pypdf.PdfWriter], None]) -> bytes:
    """The PDF rewritten by pypdf after ``change`` (one revision, a right table)."""
    writer = _writer(pdf)
    change(writer)
    return _bytes(writer)


def incremental(pdf: bytes, change: Callable[[pypdf.PdfWriter], None]) -> bytes:
    """The PDF with ``change`` appended as an incremental update (a second revision)."""
    writer = pypdf.PdfWriter(io.BytesIO(pdf), incremental=True)
    change(writer)
    return _bytes(writer)


def append_to_contents(pdf: bytes, page: int, operators: bytes) -> bytes:
    """Draw ``operators`` on top of ``page`` (a second content stream, as editors add)."""

    def change(writer: pypdf.PdfWriter) -> None:
        target = writer.pages[page]
        extra = DecodedStreamObject()
        extra.set_data(operators)
        contents = target.get_contents()
        assert contents is not None
        array = ArrayObject([writer._add_object(contents), writer._add_object(extra)])
        target[NameObject("/Contents")] = array

    return with_writer(pdf, change)


def free_text_note(rect: tuple[float, float, float, float], text: str) -> DictionaryObject:
    """A FreeText annotation: a viewer draws ``text`` in ``rect`` over the page."""
    return DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Annot"),
            NameObject("/Subtype"): NameObject("/FreeText"),
            NameObject("/Rect"): ArrayObject([FloatObject(v) for v in rect]),
            NameObject("/Contents"): TextStringObject(text),
            NameObject("/DA"): TextStringObject("/Helv 9 Tf 0 g"),
            NameObject("/F"): NumberObject(4),
        }
    )


def insert_before_xref(pdf: bytes, blob: bytes) -> bytes:
    """``blob`` inserted before the (classic) cross-reference table, the table's offset
    moved so the file stays valid: the objects the table points at are unchanged."""
    start = int(re.findall(rb"startxref\s+(\d+)", pdf)[-1])
    assert pdf[start : start + 4] == b"xref"
    moved = pdf[:start] + blob + pdf[start:]
    tail = moved.rindex(b"startxref")
    return moved[:tail] + re.sub(
        rb"startxref\s+\d+", f"startxref\n{start + len(blob)}".encode(), moved[tail:], count=1
    )
