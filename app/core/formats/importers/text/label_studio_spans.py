"""Label Studio's ``labels`` on text → a Potato ``span`` scheme, for
:mod:`~app.core.formats.importers.label_studio` (whose one ``labels`` control on a
``<Text>`` becomes one span scheme of that control's name).

**Format.** A text span result is ``{"type": "labels", "from_name", "to_name", "value":
{"start", "end", "text", "labels": [...]}}``: ``start``/``end`` end-exclusive character
offsets into the task's ``data.text``, ``text`` the characters they cover. A span with
several labels is one span per label (Potato stores one label a span).

**Choices where Label Studio leaves room:**

- The offsets are checked against ``data.text`` (``0 <= start < end <= len(text)``, and
  ``text`` equal to the characters there when given); anything else is an error naming
  the result, since the span would be into another field or another text.
- ``labels`` on ``<HyperText>`` (offsets as XPath plus ``startOffset``/``endOffset``)
  and on ``<Paragraphs>`` (paragraph indices plus the same) are not character offsets
  into one text: skipped, counted in the importer's note.
- An annotation with no span on a task with text is an answer with nothing marked, as
  for images (:mod:`~app.core.formats.importers.label_studio`, "Empty answers").
- **Offsets in UTF-16 units.** Label Studio's editor measured offsets in JavaScript string
  units (UTF-16 code units) until its frontend stored code points (label-studio issues
  #1008 and #1347, fixed in 2022): in an older export every span after an emoji or other
  character outside the Basic Multilingual Plane is off by one per such character. Where
  the offsets read as code points do not cover the span's own ``text`` but read as UTF-16
  units they do, they are converted to code points and counted in the importer's note
  (``utf16``); where neither reading matches, the error names both.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedScheme, ImportedSpan

FAMILY = "span"


def on_text(value: dict[str, Any]) -> bool:
    """Whether a ``labels`` value is a span of plain text (not of HyperText)."""
    return "startOffset" not in value and "xpath" not in value


UTF16_NOTE = ("{n} spans had offsets in UTF-16 units (an older Label Studio export, "
               "text with emoji): converted to characters, checked against each span's text.")


def spans(value: dict[str, Any], labels: list[str], record: dict[str, Any], file: Path,
          where: str, counts: Counter[str] | None = None) -> list[ImportedSpan]:
    """The spans of one result (see the module); ``counts["utf16"]`` counts converted
    UTF-16 offsets."""
    start, end = value.get("start"), value.get("end")
    if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool) \
            or isinstance(end, bool):
        raise InputError(f"expected character offsets start and end, found {start!r} and "
                         f"{end!r}", file=file, key=f"{where}.value")
    text = record.get("text")
    text = text if isinstance(text, str) else ""
    in_range = 0 <= start < end <= len(text)
    if not in_range or ("text" in value and value["text"] != text[start:end]):
        converted = _from_utf16(text, start, end, value.get("text"))
        if converted is None:
            raise _mismatch(value, text, start, end, in_range, file, where)
        start, end = converted
        if counts is not None:
            counts["utf16"] += 1
    return [ImportedSpan(start, end, label) for label in _checked(labels, file, where)]


def _mismatch(value: dict[str, Any], text: str, start: int, end: int, in_range: bool,
              file: Path, where: str) -> InputError:
    if not in_range:
        return InputError(f"a span from character {start} to {end} of a data.text of "
                          f"{len(text)} characters; expected 0 <= start < end <= {len(text)}",
                          file=file, key=f"{where}.value")
    return InputError(f"the span's text {value['text']!r} is not data.text[{start}:{end}] "
                      f"({text[start:end]!r}), in characters or in UTF-16 units; expected "
                      "offsets into the task's data.text", file=file, key=f"{where}.value.text")


def _checked(labels: list[str], file: Path, where: str) -> list[str]:
    if not labels:
        raise InputError("a text span without labels; expected its label names", file=file,
                         key=f"{where}.value.labels")
    return labels


def _from_utf16(text: str, start: int, end: int, covered: object) -> tuple[int, int] | None:
    """``start``/``end`` as code points when, read as UTF-16 units, they cover exactly
    ``covered`` (see the module); None otherwise."""
    if not isinstance(covered, str) or text.isascii():
        return None
    units = text.encode("utf-16-le", "surrogatepass")
    if not 0 <= start < end <= len(units) // 2:
        return None
    try:
        before = units[:2 * start].decode("utf-16-le")
        inside = units[2 * start:2 * end].decode("utf-16-le")
    except UnicodeDecodeError:  # an offset inside a surrogate pair: not UTF-16 units
        return None
    if inside != covered:
        return None
    return len(before), len(before) + len(inside)


def scheme(name: str, labels: list[str]) -> ImportedScheme:
    """The span scheme of the ``labels`` control ``name``."""
    return ImportedScheme(name, "span", {"description": "Imported from Label Studio.",
                                         "labels": labels})
