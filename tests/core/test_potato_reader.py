"""The Potato reader: every answer shape of formats.md, its units, and its rules."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from app.core.errors import InputError
from app.core.formats.potato.project import load_study
from app.core.model import TraceJudgement
from app.core.objects import (
    BoxRegion,
    Cuboid,
    EllipseRegion,
    Landmark,
    Mask,
    ObjectSet,
    Point3D,
    PolygonRegion,
    Segment,
)
from tests.potato_project import LIKERT, RADIO, label, simple_items, structured, write_project


def _one(tmp_path: Path, scheme: dict[str, object], pairs: list[list[object]],
         **kw: object) -> object:
    """Write a one-item, one-annotator project and return that answer."""
    write_project(tmp_path, schemes=[scheme], items=simple_items(1),
                  annotators={"ann": {"item-0": pairs}}, **kw)  # type: ignore[arg-type]
    study = load_study(tmp_path)
    return study.answers[str(scheme["name"])].get("item-0", {}).get("ann")


def test_radio_likert_multiselect_slider(tmp_path: Path) -> None:
    schemes = [RADIO, LIKERT,
               {"annotation_type": "multiselect", "name": "topics", "labels": ["a", "b", "c"]},
               {"annotation_type": "slider", "name": "score", "min_value": 0, "max_value": 10,
                "starting_value": 5}]
    write_project(tmp_path, schemes=schemes, items=simple_items(2), annotators={
        "ann": {"item-0": [label("sentiment", "neg"), label("quality", "4", "4"),
                           label("topics", "a"), label("topics", "c", "true"),
                           label("topics", "b", False), label("score", "slider", "7")],
                "item-1": [label("sentiment", "pos", "0"), label("topics", "a", "false")]},
    })
    study = load_study(tmp_path)
    assert study.answers["sentiment"]["item-0"]["ann"] == "neg"
    assert "item-1" not in study.answers["sentiment"]  # value "0" means not chosen
    assert study.answers["quality"]["item-0"]["ann"] == "4"
    assert study.schemes["quality"].scale == ("1", "2", "3", "4", "5")
    assert study.answers["topics"]["item-0"]["ann"] == frozenset({"a", "c"})
    # Entries present but nothing chosen: an empty answer, not a missing one.
    assert study.answers["topics"]["item-1"]["ann"] == frozenset()
    assert study.answers["score"]["item-0"]["ann"] == "7"
    assert study.schemes["score"].scale[0] == "0" and study.schemes["score"].scale[-1] == "10"


def test_single_choice_repair_takes_latest_select(tmp_path: Path) -> None:
    changes = [
        {"timestamp": 100.0, "schema_name": "sentiment", "label_name": "neg", "action": "select"},
        {"timestamp": 200.0, "schema_name": "sentiment", "label_name": "pos", "action": "select"},
        {"timestamp": 300.0, "schema_name": "other", "label_name": "neg", "action": "select"},
    ]
    write_project(tmp_path, schemes=[RADIO], items=simple_items(2), annotators={
        "ann": {"item-0": [label("sentiment", "pos"), label("sentiment", "neg")],
                "item-1": [label("sentiment", "pos"), label("sentiment", "neu")]},
    }, behaviour={"ann": {"item-0": {"annotation_changes": changes}}})
    study = load_study(tmp_path)
    assert study.answers["sentiment"]["item-0"]["ann"] == "pos"  # latest select
    assert study.answers["sentiment"]["item-1"]["ann"] == "neu"  # no log: last entry
    assert study.single_choice_repairs == {"sentiment": 2}


def test_likert_value_off_the_scale_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"'7' is not on the scale"):
        _one(tmp_path, LIKERT, [label("quality", "7", "7")])


def test_image_shapes_and_mask(tmp_path: Path) -> None:
    shapes = [
        {"type": "bbox", "label": "car", "coordinates": {"x": 0.1, "y": 0.2, "width": 0.3,
                                                         "height": 0.4}},
        {"type": "polygon", "label": "road", "coordinates": [{"x": 0, "y": 0}, {"x": 1, "y": 0},
                                                             {"x": 1, "y": 1}]},
        {"type": "ellipse", "label": "sign", "coordinates": {"cx": 0.5, "cy": 0.5, "rx": 0.1,
                                                             "ry": 0.2, "angle": 30}},
        {"type": "mask", "label": "sky", "rle": {"counts": [2, 3, 1], "size": [2, 3]}},
        {"type": "landmark", "label": "eye", "coordinates": {"x": 0.5, "y": 0.5}},
    ]
    scheme = {"annotation_type": "image_annotation", "name": "objects", "labels": ["car"]}
    answer = _one(tmp_path, scheme, [structured("objects", shapes, under_data=True)])
    assert isinstance(answer, ObjectSet)
    box, polygon, ellipse, mask, landmark = answer.objects  # landmarks are read (Potato 2.12)
    assert landmark == Landmark("eye", 0.5, 0.5)
    assert box == BoxRegion("car", 0.1, 0.2, 0.3, 0.4)
    assert polygon == PolygonRegion("road", ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0)))
    assert ellipse == EllipseRegion("sign", 0.5, 0.5, 0.1, 0.2, 30.0)
    assert isinstance(mask, Mask) and mask.to_array().sum() == 3


def _rejected(tmp_path: Path, scheme: dict[str, object], bad: list[object],
              message: str) -> str:
    """A bad object rejects that one answer; the rest of the project is still read."""
    name = str(scheme["name"])
    under_data = scheme["annotation_type"] != "temporal_grounding"
    write_project(tmp_path, schemes=[scheme], items=simple_items(2), annotators={
        "ann": {"item-0": [structured(name, bad, under_data=under_data)],
                "item-1": [structured(name, [], under_data=under_data)]},
        "other": {"item-0": [structured(name, [], under_data=under_data)]}})
    study = load_study(tmp_path)
    assert "ann" not in study.answers[name]["item-0"]
    assert study.answers[name]["item-0"]["other"] == ObjectSet(())
    assert study.answers[name]["item-1"]["ann"] == ObjectSet(())
    (text,) = study.rejected[name]
    assert message in text
    assert "user_state.json" in text and "item 'item-0'" in text and "annotator 'ann'" in text
    return text


def test_mask_runs_must_cover_the_image(tmp_path: Path) -> None:
    shapes = [{"type": "mask", "label": "sky", "rle": {"counts": [2, 3], "size": [2, 3]}}]
    scheme = {"annotation_type": "image_annotation", "name": "objects"}
    text = _rejected(tmp_path, scheme, shapes, "runs sum to 5, expected h·w = 2·3 = 6")
    assert "object 0" in text


def test_cuboid_quaternion_is_normalized(tmp_path: Path) -> None:
    objects = [{"type": "cuboid_3d", "label": "car", "coordinates": {
        "center": [1, 2, 0.5], "size": [4, 2, 1.5], "rotation": [0, 0, 2, 2]}},
        {"type": "point_3d", "label": "pole", "coordinates": [3, 4, 0]}]
    scheme = {"annotation_type": "spatial_annotation", "name": "objects"}
    answer = _one(tmp_path, scheme, [structured("objects", objects, under_data=True)])
    assert isinstance(answer, ObjectSet)
    cuboid, point = answer.objects
    assert isinstance(cuboid, Cuboid)
    s = math.sqrt(0.5)
    assert cuboid.rotation == pytest.approx((0, 0, s, s))
    assert point == Point3D("pole", (3.0, 4.0, 0.0))


@pytest.mark.parametrize(("coordinates", "message"), [
    ({"center": [0, 0, 0], "size": [1, -1, 1], "rotation": [0, 0, 0, 1]}, "must not be negative"),
    ({"center": [0, 0, 0], "size": [1, 1, 1], "rotation": [0, 0, 0, 0]}, "no direction"),
    ({"center": [0, 0, "inf"], "size": [1, 1, 1], "rotation": [0, 0, 0, 1]}, "must be finite"),
])
def test_bad_cuboids_name_item_annotator_and_object(tmp_path: Path, coordinates: object,
                                                    message: str) -> None:
    good = {"type": "cuboid_3d", "label": "car", "coordinates": {
        "center": [5, 5, 0], "size": [1, 1, 1], "rotation": [0, 0, 0, 1]}}
    bad = {"type": "cuboid_3d", "label": "car", "coordinates": coordinates}
    scheme = {"annotation_type": "spatial_annotation", "name": "objects"}
    text = _rejected(tmp_path, scheme, [good, bad], message)
    assert "object 1" in text


def test_audio_seconds_and_tiers_milliseconds(tmp_path: Path) -> None:
    schemes = [{"annotation_type": "audio_annotation", "name": "speech"},
               {"annotation_type": "tiered_annotation", "name": "turns"}]
    write_project(tmp_path, schemes=schemes, items=simple_items(1), annotators={"ann": {
        "item-0": [
            structured("speech", {"segments": [{"id": "s1", "start_time": 1.5, "end_time": 2.0,
                                                "label": "A"}]}, under_data=True),
            structured("turns", {"annotations": {"speaker": [
                {"id": "t1", "tier": "speaker", "start_time": 1500, "end_time": 2750,
                 "label": "A", "parent_id": None}]}}, under_data=True),
        ]}})
    study = load_study(tmp_path)
    speech = study.answers["speech"]["item-0"]["ann"]
    turns = study.answers["turns"]["item-0"]["ann"]
    assert isinstance(speech, ObjectSet) and isinstance(turns, ObjectSet)
    assert speech.objects == (Segment(1.5, 2.0, "A", None, "s1", None),)
    assert turns.objects == (Segment(1.5, 2.75, "A", "speaker", "t1", None),)


def test_reversed_segment_is_rejected(tmp_path: Path) -> None:
    scheme = {"annotation_type": "audio_annotation", "name": "speech"}
    _rejected(tmp_path, scheme, {"segments": [{"start_time": 3, "end_time": 2,  # type: ignore[arg-type]
                                              "label": "A"}]}, "ends before it starts (3.0 > 2.0)")


def test_temporal_grounding_rules(tmp_path: Path) -> None:
    scheme = {"annotation_type": "temporal_grounding", "name": "events"}
    answer = _one(tmp_path, scheme, [structured("events", {"events": {
        "door opens": {"start": 1.0, "end": 2.5},
        "bang": {"start": 4.0},
        "nothing": {},
    }})])
    assert isinstance(answer, ObjectSet)
    assert answer.objects == (Segment(1.0, 2.5, "door opens"), Segment(4.0, 4.0, "bang"))


def test_empty_structured_answer_is_an_answer(tmp_path: Path) -> None:
    scheme = {"annotation_type": "audio_annotation", "name": "speech"}
    assert _one(tmp_path, scheme, [structured("speech", {"segments": []}, under_data=True)]) \
        == ObjectSet(())


def test_trace_schemes_step_labels(tmp_path: Path) -> None:
    schemes = [
        {"annotation_type": "process_reward", "name": "pr"},
        {"annotation_type": "process_reward", "name": "pr_neutral", "mode": "per_step",
         "allow_neutral": True},
        {"annotation_type": "trajectory_eval", "name": "te"},
        {"annotation_type": "tool_call_review", "name": "tcr"},
        {"annotation_type": "failure_attribution", "name": "fa"},
    ]
    pr = {"steps": [{"index": 0, "reward": 1}, {"index": 1, "reward": 0},
                    {"index": 2, "reward": -1}, {"index": 3, "reward": None}]}
    write_project(tmp_path, schemes=schemes, items=simple_items(1), annotators={"ann": {
        "item-0": [
            structured("pr", pr), structured("pr_neutral", pr),
            structured("te", {"steps": [{"step_index": 0, "correctness": "correct"},
                                        {"step_index": 1, "correctness": None},
                                        {"step_index": 2, "correctness": "incorrect",
                                         "error_type": "tool", "severity": "major"}]}),
            structured("tcr", [{"index": 5, "step": 2, "verdict": "wrong_args"},
                               {"index": 1, "step": 0, "verdict": "correct"}]),
            structured("fa", {"responsible_agent": "planner", "decisive_step": 3,
                              "reason": "bad plan"}),
        ]}})
    answers = {name: load_study(tmp_path).answers[name]["item-0"]["ann"] for name in
               ("pr", "pr_neutral", "te", "tcr", "fa")}
    assert all(isinstance(a, TraceJudgement) for a in answers.values())
    # 0 without a neutral option means "not marked"; with allow_neutral it is a label.
    assert answers["pr"].labelled() == {"0": "1", "2": "-1"}  # type: ignore[union-attr]
    assert answers["pr_neutral"].labelled() == {"0": "1", "1": "0", "2": "-1"}  # type: ignore[union-attr]
    assert answers["te"].labelled() == {"0": "correct", "2": "incorrect"}  # type: ignore[union-attr]
    assert answers["te"].details["2"] == {"error_type": "tool", "severity": "major"}  # type: ignore[union-attr]
    # Keyed by index, not by position in the list.
    assert answers["tcr"].labelled() == {"5": "wrong_args", "1": "correct"}  # type: ignore[union-attr]
    assert answers["fa"].labelled() == {"responsible_agent": "planner",  # type: ignore[union-attr]
                                        "decisive_step": "step 3"}


def test_trace_steps_come_from_the_data_file(tmp_path: Path) -> None:
    items = [{"id": "t1", "text": "Refund please", "steps": [
        {"role": "assistant", "content": "Looking up the order.",
         "tool_calls": [{"name": "lookup_order", "arguments": {"order": 42}}]},
        {"role": "tool", "content": "order 42: shipped"},
    ]}]
    write_project(tmp_path, schemes=[{"annotation_type": "process_reward", "name": "pr"}],
                  items=items, annotators={"ann": {}})
    steps = load_study(tmp_path).items["t1"].steps["steps"]
    assert steps[0].text == "[assistant] Looking up the order."
    assert steps[0].tool_call == 'lookup_order({"order": 42})'
    assert steps[1].index == 1 and steps[1].tool_call is None


def test_potato_1x_annotated_instances(tmp_path: Path) -> None:
    write_project(tmp_path, schemes=[RADIO], items=simple_items(2), annotators={})
    folder = tmp_path / "annotations" / "old_timer"
    folder.mkdir(parents=True)
    lines = [{"id": "item-0", "displayed_text": "x", "label_annotations": {
        "sentiment": {"neu": "true"}}, "span_annotations": [], "behavioral_data": {}}]
    (folder / "annotated_instances.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines))
    study = load_study(tmp_path)
    assert study.annotators == ("old_timer",)
    assert study.answers["sentiment"]["item-0"]["old_timer"] == "neu"


@pytest.mark.parametrize("suffix", ["csv", "tsv", "json", "jsonl"])
def test_data_file_types(tmp_path: Path, suffix: str) -> None:
    write_project(tmp_path, schemes=[RADIO], items=simple_items(1),
                  annotators={"ann": {"item-0": [label("sentiment", "pos")]}},
                  extra_config={"data_files": [f"data/items.{suffix}"]})
    path = tmp_path / "data" / f"items.{suffix}"
    rows = [{"id": "a1", "text": "first"}, {"id": "item-0", "text": "second, with a comma"}]
    if suffix == "json":
        path.write_text(json.dumps(rows))
    elif suffix == "jsonl":
        path.write_text("\n".join(json.dumps(r) for r in rows))
    else:
        sep = "\t" if suffix == "tsv" else ","
        quote = (lambda s: f'"{s}"') if suffix == "csv" else (lambda s: s)
        path.write_text("id" + sep + "text\n" + "".join(
            f"{r['id']}{sep}{quote(r['text'])}\n" for r in rows))
    study = load_study(tmp_path)
    assert sorted(study.items) == ["a1", "item-0"]
    assert study.items["item-0"].text == "second, with a comma"


def test_media_paths_resolve_inside_the_project(tmp_path: Path) -> None:
    (tmp_path / "media").mkdir(parents=True)
    (tmp_path / "media" / "a.png").write_bytes(b"png")
    items = [{"id": "i1", "text": "x", "image": "media/a.png"},
             {"id": "i2", "text": "y", "image": "https://example.org/b.png"},
             {"id": "i3", "text": "z", "image": "media/missing.png"}]
    scheme = {"annotation_type": "image_annotation", "name": "objects", "source_field": "image"}
    write_project(tmp_path, schemes=[scheme], items=items, annotators={"ann": {}})
    study = load_study(tmp_path)
    assert study.items["i1"].media["image"] == (tmp_path / "media" / "a.png").resolve()
    assert study.items["i2"].media == {} and study.items["i3"].media == {}
    assert any("1 items name a 'image' file" in note for note in study.notes)


def test_answers_to_unknown_items_and_schemes_are_counted(tmp_path: Path) -> None:
    write_project(tmp_path, schemes=[RADIO], items=simple_items(1), annotators={"ann": {
        "item-0": [label("sentiment", "pos"), label("removed_scheme", "x")],
        "consent_page": [label("consent", "yes")],
    }})
    study = load_study(tmp_path)
    assert study.answers["sentiment"] == {"item-0": {"ann": "pos"}}
    assert any("not items of the data files" in n for n in study.notes)
    assert any("schemes not in the config" in n for n in study.notes)


def test_phase_schemes_are_read(tmp_path: Path) -> None:
    write_project(tmp_path, schemes=[RADIO], items=simple_items(1), annotators={"ann": {
        "item-0": [label("later", "b")]}}, extra_config={"phases": {
            "consent": {"type": "consent", "annotation_schemes": [
                {"annotation_type": "radio", "name": "agree", "labels": ["yes"]}]},
            "main2": {"type": "annotation", "annotation_schemes": [
                {"annotation_type": "radio", "name": "later", "labels": ["a", "b"]}]},
        }})
    study = load_study(tmp_path)
    assert list(study.schemes) == ["sentiment", "later"]
    assert study.answers["later"]["item-0"]["ann"] == "b"
