"""Span projects written by the real Potato 2.12.1 server, read by Accord's span reader.

The projects (``tests/potato_real/span_projects.py``): spans posted as Potato's span widget
saves them, error_span and extractive_qa answers as their hidden inputs post them, one
project with two declared machine annotators. The reference is Potato's own code: its
``UserState.load`` reads each ``user_state.json``, its ``has_annotated`` says who saved an
item, its ``Item.get_text`` gives L, and its ``_aggregate_span`` (``iaa/span.py`` per item,
then the mean) scores the spans. Only the gathering is corrected, as ``kinds.md`` B §0.1
says it must be: Potato's own report (``expected/iaa.json``) is null for every span scheme.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from potato.annotator_origin import partition
from potato.item_state_management import Item as PotatoItem
from potato.server_utils.iaa import dispatcher
from potato.user_state_management import InMemoryUserState

from app.core.agreement.spans.metrics import span_metrics
from app.core.agreement.spans.reading import SchemeSpans, SpanReader, SpanScheme
from app.core.agreement.spans.table import build_table
from app.core.formats.potato.project import load_study

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_server"
METRICS = {"token_level_kappa": "token_level_kappa", "span_f1_exact": "span_f1_exact",
           "span_f1_partial": "span_f1_partial", "char_alpha": "krippendorff_alpha_u"}


@pytest.fixture(autouse=True)
def _potato_warnings() -> Iterator[None]:
    """simpledorff (Potato's α) calls pandas in a way pandas warns about; the suite turns
    warnings into errors, which Potato would catch and answer NaN."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Starting with pandas version")
        yield


def _project(name: str) -> tuple[Path, dict[str, Any], dict[str, dict[str, Any]]]:
    root = DATA / name
    config = yaml.safe_load((root / "config.yaml").read_text())
    records = {r["id"]: r for r in map(json.loads, (root / "data" / "items.jsonl")
                                       .read_text().splitlines())}
    return root, config, records


def accord_spans(name: str) -> dict[str, SchemeSpans]:
    root, config, records = _project(name)
    schemes = [SpanScheme(s["name"], s["annotation_type"], s)
               for s in config["annotation_schemes"]]
    reader = SpanReader(schemes, items=records)
    for state_file in sorted(root.glob("annotation_output/*/user_state.json")):
        state = json.loads(state_file.read_text())
        reader.add(state["user_id"], state, state_file)
    return reader.finish(records, config["item_properties"]["text_key"])


def potato_rows(name: str, scheme: str, users: set[str] | None = None
                ) -> tuple[dict[str, dict[str, list[Any]]], Any]:
    """Potato's intended gathering (``_gather_spans``) on Potato's own loaded states, with
    the spans grouped by their schema (the step 2.12.1 misses)."""
    root, config, records = _project(name)
    states = {p.name: InMemoryUserState.load(str(p))
              for p in sorted((root / "annotation_output").iterdir())}
    if users is not None:
        states = {u: s for u, s in states.items() if u in users}
    kind = next(s["annotation_type"] for s in config["annotation_schemes"]
                if s["name"] == scheme)
    rows: dict[str, dict[str, list[Any]]] = {}
    for iid in records:
        per_user: dict[str, list[Any]] = {}
        for uid, state in states.items():
            if kind == "span":
                spans = [s for s in state.get_span_annotations(iid) or {}
                         if s.get_schema() == scheme]
            else:
                spans = _label_spans(state, iid, scheme, kind)
            if spans:
                per_user[uid] = spans
            elif state.has_annotated(iid):
                per_user[uid] = []
        if any(per_user.values()):
            rows[iid] = per_user

    def find_item(iid: str) -> PotatoItem:
        return PotatoItem(iid, records[iid])

    return rows, find_item


def _label_spans(state: Any, iid: str, scheme: str, kind: str) -> list[dict[str, Any]]:
    """error_span's errors and extractive_qa's answer, read here from the label value."""
    for label, value in (state.get_label_annotations(iid) or {}).items():
        if label.get_schema() != scheme:
            continue
        data = json.loads(value)
        if kind == "extractive_qa":
            return [] if data["unanswerable"] else [
                {"start": data["start"], "end": data["end"], "name": "answer"}]
        return [{"start": e["start"], "end": e["end"], "name": e["type"]}
                for e in data["errors"]]
    return []


def _check(result: Any, report: dict[str, Any]) -> None:
    assert result.n_items == report["n_items"]
    assert result.n_annotators == report["n_annotators"]
    for ours, theirs in METRICS.items():
        if report[theirs] != report[theirs]:  # NaN
            assert result.values[ours] is None
        else:
            assert result.values[ours] == pytest.approx(report[theirs], abs=1e-9), ours


@pytest.mark.parametrize("scheme", ["entities", "errors", "answer"])
def test_span_project_equals_potatos_functions_on_its_own_reading(scheme: str) -> None:
    read = accord_spans("spans")[scheme]
    table = build_table(read.answers, read.lengths)
    result = span_metrics(table)
    rows, find_item = potato_rows("spans", scheme)
    assert set(rows) == set(table.item_ids) | set(_one_annotator(rows))
    report = dispatcher._aggregate_span(rows, find_item)
    _check(result, report)
    assert result.n_items >= 9
    assert read.unreadable == [] and read.cannot_score is None


def _one_annotator(rows: dict[str, dict[str, list[Any]]]) -> list[str]:
    return [iid for iid, by in rows.items() if len(by) < 2]


def test_the_project_exercises_what_the_reader_must_get_right() -> None:
    entities = accord_spans("spans")["entities"]
    # n09 has no entity: saved by everyone, marked by nobody, dropped
    assert entities.answers["n09"] == {"alice": [], "bob": [], "carol": []}
    table = build_table(entities.answers, entities.lengths)
    assert "n09" not in table.item_ids and table.left_out == {"nothing_marked": 1}
    # someone saved an item with no span (the radio answer) and counts with []
    assert any(spans == [] for iid in table.item_ids
               for spans in entities.answers[iid].values())
    # a span marked and deleted again is not read
    assert all(e - s <= 20 for by in entities.answers.values()
               for spans in by.values() for s, e, _ in spans)
    assert entities.lengths["n00"] == len("Alice Smith joined Acme Corp in Paris last spring.")
    # Potato's own report has no number for any span scheme (its gathering is dead)
    iaa = json.loads((DATA / "spans" / "expected" / "iaa.json").read_text())
    for scheme in ("entities", "errors", "answer"):
        assert iaa["schemas"][scheme]["metrics"]["n_items"] == 0
        assert iaa["schemas"][scheme]["metrics"]["span_f1_exact"] is None
    assert accord_spans("spans")["answer"].notes == []  # passage_field is the text_key


def test_machine_raters_partitions_equal_potatos() -> None:
    study = load_study(DATA / "span_machines")
    root = DATA / "span_machines"
    states = {p.name: InMemoryUserState.load(str(p))
              for p in sorted((root / "annotation_output").iterdir())}
    groups = partition(states)
    people, machines = set(groups["human"]), set(groups["machine"])
    assert machines == set(study.machine_raters) == {"ner_tool", "llm_ner"}
    read = accord_spans("span_machines")["entities"]
    for users in (people, machines, people | machines):
        result = span_metrics(build_table(read.answers, read.lengths, annotators=users))
        rows, find_item = potato_rows("span_machines", "entities", users)
        _check(result, dispatcher._aggregate_span(rows, find_item))
    human = span_metrics(build_table(read.answers, read.lengths, annotators=people))
    machine = span_metrics(build_table(read.answers, read.lengths, annotators=machines))
    assert machine.values["span_f1_exact"] != human.values["span_f1_exact"]
    iaa = json.loads((root / "expected" / "iaa.json").read_text())
    assert iaa["annotators"]["machine"] == sorted(machines)
    assert iaa["partitions"]["human_human"]["schemas"]["entities"]["metrics"]["n_items"] == 0


@pytest.mark.parametrize("name", ["spans", "span_machines"])
def test_the_project_reader_holds_the_same_spans(name: str) -> None:
    """Opening the project (``load_study``) stores what the span reader reads: the spans
    in stored order, ``[]`` for an annotator who saved the item and marked nothing, and
    error_span's and extractive_qa's label values as spans."""
    study = load_study(DATA / name)
    for scheme, read in accord_spans(name).items():
        stored = {item: {a: [(o.start, o.end, o.label) for o in answer.objects]
                         for a, answer in by.items()}
                  for item, by in study.answers_for(scheme).items()}
        assert stored == read.answers, scheme
