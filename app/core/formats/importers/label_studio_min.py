"""Label Studio's JSON-MIN export, turned back into the tasks of its JSON export so that
:mod:`.label_studio` reads both the same way.

**What JSON-MIN is.** label-studio-converter's ``convert_to_json_min`` writes one flat
object per annotation (cancelled annotations and predictions left out; a task with no
annotation once, with ``annotator`` null): the task's ``data`` keys, then ``id`` (the
task id), then one key per control (``from_name``) holding the answer, then
``annotator`` (a user id or an e-mail), ``annotation_id``, ``created_at``,
``updated_at``, ``lead_time``. An answer is the list of the results' ``value`` objects
with ``original_width``/``original_height`` moved in and the ``type`` and ``id``
dropped; a ``choices`` (or ``textarea``) answer is its one value object, and with one
choice (one line) the bare text.

**What it keeps, and what it cannot carry.** Who annotated is kept (``annotator``), and
so is every coordinate, label and brush RLE, so agreement can be computed from it. It
cannot carry:

- which user id is which e-mail: the JSON export names a user by id in one place and
  expands the same user with an e-mail in another, and JSON-MIN keeps whichever the
  annotation had. A file that names some annotators by id and others by e-mail may
  hold one person under two names, which would make up a pair of annotators who never
  met: it is refused, with the export to use instead;
- who made an annotation whose user has no e-mail in an expanded ``completed_by`` (the
  converter writes ``annotator: null``): refused the same way.

**How the answers are found** (choices where the format is silent):

- The control keys are those between ``id`` and ``annotator``, the order the converter
  writes them in (a task's data may have any keys, so the keys themselves cannot say).
  A file whose tasks carry their own ``id`` inside ``data`` puts ``id`` among the data
  keys: the data keys after it are then read as answers (a note would not help; the
  JSON export has no such ambiguity).
- A result's type comes from its value's keys: a ``…labels`` key names it
  (``rectanglelabels``, ``labels``…); else ``choices``, ``rating``, ``text``
  (``textarea``), ``rle`` (``brush``), ``points`` (``polygon``), ``radiusX``
  (``ellipse``), ``x`` with ``width`` (``rectangle``), ``x`` (``keypoint``).
- A task's annotations are put back in annotation-id order, as the JSON export lists
  them (the converter lists them newest first), so that schemes, labels and colours
  come in the order the JSON export gives them.
- A bare-text answer is a choice (the more common of the two it may be); a note says
  so. A ``choices``, ``rating`` or ``text`` value that carries a region's coordinates is
  that region's attribute, and takes the id of the region with those coordinates so
  that the JSON reader skips it as it does in the JSON export (one whose region is not
  in the annotation is left out, counted in a note).
- A region's attribute with one choice loses its coordinates too (the converter writes
  the bare choice; several regions' give a list of bare choices). A control that answers
  that way anywhere in the file, or with coordinates, is a per-region control, and all
  its answers are attributes. A per-region control whose every answer in the file is one
  bare choice cannot be told from a choice about the whole item, and is read as one
  (the note on bare text says so).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.core.errors import InputError

META = ("annotator", "annotation_id", "created_at", "updated_at", "lead_time", "agreement")
REGION_KEYS = ("x", "y", "width", "height", "rotation", "points", "radiusX", "radiusY",
               "rle")
"""The value keys that place a region (and that its per-region attributes repeat)."""
ATTRIBUTE_KINDS = frozenset({"choices", "rating", "textarea"})
INSTEAD = ("export the project from Label Studio as JSON (not JSON-MIN) and import that "
           "file")


def is_json_min(raw: Any) -> bool:
    """Whether a parsed export is JSON-MIN: flat records with ``annotator``, no task
    with ``annotations``."""
    return isinstance(raw, list) and any(isinstance(r, dict) and "annotator" in r
                                         for r in raw) and not any(
        isinstance(r, dict) and ("annotations" in r or "completions" in r) for r in raw)


def tasks_from_json_min(raw: list[Any], path: Path
                        ) -> tuple[list[dict[str, Any]], list[str], dict[str, str]]:
    """The JSON export's tasks that ``raw`` (JSON-MIN, from ``path``) was written from,
    the notes on what was read in a way the JSON export would not need, and the keys
    for :func:`json_min_keys`."""
    tasks: dict[str, dict[str, Any]] = {}
    by_kind: dict[type, str] = {}
    texts = orphans = 0
    per_region = _per_region_controls(raw)
    for i, record in enumerate(raw):
        where = f"[{i}]"
        if not isinstance(record, dict) or "id" not in record or "annotator" not in record:
            raise InputError("expected a JSON-MIN record: an object with the task's 'id' and "
                             "'annotator'", file=path, key=where)
        keys = list(record)
        start, end = keys.index("id"), keys.index("annotator")
        data = {k: record[k] for k in keys[:start] if k not in META}
        task = tasks.setdefault(str(record["id"]), {"id": record["id"], "data": data,
                                                    "annotations": [], "_record": i})
        controls = keys[start + 1:end]
        who = record["annotator"]
        if who is None and record.get("annotation_id") is None and not controls:
            continue  # a task nobody annotated
        if isinstance(who, bool) or not isinstance(who, int | str) or who == "":
            raise InputError("Label Studio's JSON-MIN export does not say who made this "
                             f"annotation (annotator is {who!r}); {INSTEAD}", file=path,
                             key=f"{where}.annotator")
        by_kind.setdefault(type(who), where)
        if len(by_kind) > 1:
            raise InputError("Label Studio's JSON-MIN export names some annotators by user "
                             f"id ({by_kind[int]}) and others by e-mail ({by_kind[str]}) and "
                             f"cannot say which id is which e-mail; {INSTEAD}", file=path,
                             key=f"{where}.annotator")
        results: list[dict[str, Any]] = []
        for name in controls:
            texts += isinstance(record[name], str) and name not in per_region
            results.extend(_results(name, record[name], path, f"{where}.{name}"))
        results, lost = _attach_attributes(results, per_region)
        orphans += lost
        task["annotations"].append({
            "id": record.get("annotation_id"), "completed_by": who, "result": results,
            "created_at": record.get("created_at"), "updated_at": record.get("updated_at"),
            "_record": i})
    places: dict[str, str] = {}
    for t, task in enumerate(tasks.values()):
        places[f"[{t}]"] = f"[{task.pop('_record')}]"
        task["annotations"].sort(key=_annotation_order)  # the JSON export's order
        for a, annotation in enumerate(task["annotations"]):
            record_key = f"[{annotation.pop('_record')}]"
            places[f"[{t}].annotations[{a}]"] = record_key
            places[f"[{t}].annotations[{a}].completed_by"] = f"{record_key}.annotator"
            for r, result in enumerate(annotation["result"]):
                places[f"[{t}].annotations[{a}].result[{r}]"] = result.pop("_key")
    notes = ["Read as Label Studio's JSON-MIN export, which leaves out cancelled annotations "
             "and predictions: they are neither imported nor counted."]
    if orphans:
        notes.append(f"{orphans} per-region answers repeat the place of no region in their "
                     "annotation and were left out.")
    if texts:
        notes.append(f"{texts} answers are bare text, which JSON-MIN writes alike for a "
                     "choice, a one-line text answer and a region's one choice (its place "
                     "dropped): they are read as choices of the whole item.")
    return list(tasks.values()), notes, places


@contextmanager
def json_min_keys(keys: dict[str, str] | None) -> Iterator[None]:
    """Within it, an error about a task made from JSON-MIN names the record and control
    it came from (``[4].box[1].x``), not the JSON export's place of it."""
    try:
        yield
    except InputError as exc:
        key = exc.key or ""
        for prefix in sorted(keys or {}, key=len, reverse=True):
            if key == prefix or key.startswith(f"{prefix}."):
                rest = key[len(prefix):].removeprefix(".value")
                raise InputError(exc.problem, file=exc.file, line=exc.line,
                                 key=f"{(keys or {})[prefix]}{rest}") from None
        raise


def _annotation_order(annotation: dict[str, Any]) -> tuple[int, int]:
    ident = annotation.get("id")
    return (0, ident) if isinstance(ident, int) and not isinstance(ident, bool) else (1, 0)


def _per_region_controls(raw: list[Any]) -> set[str]:
    """Controls that answer per region somewhere in the file: a list of bare texts (the
    converter's form for several regions' one choice each) or a value with a region's
    coordinates; Label Studio sets ``perRegion`` per control, so all its answers are."""
    out: set[str] = set()
    for record in raw:
        if isinstance(record, dict) and "id" in record and "annotator" in record:
            keys = list(record)
            for name in keys[keys.index("id") + 1:keys.index("annotator")]:
                if _per_region(record[name]):
                    out.add(name)
    return out


def _per_region(answer: Any) -> bool:
    if isinstance(answer, list) and any(isinstance(v, str) for v in answer):
        return True
    values = answer if isinstance(answer, list) else [answer]
    return any(isinstance(v, dict) and _kind(v) in ATTRIBUTE_KINDS and _place(v) is not None
               for v in values)


def _results(name: str, answer: Any, path: Path, key: str) -> Iterator[dict[str, Any]]:
    single = isinstance(answer, str | dict)
    if isinstance(answer, str):
        answer = [answer]
    if isinstance(answer, list) and answer and all(isinstance(v, str) for v in answer):
        for k, text in enumerate(answer):
            yield {"id": f"{name}#{k}", "from_name": name, "type": "choices",
                   "value": {"choices": [text]}, "_key": key if single else f"{key}[{k}]"}
        return
    if isinstance(answer, dict):  # one choices or textarea value with several entries
        answer = [answer]
    if not isinstance(answer, list) or not all(isinstance(v, dict) for v in answer):
        raise InputError(f"is {type(answer).__name__}; expected a JSON-MIN answer: a choice "
                         "(text), a value object or a list of them", file=path, key=key)
    for k, raw in enumerate(answer):
        value = dict(raw)
        result: dict[str, Any] = {"id": f"{name}#{k}", "from_name": name,
                                  "type": _kind(value),
                                  "_key": key if single else f"{key}[{k}]"}
        for size in ("original_width", "original_height"):
            if size in value:
                result[size] = value.pop(size)
        result["value"] = value
        yield result


def _kind(value: dict[str, Any]) -> str:
    for key in value:
        if key.endswith("labels"):
            return key
    for key, kind in (("choices", "choices"), ("rating", "rating"), ("text", "textarea"),
                      ("rle", "brush"), ("points", "polygon"), ("radiusX", "ellipse")):
        if key in value:
            return kind
    if "x" in value:
        return "rectangle" if "width" in value else "keypoint"
    return "unknown"


def _attach_attributes(results: list[dict[str, Any]], per_region: set[str]
                       ) -> tuple[list[dict[str, Any]], int]:
    """The results with each per-region attribute given the id of the region whose place
    it repeats (of a region of the annotation when the converter dropped the place); an
    attribute of no region here is left out (counted)."""
    regions = {place: r["id"] for r in results
               if r["type"] not in ATTRIBUTE_KINDS and (place := _place(r["value"]))}
    kept, orphans = [], 0
    for r in results:
        place = _place(r["value"])
        if r["type"] in ATTRIBUTE_KINDS and (place or r["from_name"] in per_region):
            region = regions.get(place) if place else next(iter(regions.values()), None)
            if region is None:
                orphans += 1
                continue
            r["id"] = region
        kept.append(r)
    return kept, orphans


def _place(value: dict[str, Any]) -> str | None:
    """The region's coordinates as one comparable text, or ``None`` for no region."""
    place = {k: value[k] for k in REGION_KEYS if k in value}
    return json.dumps(place, sort_keys=True) if place else None
