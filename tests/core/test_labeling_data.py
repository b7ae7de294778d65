"""labeling/*.jsonl: predictions, requests with their edits, annotators, and bad lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.core.errors import InputError
from app.core.formats.labeling.reader import (
    LabelingData,
    RequestKind,
    Split,
    read_labeling,
    to_answer,
)
from app.core.formats.potato.project import load_study
from app.core.model import Kind, Scheme, Study, TraceJudgement
from app.core.objects import BoxRegion, ObjectSet, Span
from tests.potato_project import label, write_project

TIERS = ("small", "big")
SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "radio", "name": "sentiment", "labels": ["pos", "neg", "neu"]},
    {"annotation_type": "multiselect", "name": "topics", "labels": ["a", "b", "c"]},
    {"annotation_type": "likert", "name": "quality", "size": 5},
    {"annotation_type": "image_annotation", "name": "boxes"},
    {"annotation_type": "text", "name": "comment"},
]


def _lines(*records: Any) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def _project(root: Path, *, predictions: str | None = None, requests: str | None = None,
             annotators: str | None = None) -> tuple[Path, Study]:
    items = [{"id": f"i{k}", "text": f"text {k}"} for k in range(4)] + [{"id": 7, "text": ""}]
    write_project(root, schemes=SCHEMES, items=items,
                  annotators={"ann": {"i0": [label("sentiment", "pos")]}})
    folder = root / "labeling"
    folder.mkdir(exist_ok=True)
    for name, text in (("predictions", predictions), ("requests", requests),
                       ("annotators", annotators)):
        if text is not None:
            (folder / f"{name}.jsonl").write_text(text)
    return root, load_study(root)


def _read(root: Path, **files: str) -> LabelingData:
    root, study = _project(root, **files)
    return read_labeling(root, study, TIERS)


def _error(root: Path, **files: str) -> InputError:
    root, study = _project(root, **files)
    with pytest.raises(InputError) as caught:
        read_labeling(root, study, TIERS)
    return caught.value


def _pred(item: Any = "i0", schema: str = "sentiment", tier: str = "small", label: Any = "pos",
          confidence: Any = 0.9, **extra: Any) -> dict[str, Any]:
    return {"item": item, "schema": schema, "tier": tier, "label": label,
            "confidence": confidence, **extra}


def _req(request: str, item: str = "i0", kind: str = "calibration", pi: Any = 0.5,
         split: str | None = "dev", **extra: Any) -> dict[str, Any]:
    out = {"request": request, "item": item, "schema": "sentiment", "kind": kind, "pi": pi,
           "split": split, **extra}
    return {k: v for k, v in out.items() if v is not None}


def test_predictions_are_read_and_indexed(tmp_path: Path) -> None:
    data = _read(tmp_path, predictions=_lines(
        _pred(probs={"pos": 0.9, "neg": 0.1}), _pred(tier="big", label="neg", confidence=1),
        _pred(item="i1", schema="topics", label=["a", "c"], confidence=0),
        _pred(schema="boxes", label=[{"type": "bbox", "label": "cat", "coordinates":
                                      {"x": 0.1, "y": 0.2, "width": 0.3, "height": 0.4}}]),
        _pred(schema="comment", label="free text is kept as it is"),
        {**_pred(item=7, schema="quality", label=4), "model": "extra fields are ignored"}))
    assert len(data.predictions) == 6
    first = data.prediction("sentiment", "i0", "small")
    assert first is not None and first.label == "pos" and first.confidence == 0.9
    assert first.probs == {"pos": 0.9, "neg": 0.1} and first.line == 1
    assert data.prediction("sentiment", "i0", "big").label == "neg"  # type: ignore[union-attr]
    assert data.prediction("sentiment", "i1", "small") is None
    assert data.prediction("quality", "7", "small") is not None  # integer ids read as text
    assert [p.tier for p in data.predictions_for("sentiment")] == ["small", "big"]
    assert set(data.predictions_by_item("sentiment")["i0"]) == {"small", "big"}
    assert data.annotators == {} and data.requests == ()


def test_requests_answers_and_unanswered(tmp_path: Path) -> None:
    data = _read(tmp_path, requests=_lines(
        _req("r1"), _req("r2", item="i1", split="cert", pi=1),
        _req("r1", annotator="alice", label="pos", time="2025-01-01T10:00:00"),
        _req("r3", item="i2", split="cert")))
    r1, r2, r3 = data.requests
    assert (r1.request, r1.annotator, r1.label, r1.answered) == ("r1", "alice", "pos", True)
    assert r1.line == 1 and r1.label_history[0].line == 3
    assert r1.label_history[0].time == "2025-01-01T10:00:00"
    # An unanswered request: no label history, label None.
    assert (r2.annotator, r2.label_history, r2.label, r2.answered) == (None, (), None, False)
    assert r2.pi == 1.0 and r2.split is Split.CERT and r2.kind is RequestKind.CALIBRATION
    assert data.unanswered() == (r2, r3) and data.unanswered("topics") == ()
    assert data.calibration_labels("sentiment") == (r1,)
    assert data.calibration_labels("sentiment", Split.CERT) == ()
    assert data.labels_by_item("sentiment", Split.DEV) == {"i0": {"alice": "pos"}}
    assert data.requests_for("sentiment", split=Split.CERT) == (r2, r3)


def test_edits_are_kept_in_file_order(tmp_path: Path) -> None:
    data = _read(tmp_path, requests=_lines(
        _req("r1", split="cert"),
        _req("r1", split="cert", annotator="alice", label="pos", time=1),
        _req("r1", split="cert", annotator="bob", label="neu", time=2),
        _req("r1", split="cert", annotator="alice", label="neg", time=3),
        _req("r1", split="cert", annotator="alice", time=4),  # no label: adds nothing
        _req("r1", split="cert", annotator="alice", label="pos", time=5)))
    alice, bob = data.requests
    assert [v.label for v in alice.label_history] == ["pos", "neg", "pos"]
    assert [v.line for v in alice.label_history] == [2, 4, 6]
    assert [v.time for v in alice.label_history] == [1.0, 3.0, 5.0]
    assert alice.label == "pos" and alice.edited and not bob.edited
    assert bob.label == "neu"
    assert data.labels_by_item("sentiment", Split.CERT) == {"i0": {"alice": "pos", "bob": "neu"}}


def test_verification_lines_need_no_split_or_pi(tmp_path: Path) -> None:
    data = _read(tmp_path, requests=_lines(
        _req("v1", kind="verification", pi=None, split=None, annotator="alice", label="pos"),
        _req("v1", kind="verification", pi=None, split=None, annotator="alice", label="neg")))
    (v1,) = data.requests
    assert v1.kind is RequestKind.VERIFICATION and v1.pi is None and v1.split is None
    assert [v.label for v in v1.label_history] == ["pos", "neg"]
    assert data.calibration_labels("sentiment") == ()  # verification never certifies


def test_annotators_prestudy_answers(tmp_path: Path) -> None:
    data = _read(tmp_path, annotators=_lines({"annotator": "alice", "age_band": "18-29"},
                                             {"annotator": "bob"}))
    assert data.annotators == {"alice": {"age_band": "18-29"}, "bob": {}}
    error = _error(tmp_path, annotators=_lines({"annotator": "a"}, {"annotator": "a"}))
    assert error.line == 2 and "first at line 1" in str(error)


@pytest.mark.parametrize("pi", [0, -0.2, 1.5, "0.5", True])
def test_inclusion_probability_outside_0_1(tmp_path: Path, pi: Any) -> None:
    error = _error(tmp_path, requests=_lines(_req("r1"), _req("r2", pi=pi)))
    path = tmp_path / "labeling" / "requests.jsonl"
    assert str(error).startswith(f"{path}:2: key 'pi': ")
    assert "(0, 1]" in str(error) and "inclusion probability" in str(error)


def test_prediction_for_an_unknown_item(tmp_path: Path) -> None:
    error = _error(tmp_path, predictions=_lines(_pred(), _pred(item="ghost")))
    path = tmp_path / "labeling" / "predictions.jsonl"
    assert str(error).startswith(f"{path}:2: key 'item': unknown item 'ghost'")


def test_malformed_json_names_its_line(tmp_path: Path) -> None:
    error = _error(tmp_path, predictions=_lines(_pred(), '{"item": "i1", oops}', _pred("i2")))
    assert error.line == 2 and "malformed JSON" in str(error)
    assert error.file == str(tmp_path / "labeling" / "predictions.jsonl")


def test_truncated_last_line(tmp_path: Path) -> None:
    text = _lines(_req("r1")) + json.dumps(_req("r2"))[:25]
    error = _error(tmp_path, requests=text)
    assert error.line == 2 and "truncated last line" in str(error)
    # A complete last line without its newline is fine.
    data = _read(tmp_path, requests=_lines(_req("r1")) + json.dumps(_req("r2")))
    assert len(data.requests) == 2


def test_duplicate_prediction_names_both_lines(tmp_path: Path) -> None:
    error = _error(tmp_path, predictions=_lines(_pred(), _pred("i1"), _pred(label="neg")))
    assert error.line == 3 and "the first at line 1" in str(error)


@pytest.mark.parametrize(("record", "key", "words"), [
    (_pred(tier="huge"), "tier", "unknown tier 'huge'"),
    (_pred(schema="colour"), "schema", "unknown schema 'colour'"),
    (_pred(confidence=1.2), "confidence", "[0, 1]"),
    (_pred(confidence="high"), "confidence", "found string"),
    (_pred(confidence=None), "confidence", "missing field 'confidence'"),
    (_pred(label=None), "label", "missing field 'label'"),
    (_pred(label="great"), "label", "not an option"),
    (_pred(schema="topics", label="a"), "label", "list of label names"),
    (_pred(schema="quality", label=9), "label", "not an option"),
    (_pred(schema="boxes", label=[{"type": "bbox", "coordinates": {"x": 0}}]), "label",
     "object 0"),
    (_pred(probs={"pos": 0.7, "neg": 0.6}), "probs", "sum to 1.3"),
    (_pred(probs={"great": 0.5}), "probs", "not an option"),
    (_pred(probs={"pos": -0.5}), "probs", "probability of 'pos' is -0.5"),
    (_pred(probs=[0.5]), "probs", "an object mapping"),
    (_pred(item=["i0"]), "item", "expected an id"),
    ([1, 2], None, "expected one JSON object per line"),
])
def test_bad_prediction_fields(tmp_path: Path, record: Any, key: str | None,
                               words: str) -> None:
    error = _error(tmp_path, predictions=_lines(_pred("i3"), record))
    assert error.line == 2 and error.key == key, str(error)
    assert words in str(error)


@pytest.mark.parametrize(("record", "key", "words"), [
    (_req("r2", split=None), "split", "missing field 'split'"),
    (_req("r2", split="test"), "split", '"dev" or "cert"'),
    (_req("r2", pi=None), "pi", "missing field 'pi'"),
    (_req("r2", kind="audit"), "kind", '"calibration" or "verification"'),
    (_req("r2", annotator="x", label="great"), "label", "not an option"),
    (_req("r2", time=[1]), "time", "a string or a number"),
    ({"item": "i0", "schema": "sentiment", "kind": "calibration", "pi": 0.5, "split": "dev"},
     "request", "missing field 'request'"),
    (_req("r1", split="cert"), "split", "at line 1"),
    (_req("r1", item="i2"), "item", "at line 1"),
])
def test_bad_request_lines(tmp_path: Path, record: Any, key: str, words: str) -> None:
    error = _error(tmp_path, requests=_lines(_req("r1"), record))
    assert error.line == 2 and error.key == key, str(error)
    assert words in str(error)


def test_missing_files_are_empty(tmp_path: Path) -> None:
    root, study = _project(tmp_path)
    data = read_labeling(root, study, TIERS)
    assert data == LabelingData()
    assert read_labeling(root / "config.yaml", study, TIERS) == LabelingData()


def test_to_answer_builds_model_answers() -> None:
    radio = Scheme("s", "radio", Kind.NOMINAL, labels=("pos", "neg"))
    likert = Scheme("q", "likert", Kind.ORDINAL, scale=("1", "2", "3", "4", "5"))
    slider = Scheme("v", "slider", Kind.ORDINAL, scale=tuple(str(v) for v in range(0, 101, 5)))
    multi = Scheme("m", "multiselect", Kind.MULTILABEL, labels=("a", "b"))
    assert to_answer(radio, "neg") == "neg"
    assert to_answer(likert, 4) == "4" and to_answer(likert, "2") == "2"
    assert to_answer(slider, 55) == "55" and to_answer(slider, "55.0") == "55"
    assert to_answer(multi, ["b", "a", "b"]) == frozenset({"a", "b"})
    assert to_answer(multi, []) == frozenset()
    spans = to_answer(Scheme("e", "span", None), [{"start": 0, "end": 4, "label": "PER"}])
    assert spans == ObjectSet((Span(0, 4, "PER"),))
    boxes = Scheme("b", "image_annotation", Kind.REGIONS)
    box = {"type": "bbox", "label": "cat",
           "coordinates": {"x": 0.1, "y": 0.2, "width": 0.3, "height": 0.4}}
    expected = ObjectSet((BoxRegion("cat", 0.1, 0.2, 0.3, 0.4),))
    assert to_answer(boxes, [box]) == expected
    assert to_answer(boxes, json.dumps([box])) == expected  # Potato's JSON string form
    trace = to_answer(Scheme("r", "process_reward", Kind.TRACE),
                      {"steps": [{"index": 0, "reward": 1}, {"index": 1, "reward": -1}]})
    assert isinstance(trace, TraceJudgement) and trace.labelled() == {"0": "1", "1": "-1"}
    for scheme, bad in ((radio, "maybe"), (radio, True), (slider, 57), (slider, "x"),
                        (multi, "a"), (Scheme("e", "span", None), [{"start": 3, "end": 1}]),
                        (Scheme("c", "text", None), "free text")):
        with pytest.raises(InputError):
            to_answer(scheme, bad)
