"""CoNLL 2003 BIO columns (own reader) → a Potato project with one ``span`` scheme
(``accord import conll``).

**Format** (the CoNLL-2003 shared task's data files, and the "CoNLL 2003" exports of
annotation tools). One token a line, its columns separated by spaces, the token first
and the named-entity tag last (the task's files: ``word POS chunk NER``; tools write
``word -X- _ NER``); a blank line ends a sentence; ``-DOCSTART-`` lines separate
documents. Tags are ``O``, ``B-<type>`` and ``I-<type>``.

**Why our own reader.** No well-kept parser reads the 2003 columns (``conllu`` and
``pyconll`` read CoNLL-U, the Universal Dependencies layout). Turning tags into
entities is conlleval's rule, which seqeval's ``get_entities`` also follows; seqeval
would bring scikit-learn into the app for those ten lines, so it stays a test oracle
(``tests/core/importers/test_import_conll.py`` decodes every fixture with it).

**Items and who is who.** A sentence is an item, its id its number in the file (1, 2,
...; ``-DOCSTART-`` lines are not sentences), its text the tokens joined by single
spaces (so offsets are into that text). Each SOURCE is one annotator's file (named by
``--annotator``, else by the file's stem), and sentences are matched across annotators
by number: each must have the same tokens in every file (else an error naming both).

**How tags become spans** (conlleval's reading): ``B-X`` begins an ``X`` entity; ``I-X``
continues an ``X`` entity, and after ``O`` or another type **begins** one (CoNLL 2003's
own files are IOB1, where ``I-`` begins entities and ``B-`` only separates two adjacent
ones of one type; in IOB2 files it is a missing ``B-``): such entities are counted in a
note. ``O`` ends an entity. Any other tag (``E-``, ``S-``, ``U-``, ``L-`` of BIOES/BILOU, a
type-less ``B``) is an error naming the line.

**Choices where the format leaves room:** every line of a file has the same number of
columns (at least 2) as its first token line, else an error naming the line; a sentence
whose tags are all ``O`` is an answer with nothing marked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedSpan, ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.importers.text.spans import SpanCollector
from app.core.formats.importers.timed_items import read_text

DOCSTART = "-DOCSTART-"
COLUMNS = re.compile(r"[ \t]+")
"""Columns are separated by spaces (the task's files) or tabs (some tools' exports)."""
TAGS = "O, B-<type> or I-<type>"


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    names = annotator_names(sources, annotators)
    spans = SpanCollector("conll", "CoNLL 2003 BIO columns")
    started_by_i = 0
    for source, name in zip(sources, names, strict=True):
        if not source.is_file():
            raise InputError("expected one CoNLL file per annotator (token first, BIO tag "
                             "last, a blank line after each sentence)", file=source)
        for number, (line, tokens, tags) in enumerate(_sentences(source), start=1):
            text = " ".join(tokens)
            answer = spans.item(name, str(number), text, source, line=line)
            starts = [0]
            for token in tokens:
                starts.append(starts[-1] + len(token) + 1)
            for first, last, label, by_i in bio_entities(tags, source, line):
                span = ImportedSpan(starts[first], starts[last + 1] - 1, label)
                spans.add(answer, span, text, source, line=line + first)
                started_by_i += by_i
    study = spans.build()
    if started_by_i:
        study.notes.append(f"{started_by_i} entities begin with I- (after O or another "
                           "type): read as conlleval reads them, each begins an entity (IOB1, "
                           "as CoNLL 2003's own files, or a missing B-).")
    return study


def bio_entities(tags: list[str], file: Path, line: int
                 ) -> Iterator[tuple[int, int, str, bool]]:
    """(first token, last token, type, begun by I-) of each entity in one sentence's
    tags, read as conlleval reads them (see the module); ``line`` is the first tag's."""
    current: tuple[int, str, bool] | None = None
    for i, tag in enumerate([*tags, "O"]):
        prefix, _, kind = tag.partition("-")
        if tag != "O" and (prefix not in ("B", "I") or not kind):
            raise InputError(f"the tag '{tag}' is not {TAGS}; expected BIO tags",
                             file=file, line=line + i)
        if current is not None and (prefix != "I" or kind != current[1]):
            yield current[0], i - 1, current[1], current[2]
            current = None
        if tag != "O" and current is None:
            current = (i, kind, prefix == "I")


def _sentences(path: Path) -> Iterator[tuple[int, list[str], list[str]]]:
    """(first line, tokens, tags) of each sentence of ``path``."""
    columns = 0
    first, tokens, tags = 0, list[str](), list[str]()
    lines = read_text(path).split("\n")  # line feeds only: a token may hold any other character
    for number, raw in enumerate([*lines, ""], start=1):
        fields = COLUMNS.split(raw.strip(" \t\r")) if raw.strip(" \t\r") else []
        if fields and fields[0] == DOCSTART:
            fields = []
        if not fields:
            if tokens:
                yield first, tokens, tags
            first, tokens, tags = 0, [], []
            continue
        columns = columns or len(fields)
        if len(fields) != columns or columns < 2:
            raise InputError(f"has {len(fields)} columns; expected {max(columns, 2)} as the "
                             "file's first token line (the token first, the BIO tag last)",
                             file=path, line=number)
        first = first or number
        tokens.append(fields[0])
        tags.append(fields[-1])
    if columns == 0:
        raise InputError("holds no token line; expected CoNLL 2003 columns (the token "
                         "first, the BIO tag last)", file=path)
