"""The document's metadata against the re-rendering's: what a viewer's Properties dialog shows.

Compared always: the document information (title, creator, dates; not ``/Producer``, the Qt
version that wrote it), the XMP fields (title, creator, creator tool, the three dates, the
document id), the file identifier and what the catalogue and its name tree hold (an added
``/OpenAction``, ``/AcroForm`` or ``/JavaScript`` is something a viewer runs or shows).
When the drawing is compared (the same Qt), the whole XMP packet is too.
"""

from __future__ import annotations

import re
from typing import Any

import pypdf
from pypdf.generic import DictionaryObject

from app.report.verification.structure import READ_ERRORS

XMP_FIELDS = (
    "dc_title",
    "dc_creator",
    "xmp_creator_tool",
    "xmp_create_date",
    "xmp_modify_date",
    "xmp_metadata_date",
    "xmpmm_document_id",
)
_PRODUCER = re.compile(rb'pdf:Producer="[^"]*"')


def producer(reader: pypdf.PdfReader) -> str:
    """The ``/Producer`` of the document information ('' when none)."""
    try:
        info = reader.metadata
    except READ_ERRORS:
        return ""
    return str(info.get("/Producer", "")) if info else ""


def _info(reader: pypdf.PdfReader) -> dict[str, str]:
    try:
        info = reader.metadata
    except READ_ERRORS:
        return {"?": "unreadable"}
    return {str(k): str(v) for k, v in (info or {}).items() if k != "/Producer"}


def _xmp_packet(reader: pypdf.PdfReader) -> bytes:
    meta = reader.root_object.get("/Metadata")
    try:
        data = meta.get_object().get_data() if meta is not None else b""
    except READ_ERRORS:
        return b"unreadable"
    return _PRODUCER.sub(b"", data)


def _xmp(reader: pypdf.PdfReader) -> dict[str, str]:
    try:
        xmp = reader.xmp_metadata
    except READ_ERRORS:
        return {"?": "unreadable"}
    if xmp is None:
        return {}
    out: dict[str, str] = {}
    for name in XMP_FIELDS:
        try:
            value = getattr(xmp, name)
            if value is not None:
                out[name] = str(value)
        except READ_ERRORS:
            out[name] = "unreadable"
    return out


def _keys(obj: Any) -> list[str]:
    obj = obj.get_object() if obj is not None else None
    return sorted(str(k) for k in obj) if isinstance(obj, DictionaryObject) else []


def _catalogue(reader: pypdf.PdfReader) -> dict[str, list[str]]:
    root = reader.root_object
    return {"catalogue": _keys(root), "names": _keys(root.get("/Names"))}


def _identifier(reader: pypdf.PdfReader) -> str:
    ident = reader.trailer.get("/ID")
    return repr([bytes(x.original_bytes).hex() for x in ident.get_object()]) if ident else ""


def _shown(value: str | None) -> str:
    if value is None:
        return "absent"
    return f"“{value}”" if value else "empty"


def _dict_sentences(what: str, got: dict[str, str], want: dict[str, str]) -> list[str]:
    out = []
    for key in sorted(set(got) | set(want)):
        a, b = _shown(got.get(key)), _shown(want.get(key))
        if a != b:
            out.append(
                f"{what} {key.lstrip('/')}: {a} in the PDF, {b} as the attached certificate renders"
            )
    return out


def metadata_problems(
    reader: pypdf.PdfReader, expected: pypdf.PdfReader, whole_xmp: bool
) -> list[str]:
    """Sentences for every metadata difference (see the module)."""
    out = _dict_sentences("document information", _info(reader), _info(expected))
    out += _dict_sentences("XMP metadata", _xmp(reader), _xmp(expected))
    if whole_xmp and not out and _xmp_packet(reader) != _xmp_packet(expected):
        out.append(
            "XMP metadata: the packet differs from the one the attached certificate renders with"
        )
    got, want = _catalogue(reader), _catalogue(expected)
    for part in ("catalogue", "names"):
        extra = sorted(set(got[part]) - set(want[part]))
        gone = sorted(set(want[part]) - set(got[part]))
        if extra or gone:
            out.append(
                f"the document's {part} holds {', '.join(extra) or 'nothing more'} "
                f"and lacks {', '.join(gone) or 'nothing'} against the certificate's"
            )
    try:
        same_id = _identifier(reader) == _identifier(expected)
    except READ_ERRORS:
        same_id = False
    if not same_id:
        out.append("the file identifier (/ID) is not the one the certificate's hash gives")
    return out
