"""What an importer reads out of another tool's export, before it is written as a
Potato-layout project (:mod:`~app.core.formats.importers.writer`).

An importer turns its tool's files into an :class:`ImportedStudy`: the schemes (one
Potato ``annotation_type`` each, with the keys its config needs), the items (one
data-file record each, media paths relative to the new project, and the source files
to copy there), and every annotator's answers as **Potato answer values** in Potato's
own shapes and units (``formats.md``): a label name for radio, a scale value for likert,
a list of label names for multiselect, a list of :class:`ImportedSpan` for a span scheme,
and the structured object of a media or trace scheme (``{"shapes": [...]}``,
``{"segments": [...]}``, ``{"annotations": {...}}``, ``{"steps": [...]}``...). A track
answer is a ``video_annotation`` value in tracking mode: the widget's state with
``{"tracks": {id: {"label", "keyframes": {frame: {"frame", "bbox", "bboxNorm"}}}}}``
(built by :mod:`~app.core.formats.importers.tracks.study`). Units are converted in the
importer, in exactly one place.

``notes`` say what the format cannot carry or what was skipped, in sentences; the
command prints them as the import's summary.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHOICE_TYPES = frozenset({"radio", "select"})
"""One label name per answer."""
SCALE_TYPES = frozenset({"likert"})
"""One scale value per answer."""
SET_TYPES = frozenset({"multiselect"})
"""A list of label names per answer."""
DATA_TYPES = frozenset({"image_annotation", "audio_annotation", "video_annotation",
                        "tiered_annotation", "spatial_annotation", "volume_annotation"})
"""A structured object stored under the label name ``_data``."""
OWN_NAME_TYPES = frozenset({"trajectory_eval", "process_reward", "tool_call_review",
                            "gui_trajectory", "failure_attribution", "temporal_grounding"})
"""A structured object stored under the scheme's own name."""
SPAN_TYPES = frozenset({"span"})
"""A list of :class:`ImportedSpan` (characters of the item's text), stored in
``instance_id_to_span_to_value`` (an item seen with nothing marked: an empty list)."""


@dataclass(frozen=True)
class ImportedSpan:
    """One marked stretch of an item's text: end-exclusive character offsets (Python
    string indices, as Potato stores them) and its label; ``parts`` are the further
    fragments of a discontinuous span (Potato's ``additional_parts``)."""

    start: int
    end: int
    label: str
    parts: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class ImportedScheme:
    name: str
    annotation_type: str
    config: dict[str, Any] = field(default_factory=dict)
    """Every other key of the scheme's ``annotation_schemes`` entry (``labels``,
    ``tools``, ``tiers``, ``size``, ``steps_key``, ``source_field``...)."""


@dataclass
class ImportedItem:
    id: str
    record: dict[str, Any] = field(default_factory=dict)
    """The data-file record without ``id`` (``text``, media paths, trace steps...)."""
    media: dict[str, Path] = field(default_factory=dict)
    """Project-relative path (as written in ``record``) → the source file to copy."""
    made: dict[str, Callable[[Path], None]] = field(default_factory=dict)
    """Project-relative path → a function that writes that file at the path it is given
    (a source converted on the way in, such as a nuScenes cloud)."""


@dataclass
class ImportedStudy:
    format: str
    schemes: list[ImportedScheme] = field(default_factory=list)
    items: dict[str, ImportedItem] = field(default_factory=dict)
    """In the order the items should be listed."""
    answers: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """annotator → item → scheme → Potato answer value (an item the annotator saw with
    nothing drawn has an empty structured value; an item absent has no entry)."""
    notes: list[str] = field(default_factory=list)
    text_key: str = "text"
    media_keys: tuple[str, ...] = ()
    """Record keys that hold media paths (Potato's item_properties)."""
    task_name: str | None = None

    def annotators(self) -> list[str]:
        return list(self.answers)
