"""Potato's ``config.yaml``: where things are and which questions were asked.

Facts from Potato 2.x (``formats.md``): every relative path resolves against
``task_dir``, the folder ``config.yaml`` is in; the keys that must be present are
``data_files``, ``item_properties.id_key``, ``output_annotation_dir`` and
``annotation_schemes`` (top level, or per phase under ``phases.<name>.annotation_schemes``).

Choices where Potato is silent or loose:

- The project folder is the folder the user opened, and it *is* ``task_dir``:
  ``config.yaml`` is looked for there, else in ``configs/`` when that holds exactly one
  YAML file. The ``task_dir`` value written in the file is the path Potato was started
  with, relative to a working directory Accord cannot know, so it is not used. Every
  path the config names must stay inside the project folder.
- Likert scales are ``"1"..str(size)`` (Potato's stored label names) unless ``labels``
  is given, in which case those names in order. Slider scales are the numbers
  ``min_value..max_value`` by ``step``, written canonically (``"57"``, ``"2.5"``).
  Either has at most :data:`MAX_SCALE_POINTS` points: a scale is built as a tuple of
  labels and ordinal agreement weighs every pair of points, so ``size: 1000000000``
  would take minutes and gigabytes before any answer is read; it is refused at once.
- A ``confidence`` scheme in likert mode (ordinal) has the scale ``"1".."N"``, the
  values its radios store whatever their ``labels`` say: N is ``scale_points`` (default
  5), or the number of ``labels`` where there are more (Potato shows every label).
- Phase schemes are read from phases whose ``type`` is ``annotation`` (or absent):
  consent, prestudy, training and poststudy answers are not items.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.agreement.kinds.registry import kind_for
from app.core.errors import InputError
from app.core.formats.media.locate import text_is_picture
from app.core.formats.potato.annotation_types import ANNOTATION_TYPES, closest
from app.core.formats.reading.boundary import present
from app.core.formats.reading.paths import inside
from app.core.formats.reading.yaml_file import read_yaml
from app.core.model import Kind, Scheme

NON_ITEM_PHASES = frozenset({"consent", "prestudy", "instructions", "training", "poststudy",
                             "done", "login"})
CHOICE_TYPES = frozenset({"radio", "select", "multiselect"})
"""Schemes whose answers are options: without ``labels`` there is nothing to choose."""
MEDIA_DISPLAY_TYPES = frozenset({"image", "audio", "video", "point_cloud", "pointcloud"})
MAX_SCALE_POINTS = 1001
"""The most points a likert or slider scale may have (a slider 0..100 by 0.1, or 0..1000
by 1). Ordinal agreement weighs every pair of points, so memory and time grow with the
square of the scale: measured on the categorical fixture, ``accord agreement`` peaked at
84 MB in 0.5 s with 1,001 points, 222 MB with 2,001 and 4.6 GB in 47 s with 10,001 (the
bound before issue 16)."""
MAX_SLIDER_POSITIONS = MAX_SCALE_POINTS


@dataclass(frozen=True, slots=True)
class PotatoConfig:
    path: Path
    root: Path
    task_dir: Path
    data_files: tuple[Path, ...]
    id_key: str
    text_key: str | None
    output_dir: Path
    schemes: tuple[Scheme, ...]
    annotators_per_item: int | None
    media_keys: tuple[str, ...]
    media_directory: Path | None
    picture_key: str | None = None
    """The ``text_key`` when an item's text is its picture (``media.locate``)."""


def find_config(project: Path) -> Path:
    """The config file of a project folder (or the file itself when given one)."""
    if project.is_file():
        return project
    if not project.is_dir():
        raise InputError("project folder not found", file=project)
    direct = project / "config.yaml"
    if present(direct):  # a FIFO or a link out is refused when read, not passed over
        return direct
    configs = sorted((project / "configs").glob("*.y*ml")) if (project / "configs").is_dir() else []
    if len(configs) == 1:
        return configs[0]
    if configs:
        names = ", ".join(p.name for p in configs)
        raise InputError(f"several configs found ({names}); open one of them directly",
                         file=project / "configs")
    raise InputError("no config.yaml here; expected a Potato project folder with "
                     "config.yaml (or configs/<one>.yaml)", file=project)


def read_config(project: Path) -> PotatoConfig:
    path = find_config(project)
    root = project if project.is_dir() else path.parent
    raw = read_yaml(path, root=root)
    if not isinstance(raw, dict):
        raise InputError("expected a YAML mapping of configuration keys", file=path)
    task_dir = root

    data_entries = _require(raw, "data_files", path, "a list of data file paths")
    if isinstance(data_entries, str | dict):
        data_entries = [data_entries]
    if not isinstance(data_entries, list) or not data_entries:
        raise InputError("expected a non-empty list of data file paths", file=path,
                         key="data_files")
    data_files = []
    for i, entry in enumerate(data_entries):
        rel = entry.get("path") if isinstance(entry, dict) else entry
        if not isinstance(rel, str):
            raise InputError("expected a path string (or {path: ...})", file=path,
                             key=f"data_files[{i}]")
        data_files.append(inside(root, rel, base=task_dir, file=path,
                                 key=f"data_files[{i}]"))

    props = _require(raw, "item_properties", path, "a mapping with id_key and text_key")
    if not isinstance(props, dict):
        raise InputError("expected a mapping with id_key", file=path, key="item_properties")
    id_key = props.get("id_key")
    if not isinstance(id_key, str) or not id_key:
        raise InputError("missing; expected the name of the item id field in the data files",
                         file=path, key="item_properties.id_key")
    text_key = props.get("text_key") if isinstance(props.get("text_key"), str) else None

    out_rel = _require(raw, "output_annotation_dir", path, "the folder of annotator folders")
    if not isinstance(out_rel, str):
        raise InputError("expected a folder path", file=path, key="output_annotation_dir")
    output_dir = inside(root, out_rel, base=task_dir, file=path,
                        key="output_annotation_dir")

    media_dir_rel = raw.get("media_directory")
    media_directory = (inside(root, media_dir_rel, base=task_dir, file=path,
                              key="media_directory")
                       if isinstance(media_dir_rel, str) else None)

    scheme_dicts = _scheme_dicts(raw, path)
    schemes = tuple(_scheme(d, path, key) for key, d in scheme_dicts)
    _check_unique(schemes, path)
    return PotatoConfig(
        path=path, root=root, task_dir=task_dir, data_files=tuple(data_files), id_key=id_key,
        text_key=text_key, output_dir=output_dir, schemes=schemes,
        annotators_per_item=_cap(raw.get("num_annotators_per_item"), path),
        media_keys=_media_keys(raw, scheme_dicts), media_directory=media_directory,
        picture_key=text_key if text_key and text_is_picture(schemes, raw) else None,
    )


# ----------------------------------------------------------------------------- pieces


def _require(raw: Mapping[str, Any], key: str, path: Path, expected: str) -> Any:
    if key not in raw or raw[key] is None:
        raise InputError(f"missing; expected {expected}", file=path, key=key)
    return raw[key]


def _scheme_dicts(raw: Mapping[str, Any], path: Path) -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    top = raw.get("annotation_schemes")
    if top is not None:
        if not isinstance(top, list):
            raise InputError("expected a list of scheme mappings", file=path,
                             key="annotation_schemes")
        found += [(f"annotation_schemes[{i}]", d) for i, d in enumerate(top)]
    phases = raw.get("phases")
    if isinstance(phases, dict):
        for name, phase in phases.items():
            if not isinstance(phase, dict) or "annotation_schemes" not in phase:
                continue
            if str(phase.get("type", "annotation")) in NON_ITEM_PHASES:
                continue
            schemes = phase["annotation_schemes"]
            if not isinstance(schemes, list):
                raise InputError("expected a list of scheme mappings", file=path,
                                 key=f"phases.{name}.annotation_schemes")
            found += [(f"phases.{name}.annotation_schemes[{i}]", d)
                      for i, d in enumerate(schemes)]
    if top is None and not found:
        raise InputError("missing; expected a list of annotation schemes (or "
                         "phases.<name>.annotation_schemes)", file=path, key="annotation_schemes")
    for key, d in found:
        if not isinstance(d, dict):
            raise InputError("expected a scheme mapping", file=path, key=key)
    return found


def _scheme(d: dict[str, Any], path: Path, key: str) -> Scheme:
    annotation_type = d.get("annotation_type")
    if not isinstance(annotation_type, str) or not annotation_type:
        raise InputError("missing; expected the scheme's annotation_type (radio, likert, ...)",
                         file=path, key=f"{key}.annotation_type")
    if annotation_type not in ANNOTATION_TYPES:
        near = closest(annotation_type)
        hint = (f"did you mean {near}?" if near else "expected one of Potato 2.12.1's types "
                "(radio, select, multiselect, likert, slider, span, image_annotation, ...)")
        raise InputError(f"unknown annotation_type '{annotation_type}'; {hint}", file=path,
                         key=f"{key}.annotation_type")
    name = d.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("missing; expected the scheme's name", file=path, key=f"{key}.name")
    labels = _labels(d.get("labels"), path, f"{key}.labels")
    if annotation_type in CHOICE_TYPES and not labels:  # Potato cannot show it either
        raise InputError(f"a {annotation_type} scheme with no labels; expected its list of "
                         "options", file=path, key=f"{key}.labels")
    kind = kind_for(annotation_type, d)
    scale: tuple[str, ...] = ()
    if annotation_type == "likert":
        scale = labels or _likert_scale(d, path, key)
    elif annotation_type == "slider":
        scale = _slider_scale(d, path, key)
    elif annotation_type == "confidence" and kind is Kind.ORDINAL:
        scale = _confidence_scale(d, labels, path, key)
    return Scheme(name=name, annotation_type=annotation_type, kind=kind, labels=labels,
                  scale=scale, config=dict(d))


def _labels(raw: Any, path: Path, key: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InputError("expected a list of labels", file=path, key=key)
    out = []
    for i, entry in enumerate(raw):
        if isinstance(entry, dict):
            entry = entry.get("name")
        if not isinstance(entry, str | int | float) or isinstance(entry, bool):
            raise InputError("expected a label name (or {name: ...})", file=path,
                             key=f"{key}[{i}]")
        out.append(str(entry))
    return tuple(out)


def _likert_scale(d: Mapping[str, Any], path: Path, key: str) -> tuple[str, ...]:
    size = d.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size < 2:
        raise InputError("missing or invalid; expected the likert scale's size (an integer "
                         "of at least 2)", file=path, key=f"{key}.size")
    if size > MAX_SCALE_POINTS:
        raise InputError(f"a likert scale of {size:,} points; at most {MAX_SCALE_POINTS:,} "
                         "are supported", file=path, key=f"{key}.size")
    return tuple(str(i) for i in range(1, size + 1))


def _confidence_scale(d: Mapping[str, Any], labels: tuple[str, ...], path: Path, key: str
                      ) -> tuple[str, ...]:
    points = d.get("scale_points", 5)
    if not isinstance(points, int) or isinstance(points, bool) or points < 1:
        raise InputError("expected the confidence scale's number of points (an integer of "
                         "at least 1)", file=path, key=f"{key}.scale_points")
    size = max(points, len(labels))
    if size > MAX_SCALE_POINTS:
        raise InputError(f"a confidence scale of {size:,} points; at most "
                         f"{MAX_SCALE_POINTS:,} are supported", file=path,
                         key=f"{key}.scale_points")
    return tuple(str(i) for i in range(1, size + 1))


def number_label(value: float) -> str:
    """The canonical text of a scale number: ``57`` for 57.0, ``2.5`` for 2.5."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _slider_scale(d: Mapping[str, Any], path: Path, key: str) -> tuple[str, ...]:
    bounds = []
    for name in ("min_value", "max_value"):
        value = d.get(name)
        if not isinstance(value, int | float) or isinstance(value, bool) \
                or not math.isfinite(value):
            raise InputError("missing or invalid; expected a number", file=path,
                             key=f"{key}.{name}")
        bounds.append(float(value))
    step = d.get("step", 1)
    if not isinstance(step, int | float) or isinstance(step, bool) or not step > 0 \
            or not math.isfinite(step):
        raise InputError("expected a positive number", file=path, key=f"{key}.step")
    low, high = bounds
    if high <= low:
        raise InputError("expected max_value above min_value", file=path, key=f"{key}.max_value")
    spans = (high - low) / float(step)  # inf for ±1e308 bounds: refused below, not rounded
    if spans > MAX_SLIDER_POSITIONS:
        count = f"{spans + 1:.3g}" if math.isfinite(spans) else "uncountably many"
        raise InputError(f"the slider has {count} positions; at most "
                         f"{MAX_SLIDER_POSITIONS:,} are supported", file=path, key=f"{key}.step")
    positions = round(spans) + 1
    if positions > MAX_SLIDER_POSITIONS:
        raise InputError(f"the slider has {positions:,} positions; at most "
                         f"{MAX_SLIDER_POSITIONS:,} are supported", file=path, key=f"{key}.step")
    return tuple(number_label(round(low + i * step, 10)) for i in range(positions))


def _cap(raw: Any, path: Path) -> int | None:
    if raw is None:
        return None
    if isinstance(raw, dict):
        raw = raw.get("default")
        if raw is None:
            return None
    if not isinstance(raw, int) or isinstance(raw, bool) or raw < 1:
        raise InputError("expected a positive integer (or {default: N, ...})", file=path,
                         key="num_annotators_per_item")
    return raw


def _media_keys(raw: Mapping[str, Any], schemes: list[tuple[str, dict[str, Any]]]
                ) -> tuple[str, ...]:
    keys: list[str] = []
    for _, d in schemes:
        source = d.get("source_field")
        if isinstance(source, str):
            keys.append(source)
    display = raw.get("instance_display")
    fields = display.get("fields") if isinstance(display, dict) else None
    if isinstance(fields, list):
        for f in fields:
            if isinstance(f, dict) and isinstance(f.get("type"), str) and \
                    f["type"] in MEDIA_DISPLAY_TYPES and \
                    isinstance(f.get("key"), str):
                keys.append(f["key"])
    return tuple(dict.fromkeys(keys))


def _check_unique(schemes: tuple[Scheme, ...], path: Path) -> None:
    seen: set[str] = set()
    for s in schemes:
        if s.name in seen:
            raise InputError(f"two schemes are named '{s.name}'; expected unique names",
                             file=path, key="annotation_schemes")
        seen.add(s.name)

