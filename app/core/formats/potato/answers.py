"""Potato's stored answers → model answers, one scheme on one item at a time.

Input is the list of ``(label name, value)`` entries one annotator has for one scheme on
one item (``formats.md``). The rules:

- A label is chosen unless its value is one of ``False, None, "", "false", "False",
  0, "0"``. The answer is read from the label *name* (the value can be a digit or a
  ``key_value``). ``free_response`` (and likert's ``bad_text``) are not options.
- Single choice with several options kept (Potato issue #167): the latest ``select``
  or ``update`` of one of them in ``annotation_changes`` wins, else the last entry;
  the caller counts each such repair.
- Structured answers are one JSON string under ``_data`` (media schemes) or under the
  scheme's own name (traces, temporal grounding); an already-parsed object is accepted.
- A single-choice scheme with entries but no chosen option has no answer. A multiselect
  with entries but none chosen is an empty answer (the empty set).

Every problem raises :class:`InputError` naming file, item, scheme and object, through
the :class:`~app.core.formats.potato.place.Place` the caller passes. The parsers of
structured answers are in :mod:`~app.core.formats.potato.objects` (geometry and time)
and :mod:`~app.core.formats.potato.traces` (agent traces).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.agreement.rating_answers import read_rating
from app.core.agreement.rating_answers import reads as reads_rating
from app.core.agreement.vlm.reading import PARSERS as VLM_PARSERS
from app.core.agreement.volumes.reading import parse_volume
from app.core.errors import InputError
from app.core.formats.potato.config import number_label
from app.core.formats.potato.objects import (
    parse_grounding,
    parse_image,
    parse_tiered,
    parse_timed,
)
from app.core.formats.potato.place import Place, sys_intern
from app.core.formats.potato.spatial import cuboids_from_text, parse_spatial
from app.core.formats.potato.traces import (
    parse_failure_attribution,
    parse_process_reward,
    parse_trajectory_eval,
    parse_verdicts,
)
from app.core.formats.reading.json_file import parse_json_text
from app.core.model import Answer, Kind, Scheme

NOT_OPTIONS = frozenset({"free_response", "bad_text"})
NOT_CHOSEN_TEXT = frozenset({"", "false", "False", "0"})

Entries = Sequence[tuple[str, Any]]
Changes = Sequence[Any]


def is_chosen(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, str):
        return value.strip() not in NOT_CHOSEN_TEXT
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value != 0
    return True


@dataclass(slots=True)
class Parsed:
    """An answer (``None``: not answered) and whether the #167 repair was needed."""

    answer: Answer | None
    repaired: bool = False


def parse_answer(scheme: Scheme, entries: Entries, changes: Changes, place: Place) -> Parsed:
    """Parse one scheme's entries on one item for one annotator."""
    kind = scheme.kind
    if scheme.annotation_type == "select":
        # the dropdown is stored as [{"schema", "name": "select-one"}, VALUE]: the
        # answer is the value, never the constant name
        entries = [(str(v), v) if n == "select-one" else (n, v) for n, v in entries]
    elif scheme.annotation_type == "pairwise" and kind is Kind.NOMINAL:
        # binary mode: [{..., "name": "selection"}, "A" | "B" | "tie"]; as Potato, only
        # that entry is the choice (a justification beside it is not)
        entries = [(str(v), v) for n, v in entries if n == "selection"]
    if reads_rating(scheme):  # numbers, rankings, matrices, packed label sets
        return Parsed(read_rating(scheme, list(entries), place.error))
    if scheme.annotation_type == "slider":
        return Parsed(_slider(scheme, entries, place))
    if kind in (Kind.NOMINAL, Kind.ORDINAL):
        return _single_choice(scheme, entries, changes, place)
    if kind is Kind.MULTILABEL:
        return Parsed(frozenset(sys_intern(n) for n, v in entries
                                if n not in NOT_OPTIONS and is_chosen(v)))
    parser = STRUCTURED.get(scheme.annotation_type)
    if parser is None:
        return Parsed(None)
    raw = _structured_value(scheme, entries)
    if raw is None:
        return Parsed(None)
    if isinstance(raw, str):
        if not raw.strip():
            return Parsed(None)
        if parser is parse_spatial:  # a lidar sweep's plain cuboids, straight from the text
            cuboids = cuboids_from_text(raw)
            if cuboids is not None:
                return Parsed(cuboids)
        try:
            raw = parse_json_text(raw, file=place.file, key=place.key,
                                  expected=f"a {scheme.annotation_type} answer")
        except InputError as exc:
            raise place.error(exc.problem) from None
    return Parsed(parser(raw, scheme, place))


def _single_choice(scheme: Scheme, entries: Entries, changes: Changes, place: Place) -> Parsed:
    if len(entries) == 1:  # the common case, kept cheap for 100,000-item studies
        name, value = entries[0]
        if name in NOT_OPTIONS or not is_chosen(value):
            return Parsed(None)
        if scheme.kind is Kind.ORDINAL and name not in scheme.scale_set:
            raise place.error(f"value '{name}' is not on the scale {list(scheme.scale)}")
        return Parsed(sys_intern(name))
    chosen = [n for n, v in entries if n not in NOT_OPTIONS and is_chosen(v)]
    chosen = list(dict.fromkeys(chosen))
    if not chosen:
        return Parsed(None)
    repaired = False
    value = chosen[0]
    if len(chosen) > 1:
        repaired = True
        value = _latest_selected(scheme.name, chosen, changes) or chosen[-1]
    if scheme.kind is Kind.ORDINAL and value not in scheme.scale_set:
        raise place.error(f"value '{value}' is not on the scale {list(scheme.scale)}")
    return Parsed(sys_intern(value), repaired)


def _latest_selected(scheme: str, candidates: list[str], changes: Changes) -> str | None:
    best: tuple[float, int] | None = None
    winner: str | None = None
    for order, change in enumerate(changes):
        if not isinstance(change, dict):  # the log is user data: skip what is not a change
            continue
        if change.get("schema_name") != scheme or change.get("action") not in ("select", "update"):
            continue
        label = change.get("label_name")
        if label not in candidates:
            continue
        stamp = change.get("timestamp")
        when = float(stamp) if isinstance(stamp, int | float) else -math.inf
        key = (when, order)
        if best is None or key >= best:
            best, winner = key, str(label)
    return winner


def _slider(scheme: Scheme, entries: Entries, place: Place) -> str | None:
    values = [v for n, v in entries if n not in NOT_OPTIONS and v not in (None, "")]
    if not values:
        return None
    try:
        number = float(values[-1])
    except (TypeError, ValueError):
        raise place.error(f"slider value {values[-1]!r} is not a number") from None
    label = number_label(number)
    if label not in scheme.scale_set:
        raise place.error(f"slider value {label} is not a position of the slider "
                          f"({scheme.scale[0]}..{scheme.scale[-1]})")
    return sys_intern(label)


def _structured_value(scheme: Scheme, entries: Entries) -> Any:
    for name, value in reversed(entries):
        if name in ("_data", scheme.name):
            return value
    return None


Parser = Callable[[Any, Scheme, Place], Answer]

STRUCTURED: dict[str, Parser] = {
    "image_annotation": parse_image,
    "spatial_annotation": parse_spatial,
    "audio_annotation": parse_timed,
    "video_annotation": parse_timed,
    "tiered_annotation": parse_tiered,
    "temporal_grounding": parse_grounding,
    "process_reward": parse_process_reward,
    "trajectory_eval": parse_trajectory_eval,
    "tool_call_review": parse_verdicts,
    "gui_trajectory": parse_verdicts,
    "failure_attribution": parse_failure_attribution,
    **VLM_PARSERS,
    "volume_annotation": parse_volume,
}
