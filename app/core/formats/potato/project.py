"""Read a Potato project folder into a :class:`~app.core.model.Study`.

The reader is a generator job (``app.core.progress``): it yields progress per data file
and per annotator and returns the study. It never writes.

Memory: data files are streamed record by record; annotator files are read one at a
time, converted to model answers and dropped before the next is opened, so the raw JSON
of a 100,000-item study is never held twice (nor two annotators' files at once).

Choices where Potato is silent:

- Annotators are the folders of ``output_annotation_dir`` (sorted, dot-folders skipped)
  that hold ``user_state.json`` (Potato 2.x) or ``annotated_instances.jsonl`` (1.x); the
  name is ``user_id`` from the file, else the folder name. Potato 2.12's own folders
  there are not annotators: ``labeling_engine/`` (the engine's export) and ``pocket/``.
- A project whose labelling engine keeps its state in ``<task_dir>/engine.sqlite`` is
  valid with no annotator folder at all: labels given through Potato's CLI or SDK live
  only in that database, and the people there are annotators too (their blind labels:
  :mod:`.engine.people`). Without that database, no annotator folder is an error: an
  annotation project with nobody's answers is almost always the wrong folder.
- Answers to ids that are not items of the data files (survey pages, removed items) and
  to schemes not in the config are ignored and counted in ``Study.notes``.
- Media paths that are URLs are left alone; local paths must stay inside the project
  (an error otherwise); a local file that is missing is counted in the notes, since
  agreement does not need it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from itertools import chain
from pathlib import Path
from typing import Any

from app.core.agreement.spans.reading import store_span_answers
from app.core.errors import InputError, RejectedAnswerError
from app.core.formats.media.locate import URL_PREFIXES, media_values
from app.core.formats.potato.answers import parse_answer
from app.core.formats.potato.bws import bws_tuples
from app.core.formats.potato.config import PotatoConfig, read_config
from app.core.formats.potato.datafiles import (
    common_items,
    common_records,
    iter_records,
    legacy_lines,
)
from app.core.formats.potato.engine.people import add_engine_people
from app.core.formats.potato.place import Place, sys_intern
from app.core.formats.reading.boundary import present
from app.core.formats.reading.json_file import read_json_in_pieces
from app.core.formats.reading.media_file import named_media_file
from app.core.formats.reading.paths import inside
from app.core.gc_pause import gc_paused
from app.core.model import NO_ENTRIES, Item, Kind, Scheme, Study, TraceStep
from app.core.objects import ObjectSet, SceneObject, Span
from app.core.progress import Job, Progress, run
from app.core.slices import dict_in_slices, empty_in_slices

STATE_FILE = "user_state.json"
ENGINE_DATABASE = "engine.sqlite"
NOT_ANNOTATORS = frozenset({"labeling_engine", "pocket"})
"""Folders Potato 2.12 writes beside the annotators' in ``output_annotation_dir``."""
LEGACY_FILE = "annotated_instances.jsonl"


def load_study(project: Path | str) -> Study:
    """Read a project on this thread (the CLI's and the tests' entry point)."""
    return run(read_potato(Path(project)))


def read_potato(project: Path, *, whole_files: bool = False, people: bool = True) -> Job[Study]:
    """``whole_files``: each user_state.json in one call (CLI); ``people``: engine.sqlite's."""
    config = read_config(project)
    steps = 1 + len(config.data_files)
    yield Progress(0, steps, "reading config")
    items: Mapping[str, Item] = {}
    missing_media: Counter[str] = Counter()
    for i, data_file in enumerate(config.data_files):
        yield Progress(i, steps, f"reading {data_file.name}")
        with gc_paused():  # a million items: each full collection held the lock 0.3 s
            items = _read_items(config, data_file, items, missing_media)
    if not items:
        raise InputError("the data files hold no items; expected at least one record",
                         file=config.data_files[0])
    items = bws_tuples(config, items)  # Potato's generated best-worst tuples, if any

    folders = _annotator_folders(config)
    study = Study(root=config.root, items=items, schemes={s.name: s for s in config.schemes},
                  annotators=(), answers={s.name: {} for s in config.schemes},
                  annotators_per_item=config.annotators_per_item)
    ignored: Counter[str] = Counter()
    names: dict[str, Path] = {}
    total = steps + len(folders)
    with gc_paused():
        for j, folder in enumerate(folders):
            yield Progress(steps + j, total, f"reading annotator {folder.name}")
            name = _read_annotator(folder, study, ignored, whole_files)
            if name in names:
                raise InputError(f"annotator '{name}' also appears in {names[name]}; expected "
                                 "one folder per annotator", file=folder)
            names[name] = folder
    engine = add_engine_people(study, config.task_dir, frozenset(names)) if people else ()
    study.annotators = tuple(sorted({*names, *engine}))
    study.notes.extend(_notes(ignored, missing_media))
    return study


# ----------------------------------------------------------------------------- items


def _read_items(config: PotatoConfig, path: Path, items: Mapping[str, Item],
                missing_media: Counter[str]) -> Mapping[str, Item]:
    """``items`` with the data file's (a new mapping when ``items`` is empty and the file
    is common: :func:`~app.core.formats.potato.datafiles.common_items`; else a dict)."""
    trace_schemes = [s for s in config.schemes if s.kind is Kind.TRACE]
    steps_keys = {str(s.config.get("steps_key", "steps")): s for s in trace_schemes}
    records = common_records(path, root=config.root)
    if records is not None and not (config.media_keys or config.picture_key or steps_keys):
        common = common_items(records, config.id_key, config.text_key)
        if common is not None and not items:
            return common
        if common is not None and not any(map(items.__contains__, common)):
            return dict_in_slices(chain(items.items(), common.items()))
    numbered = iter_records(path, root=config.root) if records is None else enumerate(records, 1)
    out = items if isinstance(items, dict) else dict_in_slices(items.items())
    for line, record in numbered:
        if config.id_key not in record or record[config.id_key] in (None, ""):
            raise InputError(f"an item has no '{config.id_key}' (item_properties.id_key); "
                             "expected every record to carry its id", file=path, line=line,
                             key=config.id_key)
        item_id = str(record[config.id_key])
        if item_id in out:
            raise InputError(f"item id '{item_id}' appears twice; expected unique ids",
                             file=path, line=line, key=config.id_key)
        text = record.get(config.text_key) if config.text_key else None
        media: dict[str, Path] = {}
        for key, value in media_values(record, config.media_keys, config.picture_key):
            found = _episode_manifest(_media_path(config, value, path, line, key))
            if (checked := named_media_file(found, root=config.root)) is not None:  # any size
                media[key] = checked
            else:
                missing_media[key] += 1
        steps = {steps_key: _trace_steps(config, scheme, raw, path, line)
                 for steps_key, scheme in steps_keys.items()
                 if isinstance(raw := record.get(steps_key), list)}
        out[item_id] = Item(item_id, record, text if isinstance(text, str) else None,
                            media or NO_ENTRIES, steps or NO_ENTRIES)
    return out


def _media_path(config: PotatoConfig, value: str, file: Path, line: int | None, key: str
                ) -> Path:
    where = f"{key} (line {line})" if line is not None else key
    path = inside(config.root, value, base=config.task_dir, file=file, key=where)
    if not path.exists() and config.media_directory is not None:
        alt = inside(config.root, value, base=config.media_directory, file=file, key=where)
        if alt.exists():
            return alt
    return path


EPISODE_MANIFEST = "episode.json"


def _episode_manifest(path: Path) -> Path:
    """A media field naming a folder that holds ``episode.json`` names that manifest:
    Potato 2.12.1 reads an episode so (``episodes/simple.py``: a folder is read as its
    ``episode.json``). Any other folder is still refused by ``named_media_file``, and the
    manifest is checked like every media file (a link out of the project is refused)."""
    if path.is_dir():
        manifest = path / EPISODE_MANIFEST
        if present(manifest):
            return manifest
    return path


def _trace_steps(config: PotatoConfig, scheme: Scheme, raw: list[Any], file: Path,
                 line: int | None) -> tuple[TraceStep, ...]:
    shot_key = str(scheme.config.get("screenshot_key", "screenshot"))
    out = []
    for i, step in enumerate(raw):
        if isinstance(step, str):
            out.append(TraceStep(i, step))
            continue
        if not isinstance(step, dict):
            continue
        text = _step_text(step)
        tool = _tool_call(step)
        shot = step.get(shot_key)
        screenshot = None
        if isinstance(shot, str) and shot and not shot.startswith(URL_PREFIXES):
            screenshot = _media_path(config, shot, file, line, f"{shot_key} of step {i}")
        out.append(TraceStep(i, text, tool, screenshot))
    return tuple(out)


def _step_text(step: Mapping[str, Any]) -> str:
    parts = []
    for key in ("speaker", "role", "agent"):
        if isinstance(step.get(key), str):
            parts.append(f"[{step[key]}]")
            break
    for key in ("thought", "content", "text", "action", "reasoning", "observation"):
        value = step.get(key)
        if isinstance(value, str) and value:
            parts.append(value)
        elif isinstance(value, list):
            parts.extend(b.get("text", "") for b in value
                         if isinstance(b, dict) and isinstance(b.get("text"), str))
    return " ".join(parts)


def _tool_call(step: Mapping[str, Any]) -> str | None:
    calls = step.get("tool_calls")
    if isinstance(calls, dict):
        calls = [calls]
    if not isinstance(calls, list):
        single = step.get("tool_call") or (step.get("action") if isinstance(step.get("action"),
                                                                             dict) else None)
        calls = [single] if isinstance(single, dict) else []
    rendered = []
    for call in calls:
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        fn: dict[str, Any] = function if isinstance(function, dict) else call
        name = fn.get("name") or fn.get("tool") or "?"
        args = next((fn[k] for k in ("arguments", "args", "input", "params", "parameters")
                     if k in fn), "")
        rendered.append(f"{name}({args if isinstance(args, str) else _compact(args)})")
    return "; ".join(rendered) or None


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


# ------------------------------------------------------------------------- annotators


def _annotator_folders(config: PotatoConfig) -> list[Path]:
    out_dir = config.output_dir
    engine_only = present(config.task_dir / ENGINE_DATABASE)
    if not out_dir.is_dir():
        if engine_only:
            return []
        raise InputError(f"annotation folder {out_dir} not found; expected one folder per "
                         "annotator with user_state.json", file=config.path,
                         key="output_annotation_dir")
    folders = [p for p in sorted(out_dir.iterdir())
               if p.is_dir() and not p.name.startswith(".") and p.name not in NOT_ANNOTATORS
               and (present(p / STATE_FILE) or present(p / LEGACY_FILE))]
    if not folders and not engine_only:
        raise InputError("no annotator folders found: expected <annotator>/user_state.json "
                         "(or annotated_instances.jsonl) inside it", file=out_dir)
    return folders


def _read_annotator(folder: Path, study: Study, ignored: Counter[str], whole: bool = False
                    ) -> str:
    state_file = folder / STATE_FILE
    if present(state_file):  # a link out, a FIFO or a device is refused, never skipped
        state = read_json_in_pieces(state_file, root=study.root, whole=whole)
        if not isinstance(state, dict):
            raise InputError("expected a JSON object (Potato's user state)", file=state_file)
        user = state.get("user_id")
        name = sys_intern(user if isinstance(user, str) and user else folder.name)
        study.add_origin(name, state.get("origin"))  # a machine rater (kinds.md A.4)
        labels = _mapping(state, "instance_id_to_label_to_value", state_file)
        spans = _mapping(state, "instance_id_to_span_to_value", state_file)
        behaviour = _mapping(state, "instance_id_to_behavioral_data", state_file)
        for item_id, raw in labels.items():
            changes = _changes(behaviour.get(item_id)) if behaviour else []
            grouped = _group_labels(raw, state_file, item_id)
            _store(study, name, sys_intern(item_id), grouped, changes, state_file, ignored)
        for item_id, raw in spans.items():
            _store_spans(study, name, str(item_id), raw, state_file, ignored)
        store_span_answers(study, name, state, state_file)  # [] if saved (kinds.md A.2)
        for key, value in state.items():  # a big state freed in one step held the lock
            if key.startswith("instance_id_to_") and isinstance(value, dict):
                empty_in_slices(value)  # popped: a value kept elsewhere stays whole
        del state, labels, spans, behaviour
        return name
    legacy = folder / LEGACY_FILE
    name = sys_intern(folder.name)
    for item_id, grouped in legacy_lines(legacy, study.root):
        _store(study, name, sys_intern(item_id), grouped, (), legacy, ignored)
    return name


def _mapping(state: Mapping[str, Any], key: str, file: Path) -> Mapping[str, Any]:
    if not isinstance(value := state.get(key), dict | None):
        raise InputError(f"expected an object mapping item ids, found {type(value).__name__}",
                         file=file, key=key)
    return value or {}


def _changes(behaviour: Any) -> list[Mapping[str, Any]]:
    if isinstance(behaviour, dict) and isinstance(behaviour.get("annotation_changes"), list):
        return behaviour["annotation_changes"]  # type: ignore[no-any-return]
    return []


def _group_labels(raw: Any, file: Path, item: str) -> dict[str, list[tuple[str, Any]]]:
    """Potato 2.x pairs ``[{"schema", "name"}, value]``, or the older ``{schema: {label: v}}``."""
    grouped: dict[str, list[tuple[str, Any]]] = {}
    key = f"instance_id_to_label_to_value.{item}"
    if isinstance(raw, dict):
        for schema, labels in raw.items():
            if not isinstance(labels, dict):
                raise InputError("expected {label: value} per scheme", file=file, key=key)
            grouped[str(schema)] = [(str(n), v) for n, v in labels.items()]
        return grouped
    if not isinstance(raw, list):
        raise InputError('expected a list of [{"schema", "name"}, value] pairs', file=file,
                         key=key)
    for pair in raw:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], dict)
                and "schema" in pair[0] and "name" in pair[0]):
            raise InputError(f'expected [{{"schema", "name"}}, value] pairs, found {pair!r:.80}',
                             file=file, key=key)
        grouped.setdefault(str(pair[0]["schema"]), []).append((str(pair[0]["name"]), pair[1]))
    return grouped


def _store(study: Study, annotator: str, item_id: str, grouped: dict[str, list[tuple[str, Any]]],
           changes: list[Mapping[str, Any]] | tuple[()], file: Path, ignored: Counter[str]
           ) -> None:
    if item_id not in study.items:
        ignored["items"] += 1
        return
    place = Place(file, item_id, "", annotator)
    answers = study.answers
    for scheme_name, entries in grouped.items():
        scheme = study.schemes.get(scheme_name)
        if scheme is None:
            ignored["schemes"] += 1
            continue
        place.scheme = scheme_name
        try:
            parsed = parse_answer(scheme, entries, changes, place)
        except RejectedAnswerError as rejected:
            study.rejected.setdefault(scheme_name, []).append(str(rejected))
            continue
        if parsed.answer is None:
            continue
        if parsed.repaired:
            study.single_choice_repairs[scheme_name] = \
                study.single_choice_repairs.get(scheme_name, 0) + 1
        answers[scheme_name].setdefault(item_id, {})[annotator] = parsed.answer


def _store_spans(study: Study, annotator: str, item_id: str, raw: Any, file: Path,
                 ignored: Counter[str]) -> None:
    if item_id not in study.items:
        ignored["items"] += 1
        return
    key = f"instance_id_to_span_to_value.{item_id}"
    by_scheme: dict[str, list[SceneObject]] = {}
    pairs = raw if isinstance(raw, list) else []
    for pair in pairs:
        span = pair[0] if isinstance(pair, list) and pair else pair
        if not isinstance(span, dict) or "schema" not in span:
            raise InputError('expected [{"schema", "name", "start", "end"}, text] pairs',
                             file=file, key=key)
        start, end = span.get("start"), span.get("end")
        if not (isinstance(start, int) and isinstance(end, int)) or end < start:
            raise InputError(f"span offsets must be integers with start ≤ end, found "
                             f"{start!r}..{end!r}", file=file, key=key)
        by_scheme.setdefault(str(span["schema"]), []).append(
            Span(start, end, sys_intern(str(span.get("name", "")))))
    for scheme_name, spans in by_scheme.items():
        if scheme_name not in study.schemes:
            ignored["schemes"] += 1
            continue
        study.answers[scheme_name].setdefault(sys_intern(item_id), {})[annotator] = \
            ObjectSet(tuple(spans))


def _notes(ignored: Counter[str], missing_media: Counter[str]) -> list[str]:
    notes = []
    if ignored["items"]:
        notes.append(f"{ignored['items']} answers refer to ids that are not items of the data "
                     "files (survey pages or removed items) and were ignored.")
    if ignored["schemes"]:
        notes.append(f"{ignored['schemes']} answers are to schemes not in the config and were "
                     "ignored.")
    for key, n in sorted(missing_media.items()):
        notes.append(f"{n} items name a '{key}' file that is not in the project.")
    return notes
