"""The span reader's rules on hand-made user states (the server-written projects are in
``test_span_potato_server.py``): who saved an item, label-value spans, what cannot be
read, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from potato.trial_timing import excuses_required_answer

from app.core.agreement.spans.reading import (
    SpanReader,
    SpanScheme,
    label_value_spans,
    potato_text,
    saved_items,
)
from app.core.errors import InputError

FILE = Path("annotation_output/x/user_state.json")
SCHEMES = [SpanScheme("ner", "span"), SpanScheme("err", "error_span"),
           SpanScheme("qa", "extractive_qa"), SpanScheme("tree", "tree_annotation"),
           SpanScheme("coref", "coreference", {"span_schema": "ner"}),
           SpanScheme("mood", "radio")]


def _span(iid: str, start: Any, end: Any, name: str = "PER", schema: str = "ner"
          ) -> list[Any]:
    return [{"schema": schema, "name": name, "title": name, "start": start, "end": end,
             "id": f"{schema}_{name}_{start}_{end}"}, 1]


def _read(states: dict[str, dict[str, Any]]) -> dict[str, Any]:
    reader = SpanReader(SCHEMES, items={"a", "b", "c"})
    for user, state in states.items():
        reader.add(user, state, FILE)
    records = {"a": {"id": "a", "text": "Anna met Ben."}, "b": {"id": "b", "body": "xy"},
               "c": {"id": "c", "text": ["a", "dialogue"]}}
    return reader.finish(records, "text")


def test_who_saved_an_item_counts_with_no_span() -> None:
    read = _read({
        "u1": {"instance_id_to_span_to_value": {"a": [_span("a", 0, 4)]}},
        "u2": {"instance_id_to_label_to_value": {"a": [[{"schema": "mood", "name": "x"}, "x"]]}},
        "u3": {"instance_id_to_span_to_value": {"a": []}},  # marked, then deleted
        "u4": {"instance_id_to_trial": {"a": {"outcome": "timeout"}}},
        "u5": {"instance_id_to_trial": {"a": {"outcome": "timeout",
                                              "flags": ["timeout_too_early"]}}},
        "u6": {"instance_id_to_span_to_value": {"zz": [_span("zz", 0, 1)]}},
    })
    assert read["ner"].answers == {"a": {"u1": [(0, 4, "PER")], "u2": [], "u3": [],
                                         "u4": []}}
    assert read["ner"].lengths == {"a": len("Anna met Ben.")}


@pytest.mark.parametrize("record", [
    {"outcome": "timeout"}, {"outcome": "timeout", "flags": ["not_served"]},
    {"outcome": "completed"}, {"outcome": "completed", "flags": ["regions_incomplete"]},
    {"outcome": "response"}, None])
def test_a_timed_trial_saves_the_item_as_potato_decides(record: Any) -> None:
    state = {"instance_id_to_trial": {"a": record}}
    assert ("a" in saved_items(state)) == excuses_required_answer(record)


def test_label_values_hold_spans_or_say_why_not() -> None:
    errors = json.dumps({"errors": [{"start": 0, "end": 4, "type": "spelling"},
                                    {"start": 9, "end": 12, "type": "grammar"}], "score": 9})
    assert label_value_spans("error_span", errors) == (
        [(0, 4, "spelling"), (9, 12, "grammar")], None)
    assert label_value_spans("extractive_qa", {"start": 2, "end": 5, "unanswerable": False}) \
        == ([(2, 5, "answer")], None)
    assert label_value_spans("extractive_qa", '{"start":-1,"end":-1,"unanswerable":true}') \
        == ([], None)
    assert label_value_spans("error_span", "{not json")[1] is not None
    assert label_value_spans("error_span", '{"errors":[{"start":"x","end":2}]}')[1] == \
        "error 0 has no integer offsets"
    read = _read({
        "u1": {"instance_id_to_label_to_value": {"a": [
            [{"schema": "err", "name": "err"}, errors],
            [{"schema": "qa", "name": "qa"}, '{"start": 1.5, "end": 3}']]}},
        "u2": {"instance_id_to_label_to_value": {"a": [[{"schema": "mood", "name": "x"}, 1]]}},
    })
    assert read["err"].answers == {"a": {"u1": [(0, 4, "spelling"), (9, 12, "grammar")],
                                         "u2": []}}
    assert read["qa"].answers == {"a": {"u2": []}}  # u1's answer unreadable: left out
    assert read["qa"].n_unreadable == 1
    assert "annotator 'u1', item 'a'" in read["qa"].unreadable[0]
    assert read["tree"].cannot_score is not None and "not character offsets" in \
        read["tree"].cannot_score
    assert "spans of 'ner', scored there" in read["coref"].notes[0]


def test_potatos_text_and_its_length() -> None:
    assert potato_text({"id": "1", "body": "hello"}, "body") == "hello"
    assert potato_text({"id": "1", "content": "c", "title": "t"}, None) == "c"
    assert potato_text({"n": 3, "id": "1"}, "text") == "1"  # the first string field
    read = _read({"u1": {"instance_id_to_span_to_value": {
        "b": [_span("b", 0, 1)], "c": [_span("c", 0, 1)]}},
        "u2": {"instance_id_to_span_to_value": {"b": [], "c": []}}})
    assert read["ner"].lengths == {"b": 1, "c": 0}  # b: its id "b"; c: a list, no text


@pytest.mark.parametrize("state, key", [
    ({"instance_id_to_span_to_value": {"a": [_span("a", "one", 4)]}},
     "instance_id_to_span_to_value.a.ner"),
    ({"instance_id_to_span_to_value": {"a": [["not a span", 1]]}},
     "instance_id_to_span_to_value.a"),
    ({"instance_id_to_span_to_value": {"a": {"x": 1}}}, "instance_id_to_span_to_value.a"),
    ({"instance_id_to_span_to_value": []}, "instance_id_to_span_to_value"),
])
def test_bad_input_names_the_file_and_key(state: dict[str, Any], key: str) -> None:
    with pytest.raises(InputError) as error:
        _read({"u1": state})
    assert error.value.file == str(FILE) and error.value.key == key
