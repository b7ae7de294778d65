"""``accord import cvat-video``: CVAT for video 1.1 XML (``track_sources``) through the
importer, the written Potato project, Potato's own track reader (the oracle: the same box
on every frame as the file) and Accord's reader; bad input is one line and exit 2."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from app.core.formats.importers.registry import FORMAT_HINTS, FORMAT_LABELS, FORMATS, read_study
from app.core.formats.potato.project import load_study
from app.ui.import_preview import preview_of
from tests.core.importers.support import import_fails, import_ok, stored
from tests.core.importers.track_sources import (
    FRAMES,
    VIDEO,
    H,
    Pixels,
    W,
    by_source_id,
    cvat_xml,
    lerp,
    potato_boxes,
)


def file_boxes(path: Path) -> dict[tuple[int, int], Pixels]:
    """(track id, frame) → box, read from the XML with the standard library as CVAT
    means it: visible boxes, linear between two listed visible boxes with no outside
    box between them."""
    out: dict[tuple[int, int], Pixels] = {}
    for track in ET.parse(path).getroot().iter("track"):
        tid = int(track.get("id", ""))
        rows = sorted((int(b.get("frame", "")), b.get("outside") == "1",
                       tuple(float(b.get(k, "")) for k in ("xtl", "ytl", "xbr", "ybr")))
                      for b in track.iter("box"))
        for (f0, out0, b0), (f1, out1, b1) in itertools.pairwise(rows):
            if not out0 and not out1:
                for f in range(f0, f1):
                    out[tid, f] = lerp(b0, b1, (f - f0) / (f1 - f0))  # type: ignore[arg-type]
            elif not out0:
                out[tid, f0] = b0  # type: ignore[assignment]
        if rows and not rows[-1][1]:
            out[tid, rows[-1][0]] = rows[-1][2]  # type: ignore[assignment]
    return out


def assert_same_boxes(potato: dict[tuple[int, int], Pixels],
                      source: dict[tuple[int, int], Pixels]) -> None:
    assert sorted(potato) == sorted(source)
    for key, box in source.items():
        assert potato[key] == pytest.approx(box, abs=1e-6), key


@pytest.fixture
def exports(tmp_path: Path) -> list[Path]:
    cvat_xml(tmp_path / "ann" / "annotations.xml", "ann")  # a job's zip, unpacked
    return [tmp_path / "ann", cvat_xml(tmp_path / "ben.xml", "ben")]


def test_every_frame_potato_reads_is_the_box_cvat_wrote(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, exports: list[Path]) -> None:
    (tmp_path / "ann" / VIDEO).write_bytes(b"not really a video")
    out = tmp_path / "project"
    printed = import_ok(capsys, "cvat-video", *map(str, exports), "-o", str(out))
    for annotator, export in zip(("ann", "ben"), exports, strict=True):
        xml = export / "annotations.xml" if export.is_dir() else export
        assert_same_boxes(by_source_id(potato_boxes(out, annotator)), file_boxes(xml))
    # ann's track 2 leaves at frame 10 and comes back at 25: two Potato tracks
    keys = {key for key, _ in potato_boxes(out, "ann")}
    assert keys == {"track_0", "track_1", "track_2", "track_2_2"}
    value = stored(out, "ann", VIDEO, "tracks")
    assert set(value) == {"video_metadata", "segments", "frame_annotations", "keyframes",
                          "tracking", "tracks"}
    kf = value["tracks"]["track_0"]["keyframes"]["12"]
    assert kf["bbox"] == {"x": 130.5, "y": 40.25, "width": 109.5, "height": 69.75}
    assert kf["bboxNorm"]["x"] == pytest.approx(130.5 / W)
    assert kf["bboxNorm"]["height"] == pytest.approx(69.75 / H)
    config = yaml.safe_load((out / "config.yaml").read_text())
    scheme = config["annotation_schemes"][0]
    assert scheme["annotation_type"] == "video_annotation"
    assert scheme["mode"] == "tracking" and scheme["source_field"] == "video"
    assert scheme["labels"] == [{"name": "car", "color": "#fa3253"},
                                {"name": "pedestrian", "color": "#33ddff"}]
    assert "video_fps" not in scheme  # CVAT does not say
    assert (out / "media" / "street.mp4" / VIDEO).read_bytes() == b"not really a video"
    assert "1 track with gaps" in printed and "30 fps" in printed
    assert "11 boxes reaching partly outside" in printed  # ben's pedestrian, past x = 640


def test_accord_reads_the_imported_tracks(tmp_path: Path, exports: list[Path]) -> None:
    out = tmp_path / "project"
    from app.core.formats.importers.writer import write_project
    write_project(read_study("cvat-video", exports, []), out)
    study = load_study(out)
    answers = study.answers_for("tracks")
    assert set(answers[VIDEO]) == {"ann", "ben"}
    tracks = answers[VIDEO]["ben"].tracks  # type: ignore[union-attr]
    assert tracks is not None
    assert [t.id for t in tracks] == ["track_7", "track_8", "track_9", "track_10"]
    assert tracks[0].keyframes[0] == (0, pytest.approx((12 / W, 22 / H, 99 / W, 61 / H)))


def test_a_sparse_file_is_interpolated_by_potato_as_by_cvat(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    dense = cvat_xml(tmp_path / "dense" / "ann.xml", "ann")
    sparse = cvat_xml(tmp_path / "sparse" / "ann.xml", "ann", sparse=True)
    a, b = tmp_path / "a", tmp_path / "b"
    import_ok(capsys, "cvat-video", str(dense), "-o", str(a))
    import_ok(capsys, "cvat-video", str(sparse), "-o", str(b))
    assert_same_boxes(by_source_id(potato_boxes(b, "ann")), file_boxes(sparse))
    dense_boxes, sparse_boxes = by_source_id(potato_boxes(a, "ann")), by_source_id(
        potato_boxes(b, "ann"))
    assert sorted(dense_boxes) == sorted(sparse_boxes)
    for key, box in dense_boxes.items():  # dense boxes were written to 2 decimals
        assert sparse_boxes[key] == pytest.approx(box, abs=0.006)


def test_the_preview_counts_tracks_and_the_dialog_lists_the_format(exports: list[Path]
                                                                   ) -> None:
    preview = preview_of(read_study("cvat-video", exports, []))
    assert preview.tallies["ann"]["tracks"].text() == "1 item · 4 tracks"
    assert preview.tallies["ben"]["tracks"].text() == "1 item · 4 tracks"
    assert FORMATS["cvat-video"] == "tracks.cvat_video"
    assert "CVAT for video" in FORMAT_LABELS["cvat-video"] and FORMAT_HINTS["cvat-video"]


BROKEN = [
    ("truncated", lambda t: t[: len(t) // 2], "malformed or truncated XML"),
    ("outside the frame", lambda t: t.replace('xtl="10.00" ytl="20.00" xbr="110.00"',
                                              'xtl="700.00" ytl="20.00" xbr="800.00"', 1),
     "outside the 640 × 360 frame"),
    ("no keyframe", lambda t: t.replace('keyframe="1"', 'keyframe="0"'), "has no keyframe"),
    ("no size", lambda t: t.replace("<original_size>", "<other_size>").replace(
        "</original_size>", "</other_size>"), "width and height are needed"),
    ("bad number", lambda t: t.replace('ytl="20.00"', 'ytl="2O.00"', 1), "ytl='2O.00'"),
    ("unknown label", lambda t: t.replace('label="pedestrian"', 'label="dog"', 1),
     "unknown label 'dog'"),
    ("images", lambda t: t.replace("</annotations>", '<image id="0" name="a.png"/>'
                                   "</annotations>"), "accord import cvat"),
    ("two boxes on a frame", lambda t: t.replace('<box frame="1" ', '<box frame="0" ', 1),
     "two boxes on frame 0"),
]


@pytest.mark.parametrize(("case", "change", "needle"), BROKEN, ids=[b[0] for b in BROKEN])
def test_bad_input_is_one_line_naming_the_place(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str, change: object,
        needle: str) -> None:
    path = cvat_xml(tmp_path / "ann.xml", "ann")
    path.write_text(change(path.read_text()))  # type: ignore[operator]
    line = import_fails(capsys, "cvat-video", [str(path)], tmp_path / "out", path, needle)
    if case in ("outside the frame", "bad number", "two boxes on a frame", "images"):
        assert f"{path}:" in line  # the line of the element


def test_cvat_for_images_points_to_this_importer(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = cvat_xml(tmp_path / "ann.xml", "ann")
    import_fails(capsys, "cvat", [str(path)], tmp_path / "out", "accord import cvat-video")


def test_files_naming_no_video_meet_on_one_item(tmp_path: Path) -> None:
    paths = [cvat_xml(tmp_path / f"{who}.xml", who) for who in ("ann", "ben")]
    for path in paths:
        path.write_text(path.read_text().replace(f"<source>{VIDEO}</source>", "")
                        .replace("<name>street task</name>", ""))
    study = read_study("cvat-video", paths, [])
    assert list(study.items) == ["video"]
    assert [list(mine) for mine in study.answers.values()] == [["video"], ["video"]]


def test_potato_draws_the_imported_scheme(tmp_path: Path, exports: list[Path]) -> None:
    from potato.server_utils.schemas.video_annotation import generate_video_annotation_layout

    study = read_study("cvat-video", exports, [])
    scheme = study.schemes[0]
    html, _keys = generate_video_annotation_layout(
        {"annotation_type": scheme.annotation_type, "name": scheme.name, **scheme.config})
    assert 'data-mode="tracking"' in html


def test_frames_outside_the_task_are_kept_but_the_track_count_is_exact(
        tmp_path: Path) -> None:
    study = read_study("cvat-video", [cvat_xml(tmp_path / "ann.xml", "ann")], [])
    tracks = study.answers["ann"][VIDEO]["tracks"]["tracks"]
    assert max(t["endFrame"] for t in tracks.values()) < FRAMES
    assert sum(len(t["keyframes"]) for t in tracks.values()) == len(
        file_boxes(tmp_path / "ann.xml"))
