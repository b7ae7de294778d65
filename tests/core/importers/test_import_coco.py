"""``accord import coco``: COCO files written by hand following cocodataset.org's layout
(``bbox [x, y, w, h]`` in pixels, flat polygons) with masks encoded by pycocotools
(column-major RLE, compressed and not), read back through the importer, the written
Potato project and Accord's own reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pycocotools import mask as coco_mask

from app.core.formats.potato.project import load_study
from app.core.objects import BoxRegion, Mask, PolygonRegion
from tests.core.importers.support import (
    import_into_occupied,
    potato_project,
    rounded_agreement,
    run_import,
    stored,
    under_data,
    write_png,
)

W, H = 64, 48

# ------------------------------------------------------------------------------ helpers


def _rows(y0: int, y1: int) -> np.ndarray:
    pixels = np.zeros((H, W), dtype=bool)
    pixels[y0:y1, 5:60] = True
    return pixels


# A study in pixels: item -> annotator -> objects ("box", label, x, y, w, h) |
# ("poly", label, [(x, y), ...]) | ("mask", label, bool array). cy never saw c.png.
STUDY: dict[str, dict[str, list[tuple[Any, ...]]]] = {
    "a.png": {
        "ann": [("box", "car", 10, 10, 20, 15), ("poly", "person", [(40, 5), (55, 8), (50, 30)])],
        "ben": [("box", "car", 11, 10, 20, 16), ("poly", "person", [(41, 5), (55, 9), (50, 31)])],
        "cy": [("box", "car", 30, 30, 10, 10)],
    },
    "b.png": {
        "ann": [("mask", "road", _rows(30, 48)), ("box", "car", 2, 2, 8, 8)],
        "ben": [("mask", "road", _rows(28, 48)), ("box", "car", 2, 3, 8, 8)],
        "cy": [],
    },
    "c.png": {"ann": [("box", "sign", 50, 2, 6, 6)], "ben": []},
}
CATEGORIES = ("car", "person", "road", "sign")


def _coco(path: Path, annotator: str, *, compressed: bool = True, offset: int = 0) -> Path:
    """One annotator's COCO file; image and category ids shifted by ``offset`` so that no
    two files share them (items must match by file_name)."""
    cats = [{"id": offset + 10 + k, "name": n, "supercategory": "x"}
            for k, n in enumerate(reversed(CATEGORIES))]
    cat_id = {c["name"]: c["id"] for c in cats}
    images, anns = [], []
    for k, (name, by) in enumerate(STUDY.items()):
        if annotator not in by:
            continue
        images.append({"id": offset + 100 + k, "file_name": name, "width": W, "height": H})
        for obj in by[annotator]:
            ann: dict[str, Any] = {"id": len(anns) + 1, "image_id": offset + 100 + k,
                                   "category_id": cat_id[obj[1]], "iscrowd": 0}
            if obj[0] == "box":
                ann["bbox"], ann["segmentation"] = list(obj[2:]), []
            elif obj[0] == "poly":
                xs = [p[0] for p in obj[2]]
                ys = [p[1] for p in obj[2]]
                ann["bbox"] = [min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)]
                ann["segmentation"] = [[v for p in obj[2] for v in p]]
            else:
                rle = coco_mask.encode(np.asfortranarray(obj[2].astype(np.uint8)))
                if compressed:
                    ann["segmentation"] = {"size": rle["size"],
                                           "counts": rle["counts"].decode("ascii")}
                else:
                    flat = obj[2].ravel(order="F")
                    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
                    runs = np.diff(np.concatenate(([0], change, [flat.size]))).tolist()
                    ann["segmentation"] = {"size": [H, W],
                                           "counts": ([0] if flat[0] else []) + runs}
                ann["bbox"] = [float(v) for v in coco_mask.toBbox(rle)]
                ann["iscrowd"] = 1
            anns.append(ann)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"info": {}, "images": images, "annotations": anns,
                                "categories": cats}))
    return path


def _potato_shape(obj: tuple[Any, ...]) -> dict[str, Any]:
    if obj[0] == "box":
        _, label, x, y, w, h = obj
        return {"type": "bbox", "label": label,
                "coordinates": {"x": x / W, "y": y / H, "width": w / W, "height": h / H}}
    if obj[0] == "poly":
        return {"type": "polygon", "label": obj[1],
                "coordinates": [{"x": x / W, "y": y / H} for x, y in obj[2]]}
    encoded = Mask.from_array(obj[1], obj[2])
    return {"type": "mask", "label": obj[1],
            "rle": {"counts": list(encoded.counts), "size": [H, W]}}


# --------------------------------------------------------------------------- round trip


def test_box_polygon_and_mask_round_trip_in_potato_units(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "export"
    write_png(export / "images" / "a.png", W, H)
    source = _coco(export / "ann.json", "ann")
    out = tmp_path / "project"
    code, stdout, err = run_import(capsys, "coco", str(source), "-o", str(out))
    assert (code, err) == (0, ""), err
    assert "3 items" in stdout

    shapes = stored(out, "ann", "a.png")
    assert shapes[0]["type"] == "bbox"
    assert shapes[0]["coordinates"] == pytest.approx(
        {"x": 10 / W, "y": 10 / H, "width": 20 / W, "height": 15 / H})
    assert shapes[1]["type"] == "polygon"  # the segmentation wins over the bbox
    assert [c for p in shapes[1]["coordinates"] for c in (p["x"], p["y"])] == pytest.approx(
        [40 / W, 5 / H, 55 / W, 8 / H, 50 / W, 30 / H])
    mask = stored(out, "ann", "b.png")[0]
    assert mask["type"] == "mask" and mask["rle"]["size"] == [H, W]
    assert list(Mask.from_array("road", _rows(30, 48)).counts) == mask["rle"]["counts"]

    study = load_study(out)
    objects = study.answers_for("objects")
    box, poly = objects["a.png"]["ann"].objects
    assert isinstance(box, BoxRegion) and isinstance(poly, PolygonRegion)
    assert (box.label, box.x, box.y, box.width, box.height) == pytest.approx(
        ("car", 10 / W, 10 / H, 20 / W, 15 / H))
    assert poly.points[2] == pytest.approx((50 / W, 30 / H))
    read_mask = objects["b.png"]["ann"].objects[0]
    assert isinstance(read_mask, Mask)
    assert np.array_equal(read_mask.to_array(), _rows(30, 48))
    assert len(objects["c.png"]["ann"].objects) == 1
    # the image found beside the export is copied; the others are named, with a note
    assert (out / "images" / "a.png").is_file() and study.items["a.png"].media
    record = json.loads((out / "data" / "items.jsonl").read_text().splitlines()[1])
    assert record == {"id": "b.png", "text": "b.png", "image": "images/b.png",
                      "image_source": "b.png", "width": W, "height": H}
    assert "2 images were not found" in stdout


def test_uncompressed_rle_matches_compressed(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    plain = _coco(tmp_path / "plain" / "ben.json", "ben", compressed=False)
    packed = _coco(tmp_path / "packed" / "ben.json", "ben")
    for source, out in ((plain, tmp_path / "p1"), (packed, tmp_path / "p2")):
        assert run_import(capsys, "coco", str(source), "-o", str(out))[0] == 0
    assert stored(tmp_path / "p1", "ben", "b.png") == stored(tmp_path / "p2", "ben", "b.png")


def test_empty_answer_absent_item_parts_and_names(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    cy = _coco(tmp_path / "cy.json", "cy")
    raw = json.loads(cy.read_text())
    raw["annotations"][0]["segmentation"] = [[30, 30, 40, 30, 40, 40], [1, 1, 5, 1, 5, 5]]
    cy.write_text(json.dumps(raw))
    ben = _coco(tmp_path / "ben.json", "ben", offset=1000)
    out = tmp_path / "project"
    code, stdout, _ = run_import(capsys, "coco", str(cy), str(ben), "-o", str(out),
                                 "--annotator", "Cy", "--annotator", "Ben")
    assert code == 0
    study = load_study(out)
    objects = study.answers_for("objects")
    assert len(objects["b.png"]["Cy"].objects) == 0  # present, nothing drawn: empty answer
    assert "Cy" not in objects["c.png"] and len(objects["c.png"]["Ben"].objects) == 0
    assert [type(o) for o in objects["a.png"]["Cy"].objects] == [PolygonRegion] * 2
    assert "1 objects were outlined in several polygons" in stdout


# --------------------------------------------------------------------------- end to end


def test_same_agreement_as_the_potato_project(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "export"
    for name in STUDY:
        write_png(export / name, W, H)
    files = [_coco(export / f"{a}.json", a, compressed=a == "ann", offset=1000 * k)
             for k, a in enumerate(("ann", "ben", "cy"))]
    imported = tmp_path / "imported"
    assert run_import(capsys, "coco", *map(str, files), "-o", str(imported))[0] == 0

    answers: dict[str, dict[str, Any]] = {}
    for item, by in STUDY.items():
        for annotator, objects in by.items():
            answers.setdefault(annotator, {})[item] = [_potato_shape(o) for o in objects]
    scheme = {"annotation_type": "image_annotation", "name": "objects",
              "source_field": "image", "tools": ["bbox", "polygon", "brush"],
              "labels": list(CATEGORIES)}
    records = [{"id": i, "text": i, "image": f"images/{i}", "width": W, "height": H}
               for i in STUDY]
    by_hand = potato_project(tmp_path / "by_hand", [scheme], records,
                             under_data("objects", answers), image_size=(W, H))

    got, expected = rounded_agreement(capsys, imported), rounded_agreement(capsys, by_hand)
    assert set(got["schemes"]) == {"objects", "objects#masks"}
    assert got == expected
    assert got["schemes"]["objects"]["n_pairs"] == 7
    assert got["schemes"]["objects#masks"]["n_pairs"] == 3
    assert got["schemes"]["objects"]["metrics"]["detection_f1"] == pytest.approx(2 / 7)


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("damage", "expected"), [
    (lambda raw: raw["annotations"][0].update(bbox=[1, 1, -4, 3]), "negative width"),
    (lambda raw: raw["annotations"][0].update(category_id=999), "unknown category_id 999"),
    (lambda raw: raw["annotations"][0].update(image_id=999), "image_id 999"),
    (lambda raw: raw["annotations"][2]["segmentation"].update(size=[10, 10]), "RLE size"),
    (lambda raw: raw["annotations"][2]["segmentation"].update(counts="@@@@"), "RLE"),
    (lambda raw: raw.pop("categories"), "expected COCO JSON"),
])
def test_bad_input_is_one_line_and_no_project(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: Any, expected: str) -> None:
    source = _coco(tmp_path / "ann.json", "ann")
    raw = json.loads(source.read_text())
    raw["annotations"][0]["segmentation"] = []
    damage(raw)
    source.write_text(json.dumps(raw))
    out = tmp_path / "project"
    code, stdout, err = run_import(capsys, "coco", str(source), "-o", str(out))
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1 and str(source) in err and expected in err
    assert "Traceback" not in err
    assert not out.exists() and list(tmp_path.iterdir()) == [source]


def test_truncated_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _coco(tmp_path / "ann.json", "ann")
    source.write_text(source.read_text()[:150])
    code, _, err = run_import(capsys, "coco", str(source), "-o", str(tmp_path / "out"))
    assert code == 2 and err.count("\n") == 1 and str(source) in err and "JSON" in err
    assert not (tmp_path / "out").exists()


def test_existing_project_folder_is_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    source = _coco(tmp_path / "ann.json", "ann")
    out = tmp_path / "project"
    code, err = import_into_occupied(capsys, "coco", out, str(source))
    assert code == 2 and "not empty" in err and str(out) in err
