"""A label as written in ``labeling/*.jsonl`` → the model answer of its scheme.

The labeling files keep labels in the shape of the schema's answer, as raw JSON
(``contracts.md``): a label name, a number, a list of boxes. :func:`to_answer` turns one
into the same model answer the Potato reader builds from an annotator's file, so machine
and human labels compare with the agreement report's own rules:

| family        | raw label                                   | answer |
|---------------|---------------------------------------------|--------|
| categorical   | the label name (``"pos"``)                  | ``str`` |
| ordinal       | the scale value (``"4"`` or ``4``)          | ``str`` on ``Scheme.scale`` |
| numeric       | a slider position (``57`` or ``"57"``)       | ``str`` (``number_label``) |
| multilabel    | a list of label names                       | ``frozenset[str]`` |
| spans         | a list of ``{"start", "end", "label"}``     | ``ObjectSet`` of ``Span`` |
| structured    | Potato's answer object (or its JSON string) | via ``potato_answers.STRUCTURED`` |

Choices where the spec is silent: a label name may be written as an integer (read as
text, as Potato reads its labels); a label outside the scheme's options (when the scheme
lists them) is an error; span labels may be under ``label`` or Potato's ``name``.
Every problem raises :class:`InputError` without a place; the caller adds file and line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from app.core.contracts.labels.families import Family, loss_family
from app.core.errors import InputError
from app.core.formats.potato.answers import STRUCTURED
from app.core.formats.potato.config import number_label
from app.core.formats.potato.place import Place, sys_intern
from app.core.formats.reading import nesting
from app.core.model import Answer, Scheme
from app.core.objects import ObjectSet, Span


class _LabelPlace(Place):
    """Errors of the Potato structured parsers without Potato's file and annotator."""

    __slots__ = ()

    def error(self, problem: str, obj: int | None = None) -> InputError:
        return InputError(f"object {obj}: {problem}" if obj is not None else problem)


_SCALAR_ANSWERS: dict[tuple[Any, ...], Answer] = {}
"""Answers of plain label names and numbers, by scheme identity and raw value: a
100,000-item study repeats a handful of labels hundreds of thousands of times."""


def to_answer(scheme: Scheme, raw: Any) -> Answer:
    """Convert one raw label of ``scheme`` to its model answer (``InputError`` if invalid)."""
    if isinstance(raw, str | int | float) and not isinstance(raw, bool):
        key = (scheme.name, scheme.annotation_type, scheme.labels, scheme.scale,
               type(raw), raw)
        cached = _SCALAR_ANSWERS.get(key)
        if cached is None:
            cached = _SCALAR_ANSWERS[key] = _to_answer(scheme, raw)
        return cached
    return _to_answer(scheme, raw)


def _to_answer(scheme: Scheme, raw: Any) -> Answer:
    family = loss_family(scheme)
    if family is Family.CATEGORICAL:
        return _option(scheme, raw, scheme.labels, "a label name")
    if family is Family.ORDINAL:
        return _option(scheme, _as_text(raw, "a scale value"), scheme.scale, "a scale value")
    if family is Family.NUMERIC:
        return _position(scheme, raw)
    if family is Family.MULTILABEL:
        if not isinstance(raw, list):
            raise InputError(f"expected a list of label names, found {raw!r:.60}")
        return frozenset(_option(scheme, name, scheme.labels, "a label name") for name in raw)
    if family is Family.SPANS:
        return _spans(raw)
    parser = STRUCTURED.get(scheme.annotation_type)
    if family is None or parser is None:
        raise InputError(f"schema '{scheme.name}' ({scheme.annotation_type}) has no loss "
                         "family; its labels cannot be compared")
    if isinstance(raw, str):
        try:
            raw = nesting.loads(raw, file=None)
        except json.JSONDecodeError as exc:
            raise InputError(f"the label is a string but not valid JSON ({exc.msg}); expected "
                             f"a {scheme.annotation_type} answer") from None
    return parser(raw, scheme, _LabelPlace(Path(), "", scheme.name, ""))


def _as_text(raw: Any, what: str) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw):
        return number_label(raw)
    raise InputError(f"expected {what}, found {raw!r:.60}")


def _option(scheme: Scheme, raw: Any, options: tuple[str, ...], what: str) -> str:
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = str(raw)
    if not isinstance(raw, str) or not raw:
        raise InputError(f"expected {what}, found {raw!r:.60}")
    if options and raw not in options:
        raise InputError(f"'{raw}' is not an option of schema '{scheme.name}'; expected one of "
                         f"{', '.join(options[:20])}{', ...' if len(options) > 20 else ''}")
    return sys_intern(raw)


def _position(scheme: Scheme, raw: Any) -> str:
    try:
        number = float(raw) if isinstance(raw, str | int | float) \
            and not isinstance(raw, bool) else math.nan
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise InputError(f"expected a number, found {raw!r:.60}")
    label = number_label(number)
    if scheme.scale and label not in scheme.scale_set:
        raise InputError(f"{label} is not a position of the slider "
                         f"({scheme.scale[0]}..{scheme.scale[-1]}); expected one of its steps")
    return sys_intern(label)


def _spans(raw: Any) -> ObjectSet:
    if not isinstance(raw, list):
        raise InputError(f'expected a list of {{"start", "end", "label"}} spans, found '
                         f"{raw!r:.60}")
    spans = []
    for i, span in enumerate(raw):
        if not isinstance(span, dict):
            raise InputError(f'span {i}: expected {{"start", "end", "label"}}')
        start, end = span.get("start"), span.get("end")
        if not (type(start) is int and type(end) is int) or not 0 <= start <= end:
            raise InputError(f"span {i}: offsets must be integers with 0 ≤ start ≤ end, found "
                             f"{start!r}..{end!r}")
        label = span.get("label", span.get("name", ""))
        spans.append(Span(start, end, sys_intern(str(label) if label is not None else "")))
    return ObjectSet(tuple(spans))
