"""Reading ``labeling/``: ``predictions.jsonl``, ``requests.jsonl``, ``annotators.jsonl``.

Formats are in ``contracts.md`` (Data). Each file is streamed a line at a time
(:mod:`app.core.formats.reading.json_lines`); every problem is one :class:`InputError` naming
the file, the line, the field and what was expected, and nothing half-read is returned.
Labels stay raw JSON in the schema's answer shape, but each is checked on reading with
:func:`~app.core.formats.labeling.answers.to_answer` (for schemes with a loss family),
so a label that could not be compared later is reported at its line now.

Choices where the spec is silent:

- The files live in ``<project>/labeling/``, the project folder being the one
  ``config.yaml`` was found for. A missing ``predictions.jsonl`` or ``requests.jsonl``
  means nothing predicted or drawn yet (empty); ``annotators.jsonl`` is optional.
- Unknown fields in a line are ignored (writers may add a model name or a prompt hash);
  a known field of the wrong type is an error. ``null`` counts as absent.
- ``predictions.jsonl``: ``label`` is required; ``probs``, when given, maps a label to a
  probability in [0, 1], the values summing to at most 1 (top-k log-probabilities may
  leave mass out); for a categorical or ordinal scheme its keys must be options.
- ``requests.jsonl``: every line repeats ``item``, ``schema`` and ``kind`` of its
  request, and calibration lines ``pi`` and ``split`` (the line format of the spec); a
  line that contradicts the request's first line is an error naming both.
  Verification lines may omit ``pi`` and ``split``; when given they are checked too.
- A request is read as one :class:`Request` per (request id, annotator), in the order of
  the request's first line, then of each annotator's first line on it. The lines of a
  request without an ``annotator`` describe the draw; once some person is on it, that
  draw is not a separate request any more. A label given without an annotator stays
  under annotator ``None``.
- **An unanswered request** is a :class:`Request` whose ``label_history`` is empty:
  ``label`` is ``None`` and ``answered`` is false (a label can never be ``null``: a
  ``null`` label is no label). A line without a label after an answer adds nothing.
- ``annotators.jsonl``: one line per annotator (a repeated annotator is an error); the
  other fields are that person's prestudy answers, kept as written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from app.core.contracts.labels.families import Family, loss_family
from app.core.errors import InputError
from app.core.formats.labeling.answers import to_answer
from app.core.formats.labeling.data import (
    LabelingData,
    LabelVersion,
    Prediction,
    Request,
    RequestKind,
    Split,
)
from app.core.formats.labeling.decoded import decode_common
from app.core.formats.labeling.item_codes import item_codes
from app.core.formats.labeling.table import (
    PredictionTable,
    coded_table,
    read_common_predictions,
)
from app.core.formats.potato.config import find_config
from app.core.formats.reading.boundary import present, read_mapped
from app.core.formats.reading.json_lines import Fields, iter_json_lines, read_json_lines
from app.core.model import Scheme, Study
from app.core.slices import list_in_slices

__all__ = [
    "ANNOTATORS_FILE",
    "LABELING_DIR",
    "PREDICTIONS_FILE",
    "REQUESTS_FILE",
    "LabelVersion",
    "LabelingData",
    "Prediction",
    "Request",
    "RequestKind",
    "Split",
    "labeling_dir",
    "read_annotators",
    "read_labeling",
    "read_predictions",
    "read_requests",
    "to_answer",
]

LABELING_DIR = "labeling"
PREDICTIONS_FILE = "predictions.jsonl"
REQUESTS_FILE = "requests.jsonl"
ANNOTATORS_FILE = "annotators.jsonl"
PROBABILITY_SLACK = 1e-6


def labeling_dir(project: Path) -> Path:
    """``<project>/labeling``, the project folder being the one holding the config."""
    project = Path(project)
    return project / LABELING_DIR if project.is_dir() else \
        find_config(project).parent / LABELING_DIR


def read_labeling(project: Path, study: Study, tiers: Iterable[str]) -> LabelingData:
    """Read all three files of a project (missing ones are empty)."""
    folder = labeling_dir(project)
    root = folder.parent
    predictions = folder / PREDICTIONS_FILE
    requests = folder / REQUESTS_FILE
    annotators = folder / ANNOTATORS_FILE
    # present, not is_file: a FIFO, a device or a link out is refused, not read as empty
    return LabelingData(
        read_predictions(predictions, study, tiers, root=root) if present(predictions) else (),
        read_requests(requests, study, root=root) if present(requests) else (),
        read_annotators(annotators, root=root) if present(annotators) else MappingProxyType({}),
    )


# ------------------------------------------------------------------------ shared checks


def _item_and_scheme(f: Fields, study: Study) -> tuple[str, Scheme]:
    item = f.required_ident("item")
    schema = f.required_ident("schema")
    scheme = study.schemes.get(schema)
    if scheme is None:
        raise f.error(f"unknown schema '{schema}'; expected one of the project's schemes "
                      f"({', '.join(study.schemes)})", "schema")
    if item not in study.items:
        raise f.error(f"unknown item '{item}'; expected an item id of the project's data "
                      "files", "item")
    return item, scheme


def _check_label(f: Fields, scheme: Scheme, raw: Any) -> None:
    if loss_family(scheme) is None:
        return
    try:
        to_answer(scheme, raw)
    except InputError as exc:
        raise f.error(f"label for schema '{scheme.name}': {exc.problem}", "label") from None


# ------------------------------------------------------------------------- predictions


def read_predictions(path: Path, study: Study, tiers: Iterable[str], *,
                     root: Path | None = None) -> PredictionTable:
    """``predictions.jsonl``: one line per item, schema and cascade tier.

    A file of common lines is decoded straight into columns
    (:func:`~app.core.formats.labeling.decoded.decode_common`), else parsed at once
    (:func:`~app.core.formats.reading.json_lines.read_json_lines`); a file of common lines is
    checked column by column
    (:func:`~app.core.formats.labeling.table.read_common_predictions`); any other file
    goes through the full per-line checks, which give the same predictions or the message
    naming the line and field.
    """
    tier_names = tuple(tiers)

    def valid(schema: str, label: Any) -> bool:
        return _valid_label(study, schema, label)

    options = [label for scheme in study.schemes.values() for label in scheme.labels]
    items = list_in_slices(study.items)
    index = item_codes(study.items)
    with read_mapped(path, root=root) as data:  # a big file unmapped without the lock
        columns = decode_common(data, study.schemes, tier_names, options, items, index)
        del index  # kept in the columns when they are common
        table = None if columns is None else \
            coded_table(columns, frozenset(tier_names), valid)
        if table is not None:
            return table
        raw = data if isinstance(data, bytes) else data[:]
    records = read_json_lines(path, root=root, data=raw)
    del raw
    table = read_common_predictions(records, study.schemes, study.items,
                                    frozenset(tier_names), valid)
    if table is not None:
        return table
    seen: dict[tuple[str, str, str], int] = {}
    out: list[Prediction] = []
    for line, record in records:
        prediction = _prediction(Fields(path, line, record), study, tier_names)
        key = (prediction.schema, prediction.item, prediction.tier)
        if key in seen:
            raise Fields(path, line, record).error(
                f"a second prediction for item '{prediction.item}', schema "
                f"'{prediction.schema}', tier '{prediction.tier}' (the first at line "
                f"{seen[key]}); expected one line per item, schema and tier")
        seen[key] = line
        out.append(prediction)
    return PredictionTable.of(out)


def _valid_label(study: Study, schema: str, label: Any) -> bool:
    scheme = study.schemes[schema]
    if loss_family(scheme) is None:
        return True
    try:
        to_answer(scheme, label)
    except InputError:
        return False
    return True


def _prediction(f: Fields, study: Study, tier_names: tuple[str, ...]) -> Prediction:
    """One line's prediction with every field checked (messages name line and field)."""
    item, scheme = _item_and_scheme(f, study)
    tier = f.required_ident("tier")
    if tier not in tier_names:
        raise f.error(f"unknown tier '{tier}'; expected a tier of the cascade "
                      f"({', '.join(tier_names)})", "tier")
    if not f.has("label"):
        raise f.error("missing field 'label'; expected the machine's label", "label")
    label = f.record["label"]
    _check_label(f, scheme, label)
    confidence = f.number("confidence", low=0, high=1, what="a confidence")
    assert confidence is not None
    return Prediction(item, scheme.name, tier, label, confidence, _probs(f, scheme), f.line)


def _probs(f: Fields, scheme: Scheme) -> Mapping[str, float] | None:
    raw = f.record.get("probs")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise f.error("expected an object mapping each label to its probability", "probs")
    family = loss_family(scheme)
    options = scheme.labels if family is Family.CATEGORICAL else \
        scheme.scale if family is Family.ORDINAL else ()
    probs: dict[str, float] = {}
    for name in raw:
        if options and name not in options:
            raise f.error(f"'{name}' is not an option of schema '{scheme.name}'; expected "
                          f"probabilities of its labels", "probs")
        value = raw[name]
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not 0 <= value <= 1:
            raise f.error(f"the probability of '{name}' is {value!r:.40}; expected a number "
                          "in [0, 1]", "probs")
        probs[name] = float(value)
    if sum(probs.values()) > 1 + PROBABILITY_SLACK:
        raise f.error(f"the probabilities sum to {sum(probs.values()):.6g}; expected at most 1",
                      "probs")
    return MappingProxyType(probs)


# ---------------------------------------------------------------------------- requests


class _Draw:
    """The facts of one request id, from its first line."""

    __slots__ = ("item", "kind", "line", "pi", "schema", "split")

    def __init__(self, item: str, schema: str, kind: RequestKind, pi: float | None,
                 split: Split | None, line: int) -> None:
        self.item, self.schema, self.kind = item, schema, kind
        self.pi, self.split, self.line = pi, split, line


def read_requests(path: Path, study: Study, *, root: Path | None = None
                  ) -> tuple[Request, ...]:
    """``requests.jsonl``: drawn requests, answers and edits, in file order."""
    draws: dict[str, _Draw] = {}
    history: dict[str, dict[str | None, list[LabelVersion]]] = {}
    for line, record in iter_json_lines(path, root=root):
        f = Fields(path, line, record)
        request = f.required_ident("request")
        item, scheme = _item_and_scheme(f, study)
        kind = RequestKind(f.choice("kind", tuple(RequestKind)) or "")
        calibration = kind is RequestKind.CALIBRATION
        pi = f.number("pi", low=0, high=1, low_open=True, required=calibration,
                      what="an inclusion probability")
        split_name = f.choice("split", tuple(Split), required=calibration)
        split = Split(split_name) if split_name is not None else None
        annotator = f.ident("annotator", required=False)
        time = f.time("time")
        draw = draws.get(request)
        if draw is None:
            draws[request] = _Draw(item, scheme.name, kind, pi, split, line)
        else:
            _same_draw(f, request, draw, item, scheme.name, kind, pi, split)
        versions = history.setdefault(request, {}).setdefault(annotator, [])
        if f.has("label"):
            _check_label(f, scheme, record["label"])
            versions.append(LabelVersion(record["label"], line, time))
    return tuple(_requests(draws, history))


def _same_draw(f: Fields, request: str, draw: _Draw, item: str, schema: str,
               kind: RequestKind, pi: float | None, split: Split | None) -> None:
    given = {"item": item, "schema": schema, "kind": kind, "pi": pi, "split": split}
    for key, value in given.items():
        first = getattr(draw, key)
        if first is None and value is not None:
            setattr(draw, key, value)  # a verification request's split or pi, given later
        elif value is not None and value != first:
            raise f.error(f"request '{request}' has {key} {first!r} at line {draw.line}, "
                          f"here {value!r}; expected every line of a request to repeat its "
                          "item, schema, kind, pi and split", key)


def _requests(draws: Mapping[str, _Draw],
              history: Mapping[str, Mapping[str | None, list[LabelVersion]]]) -> list[Request]:
    """One request per (request id, annotator): by the request's first line, then by the
    annotator's first line on it."""
    out = []
    for request, d in draws.items():
        people = history[request]
        for annotator, versions in people.items():
            if annotator is None and not versions and len(people) > 1:
                continue  # the draw of a request that people have since answered
            out.append(Request(request, d.item, d.schema, d.kind, d.pi, d.split, annotator,
                               tuple(versions), d.line))
    return out


# -------------------------------------------------------------------------- annotators


def read_annotators(path: Path, *, root: Path | None = None
                    ) -> Mapping[str, Mapping[str, Any]]:
    """``annotators.jsonl``: annotator → prestudy answers (every other field)."""
    out: dict[str, Mapping[str, Any]] = {}
    lines: dict[str, int] = {}
    for line, record in iter_json_lines(path, root=root):
        f = Fields(path, line, record)
        name = f.required_ident("annotator")
        if name in lines:
            raise f.error(f"annotator '{name}' appears twice (first at line {lines[name]}); "
                          "expected one line per annotator", "annotator")
        lines[name] = line
        out[name] = MappingProxyType({k: v for k, v in record.items() if k != "annotator"})
    return MappingProxyType(out)
