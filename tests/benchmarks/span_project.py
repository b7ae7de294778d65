"""The span benchmark's study (``bench_span_metrics.make_study``: 10,000 documents × 3
annotators × 20 spans) written as a Potato project on disk, for ``bench_gui_stall.py
--spans``.

Written through Accord's span importers' writer (``app.core.formats.importers.writer``),
which stores the spans in the shape Potato 2.12.1's server saves what its span widget
posts (``tests/data/potato_server/spans`` holds what the server wrote):
``instance_id_to_span_to_value`` entries ``[{"schema", "name", "title", "start", "end",
"id"}, 1]``, one ``user_state.json`` per annotator, ``config.yaml`` with one ``span``
scheme over the study's four labels, ``data/items.jsonl``.

The generator gives offsets and lengths only; each document's text is made here (a
choice of this module): lowercase words of 1–9 letters separated by single spaces, laid
out with the same seed so the same folder comes out every time. Spans are not snapped to
words, as in the benchmark (a moved boundary can cut a word: the study stays the one
``bench_span_metrics`` scores).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # beside bench_span_metrics.py

from bench_span_metrics import LABELS, N_DOCS, SEED, make_study

from app.core.formats.importers.model import (
    ImportedItem,
    ImportedScheme,
    ImportedSpan,
    ImportedStudy,
)
from app.core.formats.importers.writer import write_project

SCHEME = "entities"
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _text(rng: random.Random, length: int) -> str:
    """Words and single spaces, exactly ``length`` characters long."""
    out: list[str] = []
    size = 0
    while size < length:
        word = "".join(rng.choices(LETTERS, k=rng.randint(1, 9)))
        out.append(word)
        size += len(word) + 1
    return " ".join(out)[:length]


def study(n_docs: int = N_DOCS) -> ImportedStudy:
    """The benchmark's study as an importer's result, ready for ``write_project``."""
    answers, lengths = make_study(n_docs)
    rng = random.Random(SEED + 1)
    items = {doc: ImportedItem(id=doc, record={"text": _text(rng, lengths[doc])})
             for doc in answers}
    by_annotator: dict[str, dict[str, dict[str, Any]]] = {}
    for doc, by in answers.items():
        for name, spans in by.items():
            by_annotator.setdefault(name, {})[doc] = {
                SCHEME: [ImportedSpan(start=s, end=e, label=label) for s, e, label in spans]}
    return ImportedStudy(
        format="bench_span_metrics",
        schemes=[ImportedScheme(name=SCHEME, annotation_type="span",
                                config={"description": "Mark the entities",
                                        "labels": list(LABELS)})],
        items=items, answers=by_annotator,
        task_name="Span benchmark study (10,000 documents x 3 annotators x 20 spans)")


def generate(project: Path, n_docs: int = N_DOCS) -> Path:
    """Write the study as the Potato project ``project`` (a new or empty folder)."""
    return write_project(study(n_docs), project)


if __name__ == "__main__":
    print(generate(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else N_DOCS))
