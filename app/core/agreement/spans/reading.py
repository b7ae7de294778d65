"""Potato 2.12.1's span answers, read from the user states the project reader loads.

:mod:`app.core.formats.potato.project` calls :func:`store_span_answers` with each
annotator's parsed ``user_state.json`` after storing its spans: it adds the label-value
spans and the empty answers of annotators who saved an item without a span, so the study
holds each span scheme as Potato gathers it. :class:`SpanReader` reads the same from the
raw states alone (one annotator at a time, keeping only the span schemes), and
:meth:`SpanReader.finish` adds each item's character axis L; the tests hold the two
equal. What is read (``kinds.md`` A.2, B §0.1, §2.6):

- ``span``, ``event_annotation``, ``coreference``, ``span_link``: the entries of
  ``instance_id_to_span_to_value`` (``[[{schema, name, title, start, end, id, …}, value]]``)
  whose ``schema`` is the scheme's name, as (start, end, name), in stored order. Potato
  ignores ``title``, ``target_field`` and ``additional_parts``, and so does Accord.
- ``error_span`` and ``extractive_qa`` keep their answer as a *label value*: a JSON string
  under ``[{schema, name}, value]`` in ``instance_id_to_label_to_value``. error_span's
  ``{"errors": [{start, end, type, …}], "score"}`` gives one span per error labelled with
  its ``type``; extractive_qa's ``{answer_text, start, end, unanswerable}`` one span labelled
  ``answer`` (none when unanswerable). An answer or error whose offsets are not integers is
  not read: it is counted and listed (``unreadable``), and that annotator is left out of
  that item for the scheme.
- ``tree_annotation`` stores per-node answers and a chosen path, never character offsets:
  it is named with that reason (:data:`NO_OFFSETS`), never scored.

Who counts on an item (Potato's ``_gather_spans`` with ``UserState.has_annotated``): an
annotator who *saved* the item, meaning the item is a key of their
``instance_id_to_label_to_value``, ``…_span_to_value``, ``…_link_to_value`` or
``…_event_to_value``, or a timed trial on it ran out with the answer excused. Such an
annotator with no span of the scheme counts with ``[]``; items nobody marked are dropped
later (:func:`~app.core.agreement.spans.table.build_table`).

The axis L is ``len(get_text())`` of Potato's item: the record's ``text_key`` field when
present, else the first of ``text``, ``content``, ``message``, ``title`` present, else the
first string field; 0 when that is not a string. error_span with a ``source_field`` and
extractive_qa with a ``passage_field`` measure offsets in that field; Potato still takes L
from the item's text, and so does Accord (a note says so).

event_annotation, coreference and span_link are how Potato's dispatcher classifies them,
but their own answers are events and links between the spans of another scheme (their
``span_schema``); their widgets store no span under their own name. Accord reads them as
Potato's gathering would, and says where their mentions are scored when it finds none.
"""

from __future__ import annotations

import json
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.agreement.spans.table import RawSpan
from app.core.errors import InputError

if TYPE_CHECKING:
    from app.core.model import Study

SPAN_TYPES = frozenset({"span", "event_annotation", "coreference", "span_link"})
LABEL_SPAN_TYPES = frozenset({"error_span", "extractive_qa"})
NO_OFFSETS = {"tree_annotation": "tree_annotation stores per-node answers and a chosen "
                                 "path, not character offsets: there is no span to score"}
ALL_SPAN_TYPES = SPAN_TYPES | LABEL_SPAN_TYPES | frozenset(NO_OFFSETS)
LINKING_TYPES = frozenset({"event_annotation", "coreference", "span_link"})
TEXT_KEYS = ("text", "content", "message", "title")
MAX_LISTED = 20


@dataclass(frozen=True)
class SpanScheme:
    """A span scheme as :mod:`app.core.model` describes it (name, type, config)."""

    name: str
    annotation_type: str
    config: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class SchemeSpans:
    """One scheme's spans: item → annotator → spans ([] = saved, nothing marked)."""

    scheme: SpanScheme
    answers: dict[str, dict[str, list[RawSpan]]] = field(default_factory=dict)
    lengths: dict[str, int] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    n_unreadable: int = 0
    notes: list[str] = field(default_factory=list)
    cannot_score: str | None = None


class SpanReader:
    """Collects the span schemes' answers annotator by annotator."""

    def __init__(self, schemes: Iterable[SpanScheme], items: Container[str] | None = None
                 ) -> None:
        self.schemes = {s.name: SchemeSpans(s) for s in schemes
                        if s.annotation_type in ALL_SPAN_TYPES}
        self.items = items

    def add(self, annotator: str, state: Mapping[str, Any], file: Path) -> None:
        """Read one annotator's user state (the parsed ``user_state.json``)."""
        if not self.schemes:
            return
        found: dict[str, dict[str, list[RawSpan] | None]] = {s: {} for s in self.schemes}
        self._stored_spans(state, file, found)
        self._label_spans(annotator, state, file, found)
        for iid in saved_items(state):
            if self.items is not None and iid not in self.items:
                continue
            for name, reading in self.schemes.items():
                if reading.cannot_score is None and reading.scheme.annotation_type \
                        not in NO_OFFSETS:
                    spans = found[name].get(iid, [])
                    if spans is not None:
                        reading.answers.setdefault(iid, {})[annotator] = spans

    def finish(self, records: Mapping[str, Mapping[str, Any]], text_key: str | None
               ) -> dict[str, SchemeSpans]:
        """Each scheme's spans with L per item (``records``: item id → data record)."""
        for reading in self.schemes.values():
            kind = reading.scheme.annotation_type
            if kind in NO_OFFSETS:
                reading.cannot_score = NO_OFFSETS[kind]
                continue
            reading.lengths = {iid: text_length(records[iid], text_key)
                               for iid in reading.answers if iid in records}
            _notes(reading, text_key)
        return self.schemes

    def _stored_spans(self, state: Mapping[str, Any], file: Path,
                      found: dict[str, dict[str, list[RawSpan] | None]]) -> None:
        stored = _mapping(state, "instance_id_to_span_to_value", file)
        for iid, pairs in stored.items():
            key = f"instance_id_to_span_to_value.{iid}"
            if not isinstance(pairs, list):
                raise InputError("expected a list of [{schema, name, start, end}, value] "
                                 "pairs", file=file, key=key)
            for pair in pairs:
                span = pair[0] if isinstance(pair, list) and pair else pair
                if not isinstance(span, dict) or "schema" not in span:
                    raise InputError("expected [{schema, name, start, end}, value] pairs, "
                                     f"found {pair!r:.80}", file=file, key=key)
                schema = str(span["schema"])
                reading = self.schemes.get(schema)
                if reading is None or reading.scheme.annotation_type not in SPAN_TYPES:
                    continue
                start, end = _offset(span.get("start")), _offset(span.get("end"))
                if start is None or end is None:
                    raise InputError(f"span offsets must be integers, found "
                                     f"{span.get('start')!r}..{span.get('end')!r}",
                                     file=file, key=f"{key}.{schema}")
                by_item = found[schema].setdefault(str(iid), [])
                if by_item is not None:
                    by_item.append((start, end, str(span.get("name", ""))))

    def _label_spans(self, annotator: str, state: Mapping[str, Any], file: Path,
                     found: dict[str, dict[str, list[RawSpan] | None]]) -> None:
        labels = _mapping(state, "instance_id_to_label_to_value", file)
        wanted = {n for n, r in self.schemes.items()
                  if r.scheme.annotation_type in LABEL_SPAN_TYPES}
        if not wanted:
            return
        for iid, pairs in labels.items():
            if not isinstance(pairs, list):
                continue  # the project reader names this problem
            for pair in pairs:
                if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], dict)
                        and str(pair[0].get("schema")) in wanted):
                    continue
                name = str(pair[0]["schema"])
                reading = self.schemes[name]
                spans, problem = label_value_spans(reading.scheme.annotation_type, pair[1])
                if problem is not None:
                    reading.n_unreadable += 1
                    if len(reading.unreadable) < MAX_LISTED:
                        reading.unreadable.append(
                            f"{file}: annotator '{annotator}', item '{iid}': {problem}")
                    found[name][str(iid)] = None
                elif found[name].get(str(iid), []) is not None:
                    found[name][str(iid)] = spans


def label_value_spans(annotation_type: str, value: Any) -> tuple[list[RawSpan], str | None]:
    """The spans of an error_span or extractive_qa label value, or why none could be read."""
    data = value
    if isinstance(value, str):
        if not value.strip():
            return [], None
        try:
            data = json.loads(value)
        except json.JSONDecodeError as exc:
            return [], f"the stored answer is not JSON ({exc.msg})"
    if not isinstance(data, dict):
        return [], f"expected a JSON object, found {type(data).__name__}"
    if annotation_type == "extractive_qa":
        if data.get("unanswerable") is True:
            return [], None
        start, end = _offset(data.get("start")), _offset(data.get("end"))
        if start is None or end is None:
            return [], (f"the answer's offsets are not integers "
                        f"({data.get('start')!r}..{data.get('end')!r})")
        return [(start, end, "answer")], None
    errors = data.get("errors", [])
    if not isinstance(errors, list):
        return [], "'errors' is not a list"
    spans: list[RawSpan] = []
    for k, err in enumerate(errors):
        start = _offset(err.get("start")) if isinstance(err, dict) else None
        end = _offset(err.get("end")) if isinstance(err, dict) else None
        if start is None or end is None:
            return [], f"error {k} has no integer offsets"
        spans.append((start, end, str(err.get("type", ""))))
    return spans, None


def store_span_answers(study: Study, annotator: str, state: Mapping[str, Any], file: Path
                       ) -> None:
    """The project reader's hook, after it stored ``annotator``'s spans: error_span and
    extractive_qa answers as spans (an unreadable one rejected with its reason), and an
    empty answer for every span scheme on every item the annotator saved without a span
    there (an unreadable label value leaves the annotator out instead)."""
    schemes = [s for s in study.schemes.values()
               if s.annotation_type in ALL_SPAN_TYPES and s.annotation_type not in NO_OFFSETS]
    if not schemes:
        return
    from app.core.objects import ObjectSet, Span

    labels = _mapping(state, "instance_id_to_label_to_value", file)
    given: dict[str, set[str]] = {s.name: set() for s in schemes}
    kinds = {s.name: s.annotation_type for s in schemes
             if s.annotation_type in LABEL_SPAN_TYPES}
    for iid, pairs in labels.items():
        if not isinstance(pairs, list) or str(iid) not in study.items:
            continue
        for pair in pairs:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], dict)
                    and str(pair[0].get("schema")) in kinds):
                continue
            name = str(pair[0]["schema"])
            given[name].add(str(iid))
            spans, problem = label_value_spans(kinds[name], pair[1])
            if problem is not None:
                study.rejected.setdefault(name, []).append(
                    f"{file}: annotator '{annotator}', item '{iid}': {problem}")
                study.answers[name].get(str(iid), {}).pop(annotator, None)
                continue
            study.answers[name].setdefault(str(iid), {})[annotator] = ObjectSet(
                tuple(Span(s, e, label) for s, e, label in spans))
    empty = ObjectSet(())
    for iid in saved_items(state):
        if iid not in study.items:
            continue
        for scheme in schemes:
            by = study.answers[scheme.name]
            if iid not in given[scheme.name] and annotator not in by.get(iid, {}):
                by.setdefault(iid, {})[annotator] = empty


def saved_items(state: Mapping[str, Any]) -> set[str]:
    """The items an annotator saved, as Potato's ``UserState.has_annotated`` decides."""
    out: set[str] = set()
    for key in ("instance_id_to_label_to_value", "instance_id_to_span_to_value",
                "instance_id_to_link_to_value", "instance_id_to_event_to_value"):
        value = state.get(key)
        if isinstance(value, dict):
            out.update(str(k) for k in value)
    trials = state.get("instance_id_to_trial")
    if isinstance(trials, dict):
        out.update(str(k) for k, rec in trials.items() if _excused(rec))
    return out


def _excused(record: Any) -> bool:
    """A timed trial that ran out (or needed no answer): Potato's
    ``trial_timing.excuses_required_answer``."""
    if not isinstance(record, dict):
        return False
    flags = set(record.get("flags") or [])
    if record.get("outcome") == "completed":
        return not flags & {"completed_without_presentation", "completed_with_question",
                            "regions_incomplete", "not_served"}
    if record.get("outcome") != "timeout":
        return False
    return not flags & {"timeout_too_early", "timeout_without_deadline", "not_served"}


def potato_text(record: Mapping[str, Any], text_key: str | None) -> Any:
    """The item's text as Potato's ``Item.get_text`` gives it."""
    for key in ([text_key] if text_key else []) + [k for k in TEXT_KEYS if k != text_key]:
        if key in record:
            return record[key]
    return next((v for v in record.values() if isinstance(v, str)), None)


def text_length(record: Mapping[str, Any], text_key: str | None) -> int:
    text = potato_text(record, text_key)
    return len(text) if isinstance(text, str) else 0


def _offset(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _mapping(state: Mapping[str, Any], key: str, file: Path) -> Mapping[str, Any]:
    value = state.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"expected an object mapping item ids, found {type(value).__name__}",
                         file=file, key=key)
    return value


def _notes(reading: SchemeSpans, text_key: str | None) -> None:
    scheme = reading.scheme
    if reading.n_unreadable:
        reading.notes.append(f"{reading.n_unreadable} answers hold no readable offsets and "
                             "were left out (listed under 'unreadable').")
    source = scheme.config.get("source_field") or scheme.config.get("passage_field")
    if scheme.annotation_type in LABEL_SPAN_TYPES and source and source != text_key:
        reading.notes.append(f"offsets are in the item's '{source}' field; the character "
                             "axis L is the item's text, as in Potato.")
    marked = any(spans for by in reading.answers.values() for spans in by.values())
    if scheme.annotation_type in LINKING_TYPES and not marked:
        reading.notes.append(linking_sentence(scheme.name, scheme.annotation_type,
                                              scheme.config) + ".")


def linking_sentence(name: str, annotation_type: str, config: Mapping[str, Any]) -> str:
    """Why a linking scheme (event_annotation, coreference, span_link) has no span."""
    target = config.get("span_schema")
    where = f" (their mentions are the spans of '{target}', scored there)" if target else ""
    return (f"{annotation_type} stores events or links between spans, not spans of its "
            f"own{where}; no span carries the name '{name}'")
