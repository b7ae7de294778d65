"""An :class:`~app.core.formats.importers.model.ImportedStudy` written as a Potato-layout
project: ``config.yaml``, ``data/items.jsonl``, the media copied (or converted) under
``media/``, and ``annotation_output/<annotator>/user_state.json`` in Potato 2.x's shapes
(``formats.md``), so everything in Accord reads it with no special case and Potato itself
could open it.

The project is written into a temporary folder beside ``project`` and renamed at the end,
so a failure leaves nothing behind; an existing non-empty ``project`` is refused. The
sources are only read.

Stored answers, as Potato's browser forms save them: a radio choice is
``[{"schema", "name": label}, true]``; a likert value ``[{"schema", "name": "3"}, "3"]``;
a multiselect one such pair per chosen label; a media scheme one JSON string under the
label name ``_data`` (a track answer too: Potato's tracking widget saves its whole state
there); a trace or temporal-grounding scheme one JSON string under the
scheme's own name. A span scheme's spans go to ``instance_id_to_span_to_value`` as
Potato's server saves what its span widget posts (``static/span-core.js``: value 1 and
the id ``<schema>_<label>_<start>_<end>``; ``tests/data/potato_server/spans`` holds what
the server wrote): ``[{"schema", "name": label, "title": label, "start", "end", "id",
["additional_parts"]}, 1]``, a discontinuous span's further fragments appended to its id
to keep it unique; an item an annotator saw and marked nothing on is an empty list there
(Potato's ``has_annotated``).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from app.core.errors import InputError
from app.core.formats.importers.model import (
    CHOICE_TYPES,
    DATA_TYPES,
    OWN_NAME_TYPES,
    SCALE_TYPES,
    SET_TYPES,
    SPAN_TYPES,
    ImportedSpan,
    ImportedStudy,
)

DATA_FILE = "data/items.jsonl"
MEDIA_TYPES = frozenset({"image", "audio", "video"})
"""Record keys that name their own ``instance_display`` field type."""
OUTPUT_DIR = "annotation_output"


def stored_pairs(annotation_type: str, scheme: str, value: Any) -> list[list[Any]]:
    """One answer as ``instance_id_to_label_to_value`` entries (see the module)."""
    if annotation_type in CHOICE_TYPES:
        return [[{"schema": scheme, "name": str(value)}, True]]
    if annotation_type in SCALE_TYPES:
        return [[{"schema": scheme, "name": str(value)}, str(value)]]
    if annotation_type in SET_TYPES:
        return [[{"schema": scheme, "name": str(v)}, True] for v in value]
    text = json.dumps(value, separators=(",", ":"))
    if annotation_type in DATA_TYPES:
        return [[{"schema": scheme, "name": "_data"}, text]]
    if annotation_type in OWN_NAME_TYPES:
        return [[{"schema": scheme, "name": scheme}, text]]
    raise ValueError(f"no stored shape for annotation type {annotation_type!r}")


def span_pairs(scheme: str, spans: list[ImportedSpan], text: str) -> list[list[Any]]:
    """One span answer as ``instance_id_to_span_to_value`` entries (see the module)."""
    out: list[list[Any]] = []
    for s in dict.fromkeys(spans):  # Potato keeps one of identical spans
        span: dict[str, Any] = {"schema": scheme, "name": s.label, "title": s.label,
                                "start": s.start, "end": s.end,
                                "id": f"{scheme}_{s.label}_{s.start}_{s.end}"
                                + "".join(f"_{a}_{b}" for a, b in s.parts)}
        if s.parts:
            span["additional_parts"] = [{"start": a, "end": b, "text": text[a:b]}
                                        for a, b in s.parts]
        out.append([span, 1])
    return out


def user_state(name: str, study: ImportedStudy) -> dict[str, Any]:
    """One annotator's ``user_state.json`` (the keys Potato 2.12 writes)."""
    types = {s.name: s.annotation_type for s in study.schemes}
    mine = study.answers.get(name, {})
    labels = {item: [pair for scheme, value in answers.items()
                     if types[scheme] not in SPAN_TYPES
                     for pair in stored_pairs(types[scheme], scheme, value)]
              for item, answers in mine.items()
              if not answers or any(types[scheme] not in SPAN_TYPES for scheme in answers)}
    spans = {item: [pair for scheme, value in answers.items() if types[scheme] in SPAN_TYPES
                    for pair in span_pairs(scheme, value, _text(study, item))]
             for item, answers in mine.items()
             if any(types[scheme] in SPAN_TYPES for scheme in answers)}
    return {
        "user_id": name, "instance_id_ordering": list(mine),
        "current_instance_index": max(len(mine) - 1, 0),
        "current_phase_and_page": ["annotation", None], "completed_phase_and_pages": [],
        "max_assignments": -1, "instance_id_to_behavioral_data": {},
        "instance_id_to_label_to_value": labels, "instance_id_to_span_to_value": spans,
        "phase_to_page_to_label_to_value": {}, "phase_to_page_to_span_to_value": {},
    }


def _text(study: ImportedStudy, item: str) -> str:
    text = study.items[item].record.get(study.text_key)
    return text if isinstance(text, str) else ""


def config(study: ImportedStudy, name: str) -> dict[str, Any]:
    properties: dict[str, Any] = {"id_key": "id", "text_key": study.text_key}
    out: dict[str, Any] = {
        "annotation_task_name": study.task_name or name,
        "task_dir": ".",
        "data_files": [DATA_FILE],
        "item_properties": properties,
        "output_annotation_dir": f"{OUTPUT_DIR}/",
        "annotation_schemes": [{"annotation_type": s.annotation_type, "name": s.name,
                                **s.config} for s in study.schemes],
    }
    if study.media_keys:  # shown beside every scheme, as Potato's instance_display does
        out["instance_display"] = {"fields": [
            {"key": key, "type": key if key in MEDIA_TYPES else "image"}
            for key in study.media_keys]}
    return out


@contextmanager
def _staging(project: Path) -> Iterator[Path]:
    """A temporary folder beside ``project`` that becomes it, or disappears on failure."""
    if project.exists() and (not project.is_dir() or any(project.iterdir())):
        raise InputError("expected a new or empty folder for the project; it exists and is "
                         "not empty", file=project)
    project.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{project.name}.import-", dir=project.parent))
    try:
        yield stage
        if project.exists():
            project.rmdir()
        stage.replace(project)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def write_project(study: ImportedStudy, project: Path) -> Path:
    """Write ``study`` as the Potato project ``project`` (see the module)."""
    with _staging(project) as stage:
        (stage / "config.yaml").write_text(
            yaml.safe_dump(config(study, project.name), sort_keys=False, allow_unicode=True),
            encoding="utf-8")
        (stage / "data").mkdir()
        with (stage / DATA_FILE).open("w", encoding="utf-8") as handle:
            for item in study.items.values():
                handle.write(json.dumps({"id": item.id, **item.record}, ensure_ascii=False)
                             + "\n")
        for item in study.items.values():
            for relative, source in item.media.items():
                target = stage / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
            for relative, make in item.made.items():
                target = stage / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                make(target)
        for name in study.answers:
            folder = stage / OUTPUT_DIR / name
            folder.mkdir(parents=True)
            (folder / "user_state.json").write_text(json.dumps(user_state(name, study),
                                                               indent=2), encoding="utf-8")
    return project
