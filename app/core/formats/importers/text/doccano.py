"""doccano's JSONL export of a sequence-labeling project (plain JSON Lines, read with
:mod:`app.core.formats.reading.json_lines`) → a Potato project with one ``span`` scheme
(``accord import doccano``).

**Format** (doccano's exporter, ``backend/data_export``). Without collaborative
annotation the export is a zip with one ``<username>.jsonl`` per project member; each
line is an example: ``{"id": 17, "text": "...", <its meta keys>, "label": [[start,
end, "LABEL"], ...], "Comments": [...]}``, offsets end-exclusive characters of ``text``.
A project with relations writes ``"entities": [{"id", "label", "start_offset",
"end_offset"}]`` (and ``"relations"``) instead of ``label``; exports of doccano before
1.5 say ``labels`` for ``label``. All three are read.

**Items and who is who.** An example is an item, its id doccano's example ``id`` (the
same for every member of the project). Each SOURCE is one member's ``.jsonl`` (named by
``--annotator``, else by the file's stem: doccano names it after the user). The same
example must have the same text in every file.

**Choices where doccano leaves room:**

- doccano writes every example of the project into every member's file, also the ones
  that member never opened (unless the export was of approved examples only): a line with
  no span is read as that member's answer with nothing marked, which a note says.
- ``relations`` and ``Comments`` mark no span: skipped (relations counted).
- A line without ``id`` or ``text``, spans that are not ``[start, end, label]`` (or the
  ``entities`` objects), and offsets outside the text are errors naming the line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedSpan, ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.importers.text.spans import SpanCollector
from app.core.formats.reading.boundary import ANYWHERE
from app.core.formats.reading.json_lines import iter_json_lines

SPAN_KEYS = ("label", "labels", "entities")
LAYOUT = '[start, end, "LABEL"]'


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    names = annotator_names(sources, annotators)
    spans = SpanCollector("doccano", "doccano")
    relations = empty = 0
    for source, name in zip(sources, names, strict=True):
        if not source.is_file():
            raise InputError("expected one doccano .jsonl file per annotator (doccano's "
                             "export zip holds one <username>.jsonl per member: give each)",
                             file=source)
        for number, record in iter_json_lines(source, root=ANYWHERE):
            item, text, found = _example(record, source, number)
            answer = spans.item(name, item, text, source, line=number)
            for span in found:
                spans.add(answer, span, text, source, line=number)
            relations += len(record.get("relations") or [])
            empty += not found
    study = spans.build()
    if empty:
        study.notes.append(f"{empty} examples have no span in a member's file; doccano writes "
                           "every example into every member's file, so each is read as that "
                           "member's answer with nothing marked.")
    if relations:
        study.notes.append(f"{relations} relations were skipped: they mark no span.")
    return study


def _example(record: dict[str, Any], file: Path, line: int
             ) -> tuple[str, str, list[ImportedSpan]]:
    """(item id, text, spans) of one exported line."""
    ident, text = record.get("id"), record.get("text")
    if isinstance(ident, bool) or not isinstance(ident, int | str) or ident == "":
        raise InputError("expected the example's id (doccano writes it on every line)",
                         file=file, line=line, key="id")
    if not isinstance(text, str):
        raise InputError("expected the example's text: a string", file=file, line=line,
                         key="text")
    key = next((k for k in SPAN_KEYS if k in record), None)
    if key is None:
        raise InputError("expected the spans under 'label' (or 'labels', 'entities'): "
                         "doccano's sequence-labeling export", file=file, line=line)
    raw = record[key]
    if not isinstance(raw, list):
        raise InputError(f"expected a list of spans {LAYOUT}", file=file, line=line, key=key)
    return str(ident), text, [_span(s, file, line, f"{key}[{i}]") for i, s in enumerate(raw)]


def _span(raw: Any, file: Path, line: int, key: str) -> ImportedSpan:
    if isinstance(raw, dict):
        raw = [raw.get("start_offset"), raw.get("end_offset"), raw.get("label")]
    if not (isinstance(raw, list) and len(raw) == 3 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in raw[:2])
            and isinstance(raw[2], str)):
        raise InputError(f"expected a span {LAYOUT} (or {{\"start_offset\", \"end_offset\", "
                         f"\"label\"}}), found {raw!r}", file=file, line=line, key=key)
    return ImportedSpan(raw[0], raw[1], raw[2])
