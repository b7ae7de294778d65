"""What the span importers share: the items' texts, every annotator's spans checked
against them, and the study with one Potato ``span`` scheme.

**Choices where the formats leave room** (the same for brat, CoNLL and doccano):

- A span is end-exclusive character offsets into the item's text, counted in Python
  characters (Unicode code points: what brat's and doccano's Python servers count, and
  what a CoNLL text rebuilt here is indexed by). A span must have ``0 <= start < end <=
  len(text)``; anything else is an error naming the file and line. A zero-length span
  marks nothing, and none of these tools writes one.
- The same item must have the same text in every annotator's export; a different text is
  an error (the offsets would mean different characters).
- Two identical spans (same label, offsets and parts) of one annotator on one item are
  one span, as Potato keeps them (its stored spans are keyed by label and offsets):
  counted in a note.
- An item an annotator's export holds with no span is an answer with nothing marked
  (an empty list, which Potato counts as a saved item); an item absent from it is not
  annotated by that annotator.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from app.core.errors import InputError
from app.core.formats.importers.model import (
    ImportedItem,
    ImportedScheme,
    ImportedSpan,
    ImportedStudy,
)

SCHEME = "entities"
"""The one span scheme's name (NER studies mark entities)."""


class SpanCollector:
    """The items, texts and spans of one import (see the module)."""

    def __init__(self, format_name: str, tool: str) -> None:
        self.format = format_name
        self.tool = tool
        self.texts: dict[str, tuple[str, Path]] = {}
        """item → (its text, the file it was first read from)."""
        self.spans: dict[str, dict[str, list[ImportedSpan]]] = {}
        """annotator → item → spans, in the order read."""
        self.where: dict[tuple[str, str], Path] = {}
        self.labels: dict[str, None] = {}
        self.counts: Counter[str] = Counter()
        self.notes: list[str] = []

    def item(self, annotator: str, item: str, text: str, file: Path,
             line: int | None = None, key: str | None = None) -> list[ImportedSpan]:
        """Annotator ``annotator``'s (empty) answer on ``item``, whose text is ``text``
        in ``file``; an item given twice for one annotator, or with another text than
        another annotator's, is an error."""
        first = self.texts.setdefault(item, (text, file))
        if first[0] != text:
            raise InputError(f"item '{item}' has another text here than in {first[1]}; "
                             "expected the same text in every annotator's export",
                             file=file, line=line, key=key)
        if (annotator, item) in self.where:
            raise InputError(f"item '{item}' is already in {self.where[(annotator, item)]} "
                             f"for annotator '{annotator}'; expected each item once per "
                             "annotator", file=file, line=line, key=key)
        self.where[(annotator, item)] = file
        return self.spans.setdefault(annotator, {}).setdefault(item, [])

    def add(self, answer: list[ImportedSpan], span: ImportedSpan, text: str, file: Path,
            line: int | None = None, key: str | None = None) -> None:
        """``span`` added to ``answer`` once its offsets are checked against ``text``."""
        for start, end in ((span.start, span.end), *span.parts):
            if not 0 <= start < end <= len(text):
                raise InputError(f"a span from character {start} to {end} of a text of "
                                 f"{len(text)} characters; expected 0 <= start < end <= "
                                 f"{len(text)}", file=file, line=line, key=key)
        if not span.label:
            raise InputError("a span without a label; expected its label name", file=file,
                             line=line, key=key)
        if span in answer:
            self.counts["duplicates"] += 1
            return
        self.labels.setdefault(span.label)
        answer.append(span)

    def build(self) -> ImportedStudy:
        """The study: one ``span`` scheme with every label seen, one item per text."""
        if not self.labels:
            raise InputError(f"no span in any file; expected {self.tool}'s annotated spans")
        study = ImportedStudy(self.format)
        study.schemes.append(ImportedScheme(SCHEME, "span", {
            "description": f"Imported from {self.tool}.", "labels": list(self.labels)}))
        for item, (text, _) in self.texts.items():
            study.items[item] = ImportedItem(item, {"text": text})
        for annotator, mine in self.spans.items():
            study.answers[annotator] = {item: {SCHEME: spans} for item, spans in mine.items()}
        if self.counts["duplicates"]:
            study.notes.append(f"{self.counts['duplicates']} spans repeated another of the same "
                               "annotator, label and offsets on the same item; each is kept "
                               "once, as Potato keeps them.")
        study.notes.extend(self.notes)
        return study
