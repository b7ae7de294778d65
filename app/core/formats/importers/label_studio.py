"""Label Studio's JSON export, and its JSON-MIN export through :mod:`.label_studio_min`
(``accord import labelstudio``).

**Format.** A list of tasks ``{id, data, annotations: [...], predictions: [...]}`` (exports
before Label Studio 1.0 say ``completions``). ``data`` holds the media (an image or audio URL or
path) and text. Each annotation has ``completed_by`` and ``result``, a list of results ``{id,
from_name, to_name, type, value, original_width, original_height}``.

**Who is who.** One annotation per annotator: ``completed_by`` is a user id (an int), an e-mail,
or an expanded user ``{id, email, ...}``. The name is the e-mail when one is known for that
user anywhere in the export, else ``user_<id>``. ``--annotator`` is refused: the export says
who annotated. ``predictions`` are a model, never an annotator: they are skipped and counted
in a note; so are cancelled annotations (``was_cancelled``). When one annotator has two
annotations of a task, the last updated one is kept (counted).

**Items.** One per task, its id the task id as text. When several export files are given and
every task has a media file whose name is unique within its file, items are matched by that
file name instead (Label Studio's ``8f3c2a1b-`` upload prefix removed), since separate
projects number their tasks separately; a note says so.

**Schemes and units.** One scheme per control (``from_name``):

- ``rectanglelabels``, ``polygonlabels``, ``ellipselabels``, ``keypointlabels``, ``brushlabels``
  (and the label-less ``rectangle``... tools): one ``image_annotation`` scheme. Coordinates are
  **percent** of ``original_width``/``original_height``, converted in
  :mod:`~app.core.formats.importers.label_studio_rle` (with the brush RLE of the RGBA image,
  alpha = mask): a rotated rectangle becomes the polygon of its corners (Potato's boxes are not
  rotated), a keypoint a ``landmark``. A shape with several labels keeps the first (counted).
- ``choices`` → ``radio``; → ``multiselect`` when any answer holds several values (the export
  does not carry ``choice="multiple"``). A ``choices`` result sharing its id with a region is
  that region's attribute: skipped (counted).
- ``rating`` → ``likert`` of size ``max(5, highest rating)`` (the export does not carry
  ``maxRating``; 5 is Label Studio's default).
- ``labels`` on audio (``start``/``end`` in seconds; start = end is an instant) →
  ``audio_annotation`` segments, one per label; on text (character offsets into ``data.text``) →
  a ``span`` scheme (:mod:`.text.label_studio_spans`); on HyperText, and every other result
  type, skipped (counted).

**Empty answers.** An annotation with no result for an image (audio, span) control is an empty
answer for it when the task has an image (audio, text: always).

**Media.** Label Studio does not copy media into the export. ``data.image`` such as
``/data/upload/1/abc.png`` or ``/data/local-files/?d=dir/abc.png`` is resolved to a file beside
the export with that name (:mod:`~app.core.formats.importers.image_media`); a missing one
keeps the item, with a note. ``width``/``height`` come from the results.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.importers import image_media as im
from app.core.formats.importers import label_studio_min as lsm
from app.core.formats.importers.label_studio_rle import number, region_shape
from app.core.formats.importers.model import ImportedScheme, ImportedStudy
from app.core.formats.importers.text import label_studio_spans as lss
from app.core.formats.reading.boundary import ANYWHERE
from app.core.formats.reading.json_file import read_json

IMAGE_TYPES = frozenset({"rectanglelabels", "rectangle", "polygonlabels", "polygon",
                         "ellipselabels", "ellipse", "keypointlabels", "keypoint",
                         "brushlabels", "brush"})
IMAGE_EXT = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp")
AUDIO_EXT = (".wav", ".mp3", ".flac", ".ogg", ".m4a", ".aac", ".opus")
UNSAFE_NAME = re.compile(r'[\\/:*?"<>|\s]+')
EMPTY = {"image": "image", lss.FAMILY: "text"}  # a family → its "Empty answers" record key
NOTES = {
    "predictions": "{n} predictions were skipped: they are a model's output, not an "
                   "annotator's.",
    "cancelled": "{n} cancelled (skipped) annotations were left out.",
    "duplicates": "{n} times an annotator had two annotations of one task; kept the latest.",
    "rotated": "{n} rotated rectangles became polygons of their corners (Potato's boxes are "
               "not rotated).",
    "several labels": "{n} regions had several labels; each keeps its first (a Potato shape "
                      "has one label).",
    "empty masks": "{n} brush results paint no pixel and were left out.",
    "image rotation": "{n} results were drawn on a rotated image (image_rotation); their "
                      "coordinates are kept as recorded.",
    "utf16": lss.UTF16_NOTE,
}


@dataclass
class _Control:
    family: str
    """image, choices, rating, audio or span"""
    labels: dict[str, None] = field(default_factory=dict)
    shapes: set[str] = field(default_factory=set)
    multiple: bool = False
    top: int = 0


@dataclass
class _Task:
    raw: dict[str, Any]
    file: Path
    where: str
    image: str | None
    audio: str | None


class _Reader:
    def __init__(self) -> None:
        self.images = im.ImageStudy("labelstudio")
        self.controls: dict[str, _Control] = {}
        self.counts: Counter[str] = Counter()
        self.skipped: Counter[str] = Counter()
        self.emails: dict[int, str] = {}
        self.values: dict[str, dict[str, dict[str, list[Any]]]] = {}
        self.seen: dict[tuple[str, str], str] = {}

    def who(self, by: Any, task: _Task, key: str) -> str:
        if isinstance(by, dict):
            email, ident = by.get("email"), by.get("id")
            if isinstance(email, str) and email.strip():
                return _folder_name(email)
            by = ident
        if isinstance(by, int) and not isinstance(by, bool):
            return self.emails.get(by) or f"user_{by}"
        if isinstance(by, str) and by.strip():
            return _folder_name(by)
        raise InputError("expected completed_by: the annotator's user id, e-mail or user "
                         "object", file=task.file, key=f"{key}.completed_by")

    def learn_emails(self, task: dict[str, Any]) -> None:
        for ann in _annotations(task):
            by = ann.get("completed_by") if isinstance(ann, dict) else None
            if isinstance(by, dict) and isinstance(by.get("id"), int) and \
                    isinstance(by.get("email"), str) and by["email"].strip():
                self.emails.setdefault(by["id"], _folder_name(by["email"]))

    def task(self, item_id: str, task: _Task) -> None:
        data = task.raw["data"]
        text = data.get("text") if isinstance(data.get("text"), str) else None
        item = self.images.add_item(item_id, task.image, task.file.parent, None, text=text,
                                    upload_prefix=True,
                                    extra={"label_studio_task": task.raw.get("id")})
        if task.audio and "audio" not in item.record:
            self.images.attach(item, "audio", task.audio, task.file.parent,
                               upload_prefix=True, under="audio")
        self.counts["predictions"] += len(task.raw.get("predictions") or [])
        for a, ann in enumerate(_annotations(task.raw)):
            key = f"{task.where}.annotations[{a}]"
            if not isinstance(ann, dict):
                raise InputError("expected an annotation object", file=task.file, key=key)
            if ann.get("was_cancelled"):
                self.counts["cancelled"] += 1
                continue
            name = self.who(ann.get("completed_by"), task, key)
            stamp = str(ann.get("updated_at") or ann.get("created_at") or "")
            if (name, item_id) in self.seen:
                self.counts["duplicates"] += 1
                if stamp < self.seen[(name, item_id)]:
                    continue
            self.seen[(name, item_id)] = stamp
            self.values.setdefault(name, {})[item_id] = self.results(ann, task, key, item)

    def results(self, ann: dict[str, Any], task: _Task, key: str, item: Any
                ) -> dict[str, list[Any]]:
        results = ann.get("result") or []
        if not isinstance(results, list):
            raise InputError("expected a list of results", file=task.file, key=f"{key}.result")
        regions = {r.get("id") for r in results if isinstance(r, dict)
                   and str(r.get("type")) in IMAGE_TYPES and r.get("id") is not None}
        out: dict[str, list[Any]] = {}
        for r, res in enumerate(results):
            where = f"{key}.result[{r}]"
            if not isinstance(res, dict) or not isinstance(res.get("value"), dict):
                if isinstance(res, dict) and res.get("type") == "relation":
                    self.skipped["relation"] += 1
                    continue
                raise InputError("expected a result with a value object", file=task.file,
                                 key=where)
            kind, value = str(res.get("type", "")), res["value"]
            family = _family(kind, value)
            if family is None or (family in ("choices", "rating")
                                  and res.get("id") in regions):
                self.skipped[f"per-region {kind}" if family else
                             "labels (HyperText, Paragraphs)" if kind == "labels" else kind] += 1
                continue
            name = str(res.get("from_name", kind))
            control = self.controls.setdefault(name, _Control(family))
            if control.family != family:
                self.skipped[kind] += 1
                continue
            parsed = self.parse(family, kind, res, value, control, task.file, where, item)
            if parsed is not None:
                out.setdefault(name, []).extend(parsed)
        return out

    def parse(self, family: str, kind: str, res: dict[str, Any], value: dict[str, Any],
              control: _Control, file: Path, where: str, item: Any) -> list[Any] | None:
        if family == "choices":
            choices = value.get("choices")
            if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
                raise InputError("expected choices: a list of option names", file=file,
                                 key=f"{where}.value.choices")
            control.labels.update(dict.fromkeys(choices))
            control.multiple |= len(choices) > 1
            return list(choices)
        if family == "rating":
            rating = value.get("rating")
            if not isinstance(rating, int) or isinstance(rating, bool) or rating < 1:
                raise InputError(f"expected a rating of 1 or more, found {rating!r}", file=file,
                                 key=f"{where}.value.rating")
            control.top = max(control.top, rating)
            return [str(rating)]
        labels = _labels(value, kind)
        if len(labels) > 1 and family == "image":
            self.counts["several labels"] += 1
            labels = labels[:1]
        control.labels.update(dict.fromkeys(labels or [""]))
        if family == lss.FAMILY:
            return lss.spans(value, labels, item.record, file, where, self.counts)
        if family == "audio":
            start, end = (number(value.get(k), file, f"{where}.value.{k}") for k in
                          ("start", "end"))
            if start < 0 or end < start:
                raise InputError(f"a segment from {start} s to {end} s; expected 0 <= start "
                                 "<= end", file=file, key=f"{where}.value")
            return [(start, end, label) for label in labels or [""]]
        size = _size(res, file, where)
        if size is not None and "width" not in item.record:
            item.record["width"], item.record["height"] = size
        if value.get("image_rotation") or res.get("image_rotation"):
            self.counts["image rotation"] += 1
        label = labels[0] if labels else ""
        shape = region_shape(value, label, self.images.color(label), size, self.counts,
                             file, where)
        if shape is None:
            return []
        control.shapes.add(shape["type"])
        return [shape]

    def finish(self) -> ImportedStudy:
        study = self.images.study
        for name, c in self.controls.items():
            study.schemes.append(_scheme(name, c, self.images))
        kinds = {s.name: s.annotation_type for s in study.schemes}
        for annotator, items in self.values.items():
            for item_id, by in items.items():
                record = study.items[item_id].record
                answers: dict[str, Any] = {}
                for name, c in self.controls.items():
                    got = by.get(name)
                    if c.family in EMPTY and (got or EMPTY[c.family] in record):
                        answers[name] = list(got or [])
                    elif c.family == "audio" and (got or "audio" in record):
                        answers[name] = {"segments": [
                            {"id": f"segment_{i + 1}", "start_time": s, "end_time": e,
                             "label": lab} for i, (s, e, lab) in enumerate(got or [])]}
                    elif got:
                        answers[name] = got if kinds[name] == "multiselect" else got[-1]
                study.answers.setdefault(annotator, {})[item_id] = answers
        study.notes.extend(self.notes())
        return self.images.finish("by file name in the export's folder and its images/, "
                                  "media/ and data/")

    def notes(self) -> list[str]:
        out = im.counted(self.counts, NOTES)
        out += [f"{count} '{kind}' results were skipped: Accord imports image regions, "
                "brushes, choices, ratings, audio segments and text spans."
                for kind, count in sorted(self.skipped.items())]
        for name, c in self.controls.items():
            if c.family == "rating":
                out.append(f"'{name}': the export does not carry maxRating; the scale is "
                           f"1..{max(5, c.top)}.")
            if c.family == "choices" and c.multiple:
                out.append(f"'{name}' is a multiselect: some answers hold several choices.")
        return out


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    """The study in Label Studio JSON exports ``sources`` (see the module)."""
    if annotators:
        raise InputError("Label Studio records who annotated each task (completed_by); "
                         "expected no --annotator names for labelstudio", key="--annotator")
    reader = _Reader()
    tasks: list[list[_Task]] = []
    min_notes: list[str] = []
    min_keys: dict[Path, dict[str, str]] = {}
    for source in sources:
        path = im.export_file(source, (".json",), "Label Studio's JSON export")
        raw = read_json(path, root=ANYWHERE)
        if lsm.is_json_min(raw):
            raw, notes, min_keys[path] = lsm.tasks_from_json_min(raw, path)
            min_notes += notes
        if not isinstance(raw, list):
            raise InputError("expected Label Studio's JSON or JSON-MIN export: a list of "
                             "tasks (the CSV export is not read)", file=path)
        mine = []
        for i, task in enumerate(raw):
            if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
                raise InputError("expected a task object with data", file=path, key=f"[{i}]")
            reader.learn_emails(task)
            data = task["data"]
            mine.append(_Task(task, path, f"[{i}]", _media(data, IMAGE_EXT, "image"),
                              _media(data, AUDIO_EXT, "audio")))
        tasks.append(mine)
    by_file = len(tasks) > 1 and all(_file_keys(t) is not None for t in tasks)
    for mine in tasks:
        keys = _file_keys(mine) if by_file else None
        for k, task in enumerate(mine):
            if keys is None and task.raw.get("id") is None:
                raise InputError("a task has no id; expected Label Studio's task id",
                                 file=task.file, key=f"{task.where}.id")
            with lsm.json_min_keys(min_keys.get(task.file)):
                reader.task(keys[k] if keys else str(task.raw["id"]), task)
    study = reader.finish()
    study.notes.extend(dict.fromkeys(min_notes))
    if by_file:
        study.notes.append("items are matched across the export files by media file name "
                           "(each file's task ids are its own).")
    return study


# ------------------------------------------------------------------------------ pieces


def _annotations(task: dict[str, Any]) -> list[Any]:
    anns = task.get("annotations", task.get("completions")) or []
    return anns if isinstance(anns, list) else []


def _family(kind: str, value: dict[str, Any]) -> str | None:
    if kind in IMAGE_TYPES:
        return "image"
    if kind == "choices":
        return "choices"
    if kind == "rating":
        return "rating"
    if kind == "labels":
        if "text" in value or "startOffset" in value:
            return lss.FAMILY if lss.on_text(value) else None
        if "start" in value and "end" in value:
            return "audio"
        if any(k in value for k in ("x", "points", "rle")):
            return "image"
    return None


def _labels(value: dict[str, Any], kind: str) -> list[str]:
    for key in (kind if kind.endswith("labels") else f"{kind}labels", "labels"):
        got = value.get(key)
        if isinstance(got, list):
            return [str(v) for v in got]
    for key, got in value.items():
        if key.endswith("labels") and isinstance(got, list):
            return [str(v) for v in got]
    return []


def _size(res: dict[str, Any], file: Path, where: str) -> tuple[int, int] | None:
    w, h = res.get("original_width"), res.get("original_height")
    return None if w is None or h is None else im.check_size(
        w, h, file=file, key=f"{where}.original_width")


def _media(data: dict[str, Any], extensions: tuple[str, ...], key: str) -> str | None:
    if isinstance(data.get(key), str) and data[key]:
        return str(data[key])
    for value in data.values():
        if isinstance(value, str) and im.reference_name(value).lower().endswith(extensions):
            return value
    return None


def _file_keys(tasks: list[_Task]) -> list[str] | None:
    names = [im.UPLOAD_PREFIX.sub("", im.reference_name(t.image or t.audio or ""), count=1)
             for t in tasks]
    return names if all(names) and len(set(names)) == len(names) else None


def _folder_name(name: str) -> str:
    return UNSAFE_NAME.sub("_", name.strip()).lstrip(".") or "annotator"


def _scheme(name: str, c: _Control, images: im.ImageStudy) -> ImportedScheme:
    labels = [label for label in c.labels if label]
    if c.family == "image":
        return images.scheme(name, labels, c.shapes)
    if c.family == lss.FAMILY:
        return lss.scheme(name, labels)
    if c.family == "audio":
        return ImportedScheme(name, "audio_annotation", {
            "description": "Imported from Label Studio.", "source_field": "audio",
            "mode": "label",
            "labels": [{"name": lab, "color": images.color(lab)} for lab in labels]})
    if c.family == "rating":
        top = max(5, c.top)
        return ImportedScheme(name, "likert", {"description": "Imported from Label Studio.",
                                               "size": top, "min_label": "1",
                                               "max_label": str(top)})
    return ImportedScheme(name, "multiselect" if c.multiple else "radio",
                          {"description": "Imported from Label Studio.", "labels": labels})
