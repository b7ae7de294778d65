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
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedScheme, ImportedSpan

FAMILY = "span"


def on_text(value: dict[str, Any]) -> bool:
    """Whether a ``labels`` value is a span of plain text (not of HyperText)."""
    return "startOffset" not in value and "xpath" not in value


def spans(value: dict[str, Any], labels: list[str], record: dict[str, Any], file: Path,
          where: str) -> list[ImportedSpan]:
    """The spans of one result (see the module)."""
    start, end = value.get("start"), value.get("end")
    if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool) \
            or isinstance(end, bool):
        raise InputError(f"expected character offsets start and end, found {start!r} and "
                         f"{end!r}", file=file, key=f"{where}.value")
    text = record.get("text")
    text = text if isinstance(text, str) else ""
    if not 0 <= start < end <= len(text):
        raise InputError(f"a span from character {start} to {end} of a data.text of "
                         f"{len(text)} characters; expected 0 <= start < end <= {len(text)}",
                         file=file, key=f"{where}.value")
    if "text" in value and value["text"] != text[start:end]:
        raise InputError(f"the span's text {value['text']!r} is not data.text[{start}:{end}] "
                         f"({text[start:end]!r}); expected offsets into the task's data.text",
                         file=file, key=f"{where}.value.text")
    if not labels:
        raise InputError("a text span without labels; expected its label names", file=file,
                         key=f"{where}.value.labels")
    return [ImportedSpan(start, end, label) for label in labels]


def scheme(name: str, labels: list[str]) -> ImportedScheme:
    """The span scheme of the ``labels`` control ``name``."""
    return ImportedScheme(name, "span", {"description": "Imported from Label Studio.",
                                         "labels": labels})
