"""``accord import mot``: MOT Challenge sequences (``track_sources``) through the importer,
the written Potato project and Potato's own track reader; the expected boxes are what
py-motmetrics' reader (``motmetrics.io.load_motchallenge``, the MOT community's) reads
from the same ``gt.txt``; bad input is one line and exit 2."""

from __future__ import annotations

import warnings
from pathlib import Path

import motmetrics as mm
import pytest
import yaml

from app.core.formats.importers.registry import FORMAT_HINTS, FORMAT_LABELS, read_study
from app.ui.import_preview import preview_of
from tests.core.importers.support import agreement, import_fails, import_ok, stored
from tests.core.importers.track_sources import (
    FPS,
    Pixels,
    by_source_id,
    cvat_xml,
    mot_sequence,
    potato_boxes,
)

ITEM = "street"


def motmetrics_boxes(gt: Path) -> dict[tuple[int, int], Pixels]:
    """(MOT id, frame − 1) → box, as py-motmetrics reads the ground truth it scores:
    conf ≥ 1 rows, pixels moved to 0-based."""
    with warnings.catch_warnings():  # motmetrics 1.4 subtracts a tuple, which pandas 3 warns of
        warnings.simplefilter("ignore")
        df = mm.io.load_motchallenge(str(gt), min_confidence=1)
    return {(int(i), int(f) - 1): (r.X, r.Y, r.X + r.Width, r.Y + r.Height)
            for (f, i), r in df.iterrows()}


@pytest.fixture
def sequences(tmp_path: Path) -> list[Path]:
    return [mot_sequence(tmp_path / "ann" / "MOT17-street", "ann"),
            mot_sequence(tmp_path / "ben" / "MOT17-street", "ben")]


def test_every_frame_potato_reads_is_the_box_motmetrics_reads(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, sequences: list[Path]) -> None:
    out = tmp_path / "project"
    printed = import_ok(capsys, "mot", *map(str, sequences), "--annotator", "ann",
                        "--annotator", "ben", "-o", str(out))
    for annotator, folder in zip(("ann", "ben"), sequences, strict=True):
        potato = by_source_id(potato_boxes(out, annotator, ITEM))
        reference = motmetrics_boxes(folder / "gt" / "gt.txt")
        assert sorted(potato) == sorted(reference)
        for key, box in reference.items():
            assert potato[key] == pytest.approx(box, abs=1e-6), key
    value = stored(out, "ann", ITEM, "tracks")
    assert set(value["tracks"]) == {"track_1", "track_2", "track_3", "track_3_2"}
    assert value["tracks"]["track_2"]["label"] == "pedestrian"
    assert value["tracks"]["track_1"]["label"] == "car"
    kf = value["tracks"]["track_1"]["keyframes"]["12"]
    assert kf["time"] == 12 / FPS and value["video_metadata"] == {"fps": FPS}
    scheme = yaml.safe_load((out / "config.yaml").read_text())["annotation_schemes"][0]
    assert scheme["video_fps"] == FPS and scheme["mode"] == "tracking"
    assert "7 rows with conf 0" in printed  # one per track: ann has three, ben four
    assert "frame n - 1" in printed


def test_the_same_tracks_from_cvat_and_from_mot_give_the_same_boxes(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, sequences: list[Path]) -> None:
    a, b = tmp_path / "from_mot", tmp_path / "from_cvat"
    import_ok(capsys, "mot", str(sequences[0]), "--annotator", "ann", "-o", str(a))
    import_ok(capsys, "cvat-video", str(cvat_xml(tmp_path / "ann.xml", "ann")), "-o", str(b))
    mot = {(tid - 1, f): box for (tid, f), box in by_source_id(
        potato_boxes(a, "ann", ITEM)).items()}  # MOT ids count from 1, CVAT's from 0
    cvat = by_source_id(potato_boxes(b, "ann"))
    assert sorted(mot) == sorted(cvat)
    for key, box in cvat.items():
        assert mot[key] == pytest.approx(box, abs=1e-6), key


def test_a_gt_file_a_sequence_or_a_split_folder(tmp_path: Path) -> None:
    mot_sequence(tmp_path / "train" / "MOT17-street", "ann")
    mot_sequence(tmp_path / "train" / "MOT17-other", "ben")
    other = tmp_path / "train" / "MOT17-other" / "seqinfo.ini"
    other.write_text(other.read_text().replace("name=street", "name=other"))
    split = read_study("mot", [tmp_path / "train"], [])
    assert list(split.items) == ["other", "street"]
    assert split.annotators() == ["train"]
    one = read_study("mot", [tmp_path / "train" / "MOT17-street" / "gt" / "gt.txt"], ["x"])
    assert list(one.items) == ["street"]
    assert one.items["street"].record == {"text": "street", "width": 640, "height": 360}


def test_labels_txt_names_the_classes_as_datumaro_writes_them(tmp_path: Path) -> None:
    folder = mot_sequence(tmp_path / "seq", "ann")
    (folder / "gt" / "labels.txt").write_text("walker\nrider\nauto\n")
    study = read_study("mot", [folder], ["ann"])
    tracks = study.answers["ann"][ITEM]["tracks"]["tracks"]
    assert {t["label"] for t in tracks.values()} == {"walker", "auto"}


def test_the_preview_and_the_dialog(sequences: list[Path]) -> None:
    preview = preview_of(read_study("mot", sequences, ["ann", "ben"]))
    assert preview.tallies["ann"]["tracks"].text() == "1 item · 4 tracks"
    assert "MOT" in FORMAT_LABELS["mot"] and "gt.txt" in FORMAT_HINTS["mot"]


BROKEN = [
    ("bad number", "3,1,abc,5,10,10,1,1,1\n", "'abc' is not a number", ":{n}"),
    ("too few fields", "3,1,5,5\n", "4 comma-separated fields", ":{n}"),
    ("frame 0", "0,1,5,5,10,10,1,1,1\n", "frame 0; expected a whole frame number from 1",
     ":{n}"),
    ("outside the frame", "3,99,900,5,10,10,1,1,1\n", "outside the 640 × 360 frame", ":{n}"),
    ("empty box", "3,99,5,5,0,10,1,1,1\n", "0 × 10 px", ":{n}"),
    ("second box", "1,1,5,5,10,10,1,1,1\n", "track 1 has a second box on frame 1", ":{n}"),
]


@pytest.mark.parametrize(("case", "row", "needle", "where"), BROKEN,
                         ids=[b[0] for b in BROKEN])
def test_bad_rows_are_named_by_their_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str, row: str,
        needle: str, where: str) -> None:
    folder = mot_sequence(tmp_path / "seq", "ann", extra_rows=row)
    gt = folder / "gt" / "gt.txt"
    n = len(gt.read_text().splitlines())
    import_fails(capsys, "mot", [str(folder), "--annotator", "ann"], tmp_path / "out",
                 f"{gt}{where.format(n=n)}", needle)


def test_without_seqinfo_the_size_is_asked_for(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = mot_sequence(tmp_path / "seq", "ann", seqinfo=False)
    import_fails(capsys, "mot", [str(folder)], tmp_path / "out", folder / "gt" / "gt.txt",
                 "width and height are needed", "seqinfo.ini with imWidth and imHeight")


def test_a_seqinfo_without_a_size_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = mot_sequence(tmp_path / "seq", "ann")
    info = folder / "seqinfo.ini"
    info.write_text(info.read_text().replace("imWidth=640\n", ""))
    import_fails(capsys, "mot", [str(folder)], tmp_path / "out", info, "imWidth = None",
                 "width and height are needed")


def test_a_folder_without_gt_is_refused(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    import_fails(capsys, "mot", [str(tmp_path / "empty")], tmp_path / "out", "no gt/gt.txt")


def _iou(a: Pixels, b: Pixels) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def motmetrics_pooled(a: Path, b: Path) -> dict[str, float]:
    """MOTA, IDF1 and ID switches of two annotators' gt.txt as py-motmetrics scores them
    (IoU ≥ 0.5), each direction in turn as the ground truth, pooled as Potato pools them
    (kinds.md B §2.8): errors over reference object-frames, IDTP over both sides'
    object-frames, switches halved."""
    boxes = [motmetrics_boxes(a), motmetrics_boxes(b)]
    totals = {"errors": 0, "reference": 0, "switches": 0, "idtp": 0, "frames": 0}
    for ref, hyp in (boxes, boxes[::-1]):
        acc = mm.MOTAccumulator(auto_id=False)
        for frame in sorted({f for _, f in ref} | {f for _, f in hyp}):
            r = sorted((t, box) for (t, f), box in ref.items() if f == frame)
            h = sorted((t, box) for (t, f), box in hyp.items() if f == frame)
            # 1 − IoU, NaN (no match) under IoU 0.5: motmetrics' iou_matrix, which
            # motmetrics 1.4 cannot run on NumPy 2 (np.asfarray)
            dist = [[1 - iou if (iou := _iou(rb, hb)) >= 0.5 else float("nan")
                     for _, hb in h] for _, rb in r]
            acc.update([t for t, _ in r], [t for t, _ in h], dist, frameid=frame)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = mm.metrics.create().compute(
                acc, metrics=["num_misses", "num_false_positives", "num_switches",
                              "num_objects", "idtp"], name="x").iloc[0]
        totals["errors"] += s.num_misses + s.num_false_positives + s.num_switches
        totals["reference"] += s.num_objects
        totals["switches"] += s.num_switches
        totals["idtp"] += s.idtp
    totals["frames"] = len(boxes[0]) + len(boxes[1])
    return {"mota": 1 - totals["errors"] / totals["reference"],
            "idf1": totals["idtp"] / totals["frames"],  # both directions' IDTP: 2·IDTP
            "id_switches": totals["switches"] / 2}


def test_potato_and_accord_identity_on_the_import_equal_motmetrics_on_the_files(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, sequences: list[Path]) -> None:
    import json

    from potato.server_utils.iaa.identity import video_identity

    out = tmp_path / "project"
    import_ok(capsys, "mot", *map(str, sequences), "--annotator", "ann", "--annotator", "ben",
              "-o", str(out))
    rows: dict[str, dict[str, object]] = {ITEM: {}}
    for who in ("ann", "ben"):
        state = json.loads((out / "annotation_output" / who / "user_state.json").read_text())
        rows[ITEM][who] = {k["name"]: v for k, v in state["instance_id_to_label_to_value"][ITEM]}
    potato = video_identity(rows)
    assert potato is not None
    reference = motmetrics_pooled(*(s / "gt" / "gt.txt" for s in sequences))
    assert 0 < reference["idf1"] < 1  # the two annotators agree on some boxes, not all
    assert reference["id_switches"] == 0.5  # ben's pedestrian changes track once
    metrics = agreement(capsys, out)["schemes"]["tracks"]["metrics"]
    for key, value in reference.items():
        assert potato[key] == pytest.approx(value, abs=1e-12), key
        assert metrics[f"identity.{key}"] == pytest.approx(value, abs=1e-12), key
