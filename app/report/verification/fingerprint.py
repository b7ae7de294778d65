"""A digest of a PDF object as drawn, independent of object numbers and compression.

Two files whose page draws the same content with the same fonts and images give equal
digests even when one was rewritten (pypdf renumbers objects, may recompress streams):
numbers by value (``1`` and ``1.0`` alike), dictionaries by sorted key, streams by their
decoded data and their dictionary without ``/Length``, ``/Filter`` and ``/DecodeParms``,
references by what they point to.
A font subset's tag (the ``ABCDEF+`` of ``/ABCDEF+DejaVuSans``, arbitrary: Qt picks a new
one in every process) is left out of names. ``/Parent`` is left out (it points back up the
page tree), so is anything nested deeper than :data:`MAX_DEPTH` (a hostile loop ends as a
marker, never a recursion error).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    FloatObject,
    IndirectObject,
    NameObject,
    NumberObject,
    StreamObject,
    TextStringObject,
)

MAX_DEPTH = 40
SKIPPED = frozenset({"/Parent", "/Length", "/Filter", "/DecodeParms", "/P"})
_SUBSET_TAG = re.compile(r"^/[A-Z]{6}\+")


def _feed(h: Any, obj: Any, depth: int, path: tuple[int, ...]) -> None:
    if depth > MAX_DEPTH:
        h.update(b"<deep>")
        return
    if isinstance(obj, IndirectObject):
        key = (obj.idnum, obj.generation)
        if hash(key) in path:
            h.update(b"<loop>")
            return
        path = (*path, hash(key))
        obj = obj.get_object()
    if isinstance(obj, StreamObject):
        h.update(b"stream:")
        h.update(hashlib.sha256(obj.get_data()).digest())
    if isinstance(obj, DictionaryObject):
        h.update(b"{")
        for key in sorted(k for k in obj if k not in SKIPPED):
            h.update(str(key).encode("utf-8", "replace") + b"=")
            _feed(h, obj.get(key), depth + 1, path)
        h.update(b"}")
    elif isinstance(obj, ArrayObject):
        h.update(b"[")
        for value in obj:
            _feed(h, value, depth + 1, path)
            h.update(b",")
        h.update(b"]")
    elif isinstance(obj, (FloatObject, NumberObject)):
        # 1 and 1.0 draw the same; a rewriter may write either
        h.update(b"number:" + format(float(obj), ".9g").encode("ascii"))
    elif isinstance(obj, TextStringObject):
        h.update(b"text:" + str(obj).encode("utf-8", "replace"))
    elif isinstance(obj, NameObject):
        h.update(b"name:" + _SUBSET_TAG.sub("/", str(obj)).encode("utf-8", "replace"))
    elif not isinstance(obj, StreamObject):
        h.update(type(obj).__name__.encode() + b":" + repr(obj).encode("utf-8", "replace"))


def digest(obj: Any) -> str:
    """SHA-256 of ``obj`` as drawn (see the module)."""
    h = hashlib.sha256()
    _feed(h, obj, 0, ())
    return h.hexdigest()
