"""``accord import cvat``: CVAT for images 1.1 XML written with lxml following CVAT's
documented layout (pixel boxes ``xtl ytl xbr ybr`` with a rotation in degrees clockwise
about the centre, ``points="x,y;x,y"``, masks as row-major runs over their own box at
``left, top``), read back through the importer, the written Potato project and Accord's
own reader."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from lxml import etree

from app.core.formats.potato.project import load_study
from app.core.objects import BoxRegion, EllipseRegion, Landmark, Mask, OpenPath, PolygonRegion
from tests.core.importers.support import (
    import_into_occupied,
    potato_project,
    rounded_agreement,
    run_import,
    stored,
    under_data,
    write_png,
)

W, H = 80, 60

# ------------------------------------------------------------------------------ helpers


def _blob(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    pixels = np.zeros((H, W), dtype=bool)
    pixels[y0:y1, x0:x1] = True
    pixels[y0, x0] = False  # not a plain rectangle: the first run of the box is background
    return pixels


# item -> annotator -> objects in pixels: ("box", label, xtl, ytl, xbr, ybr, rotation),
# ("polygon" | "polyline" | "points", label, [(x, y), ...]), ("ellipse", label, cx, cy,
# rx, ry, rotation), ("mask", label, bool array). cy never saw c.png.
STUDY: dict[str, dict[str, list[tuple[Any, ...]]]] = {
    "a.png": {
        "ann": [("box", "car", 10.0, 10.0, 30.5, 25.25, 0.0),
                ("polygon", "person", [(40, 5), (55, 8), (50, 30)]),
                ("ellipse", "sign", 65.0, 15.0, 8.0, 5.0, 30.0)],
        "ben": [("box", "car", 11.0, 10.0, 31.0, 26.0, 0.0),
                ("polygon", "person", [(41, 5), (55, 9), (50, 31)]),
                ("ellipse", "sign", 64.0, 15.0, 8.0, 6.0, 20.0)],
        "cy": [("box", "car", 10.0, 10.0, 30.0, 25.0, 12.0)],
    },
    "b.png": {
        "ann": [("mask", "road", _blob(5, 35, 75, 60)), ("box", "car", 2.0, 2.0, 10.0, 10.0, 0.0)],
        "ben": [("mask", "road", _blob(5, 33, 75, 60)), ("box", "car", 2.0, 3.0, 10.0, 11.0, 0.0)],
        "cy": [],
    },
    "c.png": {"ann": [("box", "sign", 50.0, 2.0, 56.0, 8.0, 0.0),
                      ("polyline", "lane", [(0, 50), (40, 45), (79, 50)]),
                      ("points", "pole", [(20, 20)])],
              "ben": []},
}
LABELS = (("car", "#fa3253"), ("person", "#33ddff"), ("sign", "#ffcc33"),
          ("road", "#34d1b7"), ("lane", "#aaaaaa"), ("pole", "#b83df5"))


def _text(parent: Any, tag: str, text: str) -> None:
    etree.SubElement(parent, tag).text = text


def _pts(points: list[tuple[float, float]]) -> str:
    return ";".join(f"{x:.2f},{y:.2f}" for x, y in points)


def _cvat(path: Path, annotator: str, *, offset: int = 0, meta: str = "task") -> Path:
    """One annotator's job export, as CVAT writes it (image ids shifted by ``offset``)."""
    root = etree.Element("annotations")
    _text(root, "version", "1.1")
    task = etree.SubElement(etree.SubElement(root, "meta"), meta)
    _text(task, "id", str(offset + 7))
    labels = etree.SubElement(task, "labels")
    for name, color in LABELS:
        label = etree.SubElement(labels, "label")
        _text(label, "name", name)
        _text(label, "color", color)
        _text(label, "type", "any")
    for k, (name, by) in enumerate(STUDY.items()):
        if annotator not in by:
            continue
        image = etree.SubElement(root, "image", id=str(offset + k), name=name, width=str(W),
                                 height=str(H))
        for obj in by[annotator]:
            attrs = {"label": obj[1], "source": "manual", "occluded": "0", "z_order": "0"}
            if obj[0] == "box":
                attrs.update(xtl=f"{obj[2]:.2f}", ytl=f"{obj[3]:.2f}", xbr=f"{obj[4]:.2f}",
                             ybr=f"{obj[5]:.2f}")
                if obj[6]:
                    attrs["rotation"] = f"{obj[6]:.2f}"
            elif obj[0] in ("polygon", "polyline", "points"):
                attrs["points"] = _pts(obj[2])
            elif obj[0] == "ellipse":
                attrs.update(cx=f"{obj[2]:.2f}", cy=f"{obj[3]:.2f}", rx=f"{obj[4]:.2f}",
                             ry=f"{obj[5]:.2f}", rotation=f"{obj[6]:.2f}")
            else:
                ys, xs = np.nonzero(obj[2])
                left, top, right, bottom = xs.min(), ys.min(), xs.max(), ys.max()
                box = obj[2][top:bottom + 1, left:right + 1].ravel()
                change = np.flatnonzero(box[1:] != box[:-1]) + 1
                runs = np.diff(np.concatenate(([0], change, [box.size]))).tolist()
                attrs.update(rle=", ".join(map(str, ([0] if box[0] else []) + runs)),
                             left=str(left), top=str(top), width=str(right - left + 1),
                             height=str(bottom - top + 1))
            etree.SubElement(image, obj[0], attrs)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="utf-8",
                                    pretty_print=True))
    return path


def _potato_shape(obj: tuple[Any, ...]) -> dict[str, Any]:
    """The object in Potato's shape, computed here independently of the importer."""
    kind, label = obj[0], obj[1]
    if kind == "box":
        x0, y0, x1, y1, angle = obj[2:]
        if not angle:
            return {"type": "bbox", "label": label, "coordinates": {
                "x": x0 / W, "y": y0 / H, "width": (x1 - x0) / W, "height": (y1 - y0) / H}}
        cx, cy, t = (x0 + x1) / 2, (y0 + y1) / 2, math.radians(angle)
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        return {"type": "polygon", "label": label, "coordinates": [
            {"x": (cx + (x - cx) * math.cos(t) - (y - cy) * math.sin(t)) / W,
             "y": (cy + (x - cx) * math.sin(t) + (y - cy) * math.cos(t)) / H}
            for x, y in corners]}
    if kind in ("polygon", "polyline"):
        return {"type": kind, "label": label,
                "coordinates": [{"x": x / W, "y": y / H} for x, y in obj[2]]}
    if kind == "ellipse":
        cx, cy, rx, ry, angle = obj[2:]
        return {"type": "ellipse", "label": label, "coordinates": {
            "cx": cx / W, "cy": cy / H, "rx": rx / W, "ry": ry / H, "angle": angle}}
    encoded = Mask.from_array(label, obj[2])
    return {"type": "mask", "label": label,
            "rle": {"counts": list(encoded.counts), "size": [H, W]}}


# --------------------------------------------------------------------------- round trip


def test_every_shape_round_trips_in_potato_units(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    source = _cvat(tmp_path / "job_ann" / "annotations.xml", "ann")
    write_png(tmp_path / "job_ann" / "images" / "a.png", W, H)
    out = tmp_path / "project"
    code, stdout, err = run_import(capsys, "cvat", str(source.parent), "-o", str(out))
    assert (code, err) == (0, ""), err
    assert "job_ann: answers on 3 items" in stdout  # the folder names the annotator

    box, polygon, ellipse = stored(out, "job_ann", "a.png")
    assert polygon["type"] == "polygon" and len(polygon["coordinates"]) == 3
    assert box["coordinates"] == pytest.approx(
        {"x": 10 / W, "y": 10 / H, "width": 20.5 / W, "height": 15.25 / H})
    assert box["color"] == "#fa3253"  # CVAT's label colour, in the config too
    assert ellipse["coordinates"] == pytest.approx(
        {"cx": 65 / W, "cy": 15 / H, "rx": 8 / W, "ry": 5 / H, "angle": 30.0})
    config = yaml.safe_load((out / "config.yaml").read_text())
    scheme = config["annotation_schemes"][0]
    assert scheme["name"] == "objects" and scheme["source_field"] == "image"
    assert {"name": "car", "color": "#fa3253"} in scheme["labels"]
    assert scheme["tools"][:4] == ["bbox", "polygon", "polyline", "ellipse"]

    study = load_study(out)
    objects = study.answers_for("objects")
    read_box, read_poly, read_ellipse = objects["a.png"]["job_ann"].objects
    assert isinstance(read_box, BoxRegion) and isinstance(read_poly, PolygonRegion)
    assert (read_box.x, read_box.width) == pytest.approx((10 / W, 20.5 / W))
    assert read_poly.points[1] == pytest.approx((55 / W, 8 / H))
    assert isinstance(read_ellipse, EllipseRegion) and read_ellipse.angle_deg == 30.0
    mask = objects["b.png"]["job_ann"].objects[0]
    assert isinstance(mask, Mask) and (mask.height, mask.width) == (H, W)
    assert np.array_equal(mask.to_array(), STUDY["b.png"]["ann"][0][2])
    _, lane, pole = objects["c.png"]["job_ann"].objects
    assert isinstance(lane, OpenPath) and lane.points[2] == pytest.approx((79 / W, 50 / H))
    assert isinstance(pole, Landmark) and (pole.x, pole.y) == pytest.approx((20 / W, 20 / H))
    assert (out / "images" / "a.png").is_file()


def test_rotated_box_becomes_its_corners(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    source = _cvat(tmp_path / "cy.xml", "cy", meta="job")  # labels under <meta><job>
    out = tmp_path / "project"
    code, stdout, _ = run_import(capsys, "cvat", str(source), "-o", str(out))
    assert code == 0
    (shape,) = stored(out, "cy", "a.png")
    expected = _potato_shape(STUDY["a.png"]["cy"][0])
    assert shape["type"] == "polygon"
    got = [c for p in shape["coordinates"] for c in (p["x"], p["y"])]
    assert got == pytest.approx([c for p in expected["coordinates"] for c in (p["x"], p["y"])])
    assert "1 rotated boxes became polygons" in stdout
    assert stored(out, "cy", "b.png") == []  # present, nothing drawn: an empty answer
    assert "c.png" not in load_study(out).answers_for("objects")


# --------------------------------------------------------------------------- end to end


def test_same_agreement_as_the_potato_project(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    files = [_cvat(tmp_path / "export" / f"{a}.xml", a, offset=100 * k)
             for k, a in enumerate(("ann", "ben", "cy"))]
    for name in STUDY:
        write_png(tmp_path / "export" / "images" / name, W, H)
    imported = tmp_path / "imported"
    assert run_import(capsys, "cvat", *map(str, files), "-o", str(imported))[0] == 0

    answers: dict[str, dict[str, Any]] = {}
    for item, by in STUDY.items():
        for annotator, objects in by.items():
            answers.setdefault(annotator, {})[item] = [
                _potato_shape(o) for o in objects if o[0] != "points"] + [
                {"type": "landmark", "label": o[1], "coordinates": {"x": x / W, "y": y / H}}
                for o in objects if o[0] == "points" for x, y in o[2]]
    scheme = {"annotation_type": "image_annotation", "name": "objects",
              "source_field": "image", "tools": ["bbox", "polygon", "ellipse", "brush"],
              "labels": [n for n, _ in LABELS]}
    records = [{"id": i, "text": i, "image": f"images/{i}"} for i in STUDY]
    by_hand = potato_project(tmp_path / "by_hand", [scheme], records,
                             under_data("objects", answers), image_size=(W, H))

    got, expected = rounded_agreement(capsys, imported), rounded_agreement(capsys, by_hand)
    assert set(got["schemes"]) == {"objects", "objects#masks"}
    assert got == expected
    assert got["coverage"] == {"n_items": 3, "n_annotators": 3}
    assert got["schemes"]["objects"]["n_pairs"] == 7


# ---------------------------------------------------------------------------- bad input


def _damaged(tmp_path: Path, old: str, new: str) -> Path:
    source = _cvat(tmp_path / "ann.xml", "ann")
    text = source.read_text()
    assert old in text
    source.write_text(text.replace(old, new, 1))
    return source


@pytest.mark.parametrize(("old", "new", "expected"), [
    ('xtl="10.00"', 'xtl="40.00"', "negative width"),
    ('label="person"', 'label="truck"', "unknown label 'truck'"),
    ('points="40.00,5.00;', 'points="40.00;', "expected 'x,y'"),
    ('width="80" height="60"', 'width="80"', "width and height"),
    ("<annotations>", "<annotations><track id='0' label='car'/>", "CVAT for video"),
    ('rle="1, ', 'rle="3, ', "runs sum to"),
])
def test_bad_input_is_one_line_and_no_project(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str], old: str,
                                              new: str, expected: str) -> None:
    source = _damaged(tmp_path, old, new)
    out = tmp_path / "project"
    code, stdout, err = run_import(capsys, "cvat", str(source), "-o", str(out))
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1 and f"{source}:" in err and expected in err, err
    assert not out.exists() and list(tmp_path.iterdir()) == [source]


def test_truncated_xml_names_the_line(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    source = _cvat(tmp_path / "ann.xml", "ann")
    source.write_text(source.read_text()[:900])
    code, _, err = run_import(capsys, "cvat", str(source), "-o", str(tmp_path / "out"))
    assert code == 2 and err.count("\n") == 1 and f"{source}:" in err
    assert "truncated XML" in err and not (tmp_path / "out").exists()


def test_existing_project_folder_is_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    source = _cvat(tmp_path / "ann.xml", "ann")
    code, err = import_into_occupied(capsys, "cvat", tmp_path / "project", str(source))
    assert code == 2 and "not empty" in err
