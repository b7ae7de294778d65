"""brat standoff (own reader) → a Potato project with one ``span`` scheme
(``accord import brat``).

**Format** (brat's "standoff format" page). Each document is a ``.txt`` file (UTF-8)
and, beside it with the same base name, a ``.ann`` file of one annotation a line, its
fields separated by tabs. A text-bound annotation is ``T<n>\\t<type> <start>
<end>\\t<text>``: end-exclusive character offsets into the ``.txt``, counted in Unicode
characters from its first byte (brat reads the file without translating line ends, so a
``\\r`` counts, and so would a byte-order mark); a discontinuous one lists its fragments
as ``<start> <end>;<start> <end>``, and its text is the fragments' texts joined by a
space.

**Why our own reader.** The format is the two lines above; the brat readers on PyPI are
small one-person packages with few releases, none of which checks the offsets against the
text. Ours is strict: every malformed line is an error naming the file and line.

**Items and who is who.** A document is an item, its id the base name. Each SOURCE is
one annotator: a folder holding the ``.ann`` and ``.txt`` files (not recursive), or one
``.ann`` file; named by the ``--annotator`` in the same position, else by the folder's
name (or the file's stem). Items are matched across annotators by base name, and the
same document must have the same text in every folder.

**Choices where brat leaves room:**

- Every text-bound (``T``) annotation is a span labelled with its type, entity and event
  trigger alike (telling them apart needs the project's ``annotation.conf``); a note
  says so when the files hold events.
- A discontinuous span keeps its first fragment as its offsets and the others as
  Potato's ``additional_parts``; Potato's span metrics (and so Accord's) read the first
  fragment only, which a note says.
- The text field must equal the ``.txt``'s characters at the offsets (fragments joined by
  a space; brat itself splits a span at line breaks into fragments, so its text field
  never holds one); anything else is an error, since the offsets would be into another
  text.
- Relations (``R``), events (``E``), attributes (``A``/``M``), normalizations (``N``),
  equivalences (``*``) and notes (``#``) mark no span: skipped, counted in a note. Any
  other line is an error.
- A ``.ann`` with no span is an item seen with nothing marked; a ``.txt`` without a
  ``.ann`` is a document that annotator did not annotate (counted); a ``.ann`` without
  its ``.txt`` is an error.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedSpan, ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.importers.text.spans import SpanCollector
from app.core.formats.reading.boundary import ANYWHERE, read_bytes

OTHER = {"R": "relations", "E": "events", "A": "attributes", "M": "attributes",
         "N": "normalizations", "*": "equivalences", "#": "notes"}
"""brat's annotations that mark no span, by the first character of their id."""
FRAGMENT = re.compile(r"(\d+) (\d+)")
TEXT_BOUND = "T<n>\\t<type> <start> <end>\\t<text>"


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    names = annotator_names(sources, annotators)
    spans = SpanCollector("brat", "brat")
    other: Counter[str] = Counter()
    unannotated = 0
    for source, name in zip(sources, names, strict=True):
        for ann, txt in _documents(source):
            if ann is None:
                unannotated += 1
                continue
            text = _text(txt)
            answer = spans.item(name, ann.stem, text, ann)
            for number, span, kind in _annotations(ann, text):
                if span is None:
                    other[kind] += 1
                else:
                    spans.add(answer, span, text, ann, line=number)
                    spans.counts["discontinuous"] += bool(span.parts)
    study = spans.build()
    if other:
        study.notes.append("Annotations that mark no span were skipped: " + ", ".join(
            f"{count} {kind}" for kind, count in sorted(other.items())) + ".")
    if other["events"]:
        study.notes.append("Event triggers are text-bound annotations and are read as spans "
                           "with the entities (brat's files do not tell them apart).")
    if spans.counts["discontinuous"]:
        study.notes.append(f"{spans.counts['discontinuous']} discontinuous spans keep their "
                           "first fragment as offsets and the rest as Potato's "
                           "additional_parts; span agreement reads the first fragment only.")
    if unannotated:
        study.notes.append(f"{unannotated} .txt documents have no .ann beside them and count "
                           "as not annotated by that annotator.")
    return study


def _documents(source: Path) -> list[tuple[Path | None, Path]]:
    """(``.ann`` or None, ``.txt``) for each document of one SOURCE."""
    if source.is_file():
        if source.suffix.lower() != ".ann":
            raise InputError("expected a brat .ann file or a folder of .ann and .txt files",
                             file=source)
        return [(source, _txt_of(source))]
    files = sorted((p for p in source.iterdir() if p.is_file()), key=lambda p: p.name)
    anns = [p for p in files if p.suffix.lower() == ".ann"]
    if not anns:
        raise InputError("no brat .ann files in this folder; expected one .ann beside each "
                         "document's .txt", file=source)
    stems = {p.stem for p in anns}
    return [(ann, _txt_of(ann)) for ann in anns] + [
        (None, p) for p in files if p.suffix.lower() == ".txt" and p.stem not in stems]


def _txt_of(ann: Path) -> Path:
    for suffix in (".txt", ".TXT"):
        txt = ann.with_suffix(suffix)
        if txt.is_file():
            return txt
    raise InputError(f"no {ann.stem}.txt beside this .ann; expected brat's text file with "
                     "the same base name", file=ann)


def _text(path: Path) -> str:
    """The file's characters as brat counts them: UTF-8, line ends untouched."""
    try:
        return read_bytes(path, root=ANYWHERE).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"is not UTF-8 text (byte {exc.start}); expected brat's UTF-8 "
                         "document", file=path) from None


def _annotations(ann: Path, text: str) -> list[tuple[int, ImportedSpan | None, str]]:
    """(line number, span or None, kind) for each annotation line of ``ann``."""
    out: list[tuple[int, ImportedSpan | None, str]] = []
    for number, line in enumerate(_text(ann).split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        first = line[0]
        if first in OTHER:
            out.append((number, None, OTHER[first]))
            continue
        if first != "T":
            raise InputError(f"starts with '{first}'; expected a brat annotation (T, R, E, "
                             "A, M, N, * or #)", file=ann, line=number)
        out.append((number, _span(line, text, ann, number), "span"))
    return out


def _span(line: str, text: str, ann: Path, number: int) -> ImportedSpan:
    fields = line.split("\t")
    if len(fields) != 3 or " " not in fields[1]:
        raise InputError(f"expected a text-bound annotation {TEXT_BOUND}", file=ann,
                         line=number)
    label, offsets = fields[1].split(" ", 1)
    fragments = []
    for piece in offsets.split(";"):
        match = FRAGMENT.fullmatch(piece.strip())
        if match is None:
            raise InputError(f"the offsets '{offsets}' are not '<start> <end>' pairs "
                             f"separated by ';'; expected {TEXT_BOUND}", file=ann,
                             line=number)
        start, end = int(match[1]), int(match[2])
        if not 0 <= start < end <= len(text):
            raise InputError(f"a span from character {start} to {end} of a text of "
                             f"{len(text)} characters; expected 0 <= start < end <= "
                             f"{len(text)}", file=ann, line=number)
        fragments.append((start, end))
    marked = " ".join(text[s:e] for s, e in fragments)
    if fields[2] != marked:
        raise InputError(f"the text '{fields[2]}' is not the document's characters at "
                         f"{offsets} ('{marked}'); expected the text at the offsets",
                         file=ann, line=number)
    (start, end), *parts = fragments
    return ImportedSpan(start, end, label, tuple(parts))
