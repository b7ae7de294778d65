"""``accord import labelstudio``: Label Studio JSON exports written by hand following
Label Studio's documented result format (percent of ``original_width``/``original_height``,
rectangles rotated about their top-left corner, audio ``start``/``end`` in seconds), with
brush masks encoded by label-studio-converter's own ``mask2rle``, read back through the
importer, the written Potato project and Accord's own reader."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from app.core.formats.importers.label_studio_rle import decode_mask
from app.core.formats.potato.project import load_study
from app.core.objects import BoxRegion, EllipseRegion, Landmark, Mask, PolygonRegion, Segment
from tests.core.importers.support import (
    import_into_occupied,
    potato_project,
    rounded_agreement,
    run_import,
    stored,
    write_png,
)

W, H = 200, 100
UPLOAD = "/data/upload/3/8f3c2a1b-"

# ------------------------------------------------------------------------------ helpers


def _brush(mask: np.ndarray) -> list[int]:
    """Label Studio's brush RLE of ``mask``, by label-studio-converter (the oracle)."""
    brush = pytest.importorskip("label_studio_converter.brush")
    rle: list[int] = brush.mask2rle(mask.astype(np.uint8) * 255)
    return rle


def _rows(y0: int, y1: int) -> np.ndarray:
    pixels = np.zeros((H, W), dtype=bool)
    pixels[y0:y1, 10:190] = True
    return pixels


def _pct(px: float, size: int) -> float:
    return 100.0 * px / size


# ------------------------------------------------------------------- Label Studio results


def _image_result(rid: str, name: str, kind: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"id": rid, "from_name": name, "to_name": "image", "type": kind, "origin": "manual",
            "original_width": W, "original_height": H, "image_rotation": 0, "value": value}


def _rect(rid: str, label: str, x: float, y: float, w: float, h: float, rotation: float = 0.0,
          name: str = "box") -> dict[str, Any]:
    return _image_result(rid, name, "rectanglelabels", {
        "x": _pct(x, W), "y": _pct(y, H), "width": _pct(w, W), "height": _pct(h, H),
        "rotation": rotation, "rectanglelabels": [label]})


def _poly(rid: str, label: str, points: list[tuple[float, float]]) -> dict[str, Any]:
    return _image_result(rid, "outline", "polygonlabels", {
        "points": [[_pct(x, W), _pct(y, H)] for x, y in points], "closed": True,
        "polygonlabels": [label]})


def _paint(rid: str, label: str, mask: np.ndarray) -> dict[str, Any]:
    return _image_result(rid, "paint", "brushlabels",
                         {"format": "rle", "rle": _brush(mask), "brushlabels": [label]})


def _choice(name: str, *values: str) -> dict[str, Any]:
    return {"id": f"c_{name}", "from_name": name, "to_name": "text", "type": "choices",
            "origin": "manual", "value": {"choices": list(values)}}


def _rating(value: int) -> dict[str, Any]:
    return {"id": "r", "from_name": "quality", "to_name": "text", "type": "rating",
            "origin": "manual", "value": {"rating": value}}


def _segment(rid: str, start: float, end: float, label: str) -> dict[str, Any]:
    return {"id": rid, "from_name": "speech", "to_name": "audio", "type": "labels",
            "origin": "manual", "original_length": 5.0,
            "value": {"start": start, "end": end, "channel": 0, "labels": [label]}}


ANN = 1  # a bare user id: the e-mail comes from an expanded user elsewhere in the export
BEN = {"id": 2, "email": "ben@lab.org", "first_name": "Ben", "last_name": ""}
CY = "cy@lab.org"


def _annotation(n: int, by: Any, results: list[dict[str, Any]], *,
                cancelled: bool = False) -> dict[str, Any]:
    return {"id": n, "completed_by": by, "result": results, "was_cancelled": cancelled,
            "ground_truth": False, "created_at": f"2025-03-0{n % 9 + 1}T10:00:00.000Z",
            "updated_at": f"2025-03-0{n % 9 + 1}T10:05:00.000Z", "lead_time": 12.5}


def _tasks() -> list[dict[str, Any]]:
    """The study: three images and a clip, by ann, ben and cy (ann's e-mail is learnt from
    task 2, where the export expands the user), plus a model's prediction."""
    return [
        {"id": 11, "data": {"image": f"{UPLOAD}a.png", "text": "first"}, "annotations": [
            _annotation(1, ANN, [_rect("r1", "car", 20, 10, 60, 30), _paint("p1", "road",
                        _rows(60, 100)), _choice("sentiment", "pos"), _rating(4)]),
            _annotation(2, BEN, [_rect("r2", "car", 22, 10, 60, 32), _paint("p2", "road",
                        _rows(55, 100)), _choice("sentiment", "pos"), _rating(5)]),
            _annotation(3, CY, [_rect("r3", "car", 20, 10, 60, 30, rotation=15.0),
                                _choice("sentiment", "neg"), _rating(2)])],
         "predictions": [{"model_version": "yolo", "score": 0.9,
                          "result": [_rect("m1", "car", 21, 11, 60, 30)]}]},
        {"id": 12, "data": {"image": f"{UPLOAD}b.png"}, "annotations": [
            _annotation(4, {"id": 1, "email": "ann@lab.org"}, [
                _rect("r4", "person", 100, 20, 20, 50),
                _poly("g4", "person", [(100, 20), (120, 20), (110, 70)]),
                _choice("sentiment", "neg"), _rating(3)]),
            _annotation(5, BEN, [_rect("r5", "person", 102, 22, 20, 48),
                                 _poly("g5", "person", [(101, 21), (120, 21), (111, 70)]),
                                 _choice("sentiment", "neg"), _rating(3)]),
            _annotation(6, CY, [_rect("r6", "person", 0, 0, 5, 5)], cancelled=True)]},
        {"id": 13, "data": {"image": f"{UPLOAD}c.png"}, "annotations": [
            _annotation(7, ANN, [_choice("sentiment", "neu"), _choice("tags", "x", "y")]),
            _annotation(8, BEN, [_rect("r8", "sign", 150, 5, 10, 10), _choice("tags", "x"),
                                 _choice("sentiment", "neu")])]},
        {"id": 14, "data": {"audio": f"{UPLOAD}clip.wav"}, "annotations": [
            _annotation(9, ANN, [_segment("s1", 0.5, 2.0, "speech"),
                                 _segment("s2", 3.0, 3.0, "music")]),
            _annotation(10, BEN, [_segment("s3", 0.6, 2.1, "speech")]),
            _annotation(11, CY, [])]},
    ]


def _export(folder: Path, tasks: list[dict[str, Any]] | None = None,
            images: tuple[str, ...] = ("a.png", "b.png")) -> Path:
    for name in images:
        write_png(folder / f"8f3c2a1b-{name}", W, H)
    path = folder / "project-3-at-2025-03-10.json"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_tasks() if tasks is None else tasks, indent=1))
    return path


# --------------------------------------------------------------------------- round trip


def test_who_is_who_items_media_and_notes(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    source = _export(tmp_path / "export")
    out = tmp_path / "project"
    code, stdout, err = run_import(capsys, "labelstudio", str(source), "-o", str(out))
    assert (code, err) == (0, ""), err
    study = load_study(out)
    assert set(study.annotators) == {"ann@lab.org", "ben@lab.org", "cy@lab.org"}
    assert list(study.items) == ["11", "12", "13", "14"]
    assert "1 predictions were skipped" in stdout
    assert "1 cancelled (skipped) annotations were left out" in stdout
    assert "'tags' is a multiselect" in stdout and "1..5" in stdout
    config = yaml.safe_load((out / "config.yaml").read_text())
    types = {s["name"]: s["annotation_type"] for s in config["annotation_schemes"]}
    assert types == {"box": "image_annotation", "paint": "image_annotation",
                     "sentiment": "radio", "quality": "likert", "outline": "image_annotation",
                     "tags": "multiselect", "speech": "audio_annotation"}
    # the upload prefix is Label Studio's: the image beside the export is found and copied
    records = [json.loads(line) for line in (out / "data" / "items.jsonl").read_text()
               .splitlines()]
    assert records[0]["image"] == "images/a.png" and (out / "images" / "a.png").is_file()
    assert records[0]["width"] == W and records[0]["text"] == "first"
    assert records[2]["image_source"] == f"{UPLOAD}c.png"  # not beside the export
    assert records[3]["audio"] == "audio/clip.wav"
    # c.png and the clip, each named as what it is (an audio import speaks of audio)
    assert "1 images were not found" in stdout and "without pixels" in stdout
    assert "1 audio files were not found" in stdout and "without sound" in stdout
    assert "under audio_source" in stdout
    assert "cy@lab.org" not in study.answers_for("box")["12"]  # cancelled: no answer
    assert len(study.answers_for("box")["13"]["ann@lab.org"].objects) == 0  # empty answer
    assert study.answers_for("sentiment")["11"]["cy@lab.org"] == "neg"
    assert study.answers_for("quality")["11"]["ben@lab.org"] == "5"
    assert study.answers_for("tags")["13"]["ann@lab.org"] == frozenset({"x", "y"})


def test_regions_round_trip_from_percent(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    results = [
        _rect("a", "car", 20, 10, 60, 30),
        _rect("b", "car", 20, 10, 60, 30, rotation=30.0),
        _image_result("c", "box", "ellipselabels", {
            "x": _pct(100, W), "y": _pct(50, H), "radiusX": _pct(40, W), "radiusY": _pct(20, H),
            "rotation": 25.0, "ellipselabels": ["sign"]}),
        _image_result("d", "box", "keypointlabels", {
            "x": _pct(30, W), "y": _pct(40, H), "width": 0.5, "keypointlabels": ["eye"]}),
        _image_result("e", "box", "polygonlabels", {
            "points": [[_pct(10, W), _pct(10, H)], [_pct(50, W), _pct(10, H)],
                       [_pct(30, W), _pct(60, H)]], "polygonlabels": ["roof"]}),
    ]
    source = _export(tmp_path / "export", [{"id": 1, "data": {"image": "a.png"},
                                            "annotations": [_annotation(1, CY, results)]}])
    out = tmp_path / "project"
    code, stdout, _ = run_import(capsys, "labelstudio", str(source), "-o", str(out))
    assert code == 0 and "1 rotated rectangles became polygons" in stdout
    box, rotated, ellipse, point, roof = stored(out, "cy@lab.org", "1", "box")
    assert box == {"type": "bbox", "label": "car", "color": box["color"], "coordinates":
                   pytest.approx({"x": 0.1, "y": 0.1, "width": 0.3, "height": 0.3})}
    # rotated about the top-left corner (20, 10), clockwise on screen, in pixels
    t = math.radians(30.0)
    expected = [(20 + dx * math.cos(t) - dy * math.sin(t), 10 + dx * math.sin(t) + dy * math.cos(t))
                for dx, dy in ((0, 0), (60, 0), (60, 30), (0, 30))]
    assert rotated["type"] == "polygon"
    assert [c for p in rotated["coordinates"] for c in (p["x"] * W, p["y"] * H)] == \
        pytest.approx([c for p in expected for c in p])
    assert ellipse["coordinates"] == pytest.approx(
        {"cx": 0.5, "cy": 0.5, "rx": 0.2, "ry": 0.2, "angle": 25.0})
    assert point == {"type": "landmark", "label": "eye", "color": point["color"],
                     "coordinates": pytest.approx({"x": 0.15, "y": 0.4})}
    assert roof["type"] == "polygon" and roof["coordinates"][2] == pytest.approx(
        {"x": 0.15, "y": 0.6})

    read = load_study(out).answers_for("box")["1"]["cy@lab.org"].objects
    assert isinstance(read[0], BoxRegion) and read[0].width == pytest.approx(0.3)
    assert isinstance(read[1], PolygonRegion) and len(read[1].points) == 4
    assert isinstance(read[2], EllipseRegion) and read[2].rx == pytest.approx(0.2)
    assert isinstance(read[3], Landmark) and read[3].y == pytest.approx(0.4)


def test_brush_rle_round_trips_against_label_studio_converter(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(20261203)
    blob = rng.random((H, W)) > 0.7
    blob[40:90, 20:180] = True
    assert np.array_equal(decode_mask(_brush(blob), W, H, file="x", key="rle"), blob)
    # Label Studio's own canvas export: the region's colour in RGB, alpha = mask
    brush = pytest.importorskip("label_studio_converter.brush")
    rgba = np.zeros((H, W, 4), dtype=np.uint8)
    rgba[blob] = (69, 183, 209, 255)
    assert np.array_equal(decode_mask(brush.encode_rle(rgba.ravel()), W, H, file="x",
                                      key="rle"), blob)

    source = _export(tmp_path / "export", [{"id": 5, "data": {"image": "a.png"},
                                            "annotations": [_annotation(1, CY, [
                                                _paint("p", "road", blob)])]}])
    out = tmp_path / "project"
    assert run_import(capsys, "labelstudio", str(source), "-o", str(out))[0] == 0
    (written,) = stored(out, "cy@lab.org", "5", "paint")
    assert written["type"] == "mask" and written["rle"]["size"] == [H, W]
    (mask,) = load_study(out).answers_for("paint")["5"]["cy@lab.org"].objects
    assert isinstance(mask, Mask) and np.array_equal(mask.to_array(), blob)


def test_audio_segments_in_seconds_with_an_instant(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "project"
    source = _export(tmp_path / "export")
    assert run_import(capsys, "labelstudio", str(source), "-o", str(out))[0] == 0
    assert stored(out, "ann@lab.org", "14", "speech") == {"segments": [
        {"id": "segment_1", "start_time": 0.5, "end_time": 2.0, "label": "speech"},
        {"id": "segment_2", "start_time": 3.0, "end_time": 3.0, "label": "music"}]}
    assert stored(out, "cy@lab.org", "14", "speech") == {"segments": []}
    speech = load_study(out).answers_for("speech")["14"]
    assert speech["ann@lab.org"].objects[1] == Segment(3.0, 3.0, "music", None, "segment_2")
    assert "box" not in speech  # the clip has no image: no image answer on it


def test_several_exports_match_items_by_file_name(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    one = _export(tmp_path / "p1", [{"id": 1, "data": {"image": f"{UPLOAD}a.png"},
                                     "annotations": [_annotation(1, CY, [_rect(
                                         "a", "car", 1, 1, 5, 5)])]}])
    two = _export(tmp_path / "p2", [{"id": 7, "data": {"image": "/data/upload/9/a.png"},
                                     "annotations": [_annotation(1, BEN, [])]}])
    out = tmp_path / "project"
    code, stdout, _ = run_import(capsys, "labelstudio", str(one), str(two), "-o", str(out))
    assert code == 0 and "matched across the export files by media file name" in stdout
    boxes = load_study(out).answers_for("box")
    assert set(boxes) == {"a.png"} and set(boxes["a.png"]) == {"cy@lab.org", "ben@lab.org"}


# --------------------------------------------------------------------------- end to end


def test_same_agreement_as_the_potato_project(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    source = _export(tmp_path / "export", images=("a.png", "b.png", "c.png"))
    imported = tmp_path / "imported"
    assert run_import(capsys, "labelstudio", str(source), "-o", str(imported))[0] == 0

    def box(label: str, x: float, y: float, w: float, h: float) -> dict[str, Any]:
        return {"type": "bbox", "label": label,
                "coordinates": {"x": x / W, "y": y / H, "width": w / W, "height": h / H}}

    def poly(label: str, points: list[tuple[float, float]]) -> dict[str, Any]:
        return {"type": "polygon", "label": label,
                "coordinates": [{"x": x / W, "y": y / H} for x, y in points]}

    def mask(label: str, pixels: np.ndarray) -> dict[str, Any]:
        return {"type": "mask", "label": label,
                "rle": {"counts": list(Mask.from_array(label, pixels).counts), "size": [H, W]}}

    t = math.radians(15.0)
    cy_car = poly("car", [(20 + dx * math.cos(t) - dy * math.sin(t),
                           10 + dx * math.sin(t) + dy * math.cos(t))
                          for dx, dy in ((0, 0), (60, 0), (60, 30), (0, 30))])
    data = {"box": {}, "paint": {}, "outline": {}, "speech": {}}
    data["box"] = {"11": {"ann": [box("car", 20, 10, 60, 30)], "ben": [box("car", 22, 10, 60, 32)],
                          "cy": [cy_car]},
                   "12": {"ann": [box("person", 100, 20, 20, 50)],
                          "ben": [box("person", 102, 22, 20, 48)]},
                   "13": {"ann": [], "ben": [box("sign", 150, 5, 10, 10)]}}
    data["paint"] = {"11": {"ann": [mask("road", _rows(60, 100))],
                            "ben": [mask("road", _rows(55, 100))], "cy": []},
                     "12": {"ann": [], "ben": []}, "13": {"ann": [], "ben": []}}
    data["outline"] = {"11": {"ann": [], "ben": [], "cy": []},
                       "12": {"ann": [poly("person", [(100, 20), (120, 20), (110, 70)])],
                              "ben": [poly("person", [(101, 21), (120, 21), (111, 70)])]},
                       "13": {"ann": [], "ben": []}}
    data["speech"] = {"14": {
        "ann": {"segments": [{"id": "s1", "start_time": 0.5, "end_time": 2.0, "label": "speech"},
                             {"id": "s2", "start_time": 3.0, "end_time": 3.0, "label": "music"}]},
        "ben": {"segments": [{"id": "s3", "start_time": 0.6, "end_time": 2.1,
                              "label": "speech"}]},
        "cy": {"segments": []}}}
    choices = {"sentiment": {"11": {"ann": "pos", "ben": "pos", "cy": "neg"},
                             "12": {"ann": "neg", "ben": "neg"},
                             "13": {"ann": "neu", "ben": "neu"}},
               "quality": {"11": {"ann": "4", "ben": "5", "cy": "2"},
                           "12": {"ann": "3", "ben": "3"}},
               "tags": {"13": {"ann": ["x", "y"], "ben": ["x"]}}}
    labels: dict[str, dict[str, list[Any]]] = {}
    for scheme, by_item in data.items():
        for item, by in by_item.items():
            for who, value in by.items():
                labels.setdefault(who, {}).setdefault(item, []).append(
                    [{"schema": scheme, "name": "_data"}, json.dumps(value)])
    for scheme, by_item in choices.items():
        for item, by in by_item.items():
            for who, value in by.items():
                pairs = labels.setdefault(who, {}).setdefault(item, [])
                if scheme == "tags":
                    pairs += [[{"schema": scheme, "name": v}, True] for v in value]
                elif scheme == "quality":
                    pairs.append([{"schema": scheme, "name": value}, value])
                else:
                    pairs.append([{"schema": scheme, "name": value}, True])
    image = {"annotation_type": "image_annotation", "source_field": "image",
             "tools": ["bbox", "polygon", "brush"]}
    by_hand = potato_project(tmp_path / "by_hand", [
        {**image, "name": "box", "labels": ["car", "person", "sign"]},
        {**image, "name": "paint", "labels": ["road"]},
        {"annotation_type": "radio", "name": "sentiment", "labels": ["pos", "neg", "neu"]},
        {"annotation_type": "likert", "name": "quality", "size": 5},
        {**image, "name": "outline", "labels": ["person"]},
        {"annotation_type": "multiselect", "name": "tags", "labels": ["x", "y"]},
        {"annotation_type": "audio_annotation", "name": "speech", "source_field": "audio",
         "labels": ["speech", "music"]}], [
        {"id": "11", "text": "first", "image": "images/a.png"},
        {"id": "12", "text": "12", "image": "images/b.png"},
        {"id": "13", "text": "13", "image": "images/c.png"},
        {"id": "14", "text": "14", "audio": "audio/clip.wav"}],
        {f"{who}@lab.org": mine for who, mine in labels.items()}, image_size=(W, H))

    got, expected = rounded_agreement(capsys, imported), rounded_agreement(capsys, by_hand)
    assert set(got["schemes"]) == {"box", "paint", "sentiment", "quality", "outline", "tags",
                                   "speech"}
    assert got == expected
    assert got["schemes"]["sentiment"]["metrics"]["percent_agreement"] == pytest.approx(3 / 5)
    assert got["schemes"]["paint"]["kind"] == "masks"


# ---------------------------------------------------------------------------- bad input


def _bad(tmp_path: Path, damage: Any) -> Path:
    tasks = _tasks()
    damage(tasks)
    return _export(tmp_path, tasks, images=())


@pytest.mark.parametrize(("damage", "expected"), [
    (lambda t: t[0]["annotations"][0]["result"][0]["value"].update(width=-3.0),
     "negative width"),
    (lambda t: t[3]["annotations"][0]["result"][0]["value"].update(start=2.5),
     "expected 0 <= start <= end"),
    (lambda t: t[0]["annotations"][0]["result"][1]["value"].update(rle=[1, 2, 3]),
     "brush RLE"),
    (lambda t: t[0]["annotations"][1].update(completed_by=None), "completed_by"),
    (lambda t: t[1].pop("data"), "expected a task object with data"),
    (lambda t: t[0]["annotations"][0]["result"][3]["value"].update(rating=0), "rating"),
])
def test_bad_input_is_one_line_and_no_project(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              damage: Any, expected: str) -> None:
    source = _bad(tmp_path / "export", damage)
    out = tmp_path / "project"
    code, stdout, err = run_import(capsys, "labelstudio", str(source), "-o", str(out))
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1 and str(source) in err and expected in err, err
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["export"]


def test_truncated_export_and_annotator_names(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    source = _export(tmp_path / "export", images=())
    source.write_text(source.read_text()[:500])
    code, _, err = run_import(capsys, "labelstudio", str(source), "-o", str(tmp_path / "out"))
    assert code == 2 and err.count("\n") == 1 and str(source) in err and "JSON" in err
    source = _export(tmp_path / "export", images=())
    code, _, err = run_import(capsys, "labelstudio", str(source), "-o", str(tmp_path / "out"),
                              "--annotator", "x")
    assert code == 2 and "completed_by" in err and "--annotator" in err
    assert not (tmp_path / "out").exists()


def test_existing_project_folder_is_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    source = _export(tmp_path / "export", images=())
    code, err = import_into_occupied(capsys, "labelstudio", tmp_path / "project", str(source))
    assert code == 2 and "not empty" in err


def test_an_audio_import_speaks_of_audio(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    tasks = [{"id": 1, "data": {"audio": f"{UPLOAD}talk.wav"}, "annotations": [
        _annotation(1, BEN, [_segment("s1", 0.5, 2.0, "speech")])]},
        {"id": 2, "data": {"audio": f"{UPLOAD}gone.mp3"}, "annotations": [
            _annotation(2, BEN, [_segment("s2", 1.0, 1.5, "music")])]}]
    folder = tmp_path / "export"
    (folder / "media").mkdir(parents=True)
    (folder / "media" / "talk.wav").write_bytes(b"RIFF")
    source = _export(folder, tasks, images=())
    out = tmp_path / "project"
    code, stdout, err = run_import(capsys, "labelstudio", str(source), "-o", str(out))
    assert (code, err) == (0, ""), err
    notes = [line for line in stdout.splitlines() if "note:" in line]
    assert any("1 audio files were not found" in n and "without sound" in n for n in notes)
    assert not any("images were" in n or "pixels" in n for n in notes), notes
    assert "instance_display" not in (out / "config.yaml").read_text()  # no image field
    assert (out / "audio" / "talk.wav").read_bytes() == b"RIFF"
