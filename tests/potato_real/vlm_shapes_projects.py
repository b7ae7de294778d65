"""A grounding project whose answers hold every shape Potato 2.12.1's grounding widget can
post, written by the real Potato server (``kinds.md`` B §2.12; issue 38 part 3).

    .venv/bin/python -m tests.potato_real.vlm_shapes_projects

``grounding-eval.js`` draws on the page's ``image_annotation`` canvas and stores, per
expression, what that canvas's ``_serializeAnnotations()`` returns, so a grounding region
is any shape the canvas's tools make: ``bbox``, ``polygon``, ``ellipse``
(``{cx, cy, rx, ry, angle}``, radii normalized by width and height), ``landmark``,
``polyline``, ``freeform`` (fabric's path in pixels at a normalized anchor),
``keypoint_set`` (``[{x, y, v}]``), ``cuboid_2d`` (``{front, back}``) and
``mask`` (brush / fill: ``{type: "mask", label, color, rle: {counts, size: [h, w]}}``,
row-major run lengths starting with background, as ``mask-buffer.js`` ``encodeRLE``).
``region_type`` only picks the tool the widget selects first.

Two grounding schemes beside one ``image_annotation`` scheme (``regions``, every tool on,
nobody draws in it), posted as ``NAME:::_data`` through ``/updateinstance`` by Potato's
simulator client (``tests/potato_real/server.py``):

- ``refer`` (``region_type: polygon``): items ``g00``-``g11``, four expressions each;
  each item's truth is one shape family (boxes, freeform strokes, polygons, ellipses,
  masks, points, polylines, keypoint sets), every annotator draws it moved a little,
  sometimes far off, sometimes says "not present", sometimes skips, sometimes adds a
  second region; ``g11``
  mixes families (bob's polygon on alice's and carol's box for ``e0`` scores 0, as
  Potato) and holds degenerate shapes (a zero-width box, a zero-radius ellipse: Potato
  scores them 0, even against the same shape);
- ``refer_faces`` (``region_type: box``): boxes, and on every third item alice's and bob's
  ``e0`` is a ``cuboid_2d`` (the one canvas shape Accord's image reader has no object
  for; it was silently dropped; Potato scores its front face).

Then ``/admin/iaa`` is saved as ``expected/iaa.json`` and the server stopped. alice, bob
and carol; 80 × 60 pictures in ``images/``. The normal test suite reads the committed files.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path
from typing import Any

from tests.potato_real.annotation_projects import base_config
from tests.potato_real.server import OUT, prepare, save, serve, shown, split_out

NAME = "vlm_shapes"
PEOPLE = ("alice", "bob", "carol")
PORT = 8801
SEED = 3812
W, H = 80, 60
ITEMS = [f"g{k:02d}" for k in range(12)]
EXPRESSIONS = ("e0", "e1", "e2", "e3")
FAMILY = ("bbox", "freeform", "polygon", "polygon", "ellipse", "ellipse", "mask", "mask",
          "landmark", "polyline", "keypoint_set", "mixed")
SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "image_annotation", "name": "regions", "description": "Regions",
     "source_field": "image",
     "tools": ["bbox", "polygon", "ellipse", "landmark", "polyline", "freeform",
               "keypoint_set", "cuboid_2d", "brush"],
     "labels": ["referent"]},
    {"annotation_type": "grounding_eval", "name": "refer",
     "description": "Where does each phrase point?", "expressions_field": "expressions",
     "region_type": "polygon"},
    {"annotation_type": "grounding_eval", "name": "refer_faces",
     "description": "Which box or cuboid is each phrase?",
     "expressions_field": "expressions", "region_type": "box"},
]


def encode_rle(pixels: set[tuple[int, int]]) -> list[int]:
    """Row-major run lengths of ``(row, col)`` pixels, background first (encodeRLE)."""
    counts: list[int] = []
    current, run = 0, 0
    for r in range(H):
        for c in range(W):
            value = 1 if (r, c) in pixels else 0
            if value == current:
                run += 1
            else:
                counts.append(run)
                current, run = value, 1
    counts.append(run)
    return counts


def _base(kind: str, coordinates: Any) -> dict[str, Any]:
    return {"type": kind, "label": "referent", "color": "#e6194b",
            "coordinates": coordinates}


def _pt(x: float, y: float) -> dict[str, float]:
    return {"x": round(x, 4), "y": round(y, 4)}


def truth_shape(family: str, rng: random.Random) -> dict[str, Any]:
    """One referent: centre, size and turn; drawn per annotator by :func:`draw`."""
    return {"family": family, "cx": rng.uniform(0.3, 0.7), "cy": rng.uniform(0.3, 0.7),
            "w": rng.uniform(0.15, 0.35), "h": rng.uniform(0.15, 0.35),
            "angle": rng.uniform(-40, 40)}


def draw(t: dict[str, Any], rng: random.Random, wobble: float) -> dict[str, Any]:
    """``t`` as the browser serializes it, moved by up to ``wobble`` of the image."""
    cx = t["cx"] + rng.uniform(-wobble, wobble)
    cy = t["cy"] + rng.uniform(-wobble, wobble)
    w = t["w"] * rng.uniform(1 - 2 * wobble, 1 + 2 * wobble)
    h = t["h"] * rng.uniform(1 - 2 * wobble, 1 + 2 * wobble)
    family = t["family"]
    if family == "bbox":
        return _base("bbox", {"x": round(cx - w / 2, 4), "y": round(cy - h / 2, 4),
                              "width": round(w, 4), "height": round(h, 4)})
    if family == "polygon":  # a pentagon with a dent
        pts = []
        for k in range(5):
            a = 2 * math.pi * k / 5 + rng.uniform(-0.1, 0.1)
            s = 0.6 if k == 2 else 1.0
            pts.append(_pt(cx + s * w / 2 * math.cos(a), cy + s * h / 2 * math.sin(a)))
        return _base("polygon", pts)
    if family == "ellipse":
        return _base("ellipse", {"cx": round(cx, 4), "cy": round(cy, 4),
                                 "rx": round(w / 2, 4), "ry": round(h / 2, 4),
                                 "angle": round(t["angle"] + rng.uniform(-10, 10), 2)})
    if family == "mask":  # a brush blob: an ellipse of pixels with a bite out of it
        pixels = {(r, c) for r in range(H) for c in range(W)
                  if ((c + 0.5) / W - cx) ** 2 / (w / 2) ** 2
                  + ((r + 0.5) / H - cy) ** 2 / (h / 2) ** 2 <= 1.0
                  and not (r % 7 == 0 and c % 5 == 0)}
        return {"type": "mask", "label": "referent", "color": "#e6194b",
                "rle": {"counts": encode_rle(pixels), "size": [H, W]}}
    if family == "landmark":
        return _base("landmark", _pt(cx, cy))
    if family == "polyline":
        return {**_base("polyline", [_pt(cx - w / 2, cy), _pt(cx, cy - h / 2),
                                     _pt(cx + w / 2, cy + rng.uniform(-0.02, 0.02))]),
                "closed": False}
    if family == "freeform":  # a brush stroke: fabric's path in pixels, placed at
        # its bounding box's normalized top-left, pathOffset its centre in path space
        xs = [cx * W + (k - 3) * w * W / 6 for k in range(7)]
        ys = [cy * H + math.sin(k + rng.uniform(-0.3, 0.3)) * h * H / 2 for k in range(7)]
        path: list[list[Any]] = [["M", xs[0], ys[0]]]
        path += [["Q", xs[k - 1] + 1.0, ys[k - 1] + 1.0, xs[k], ys[k]] for k in range(1, 7)]
        coord_x = [v for step in path for v in step[1::2]]
        coord_y = [v for step in path for v in step[2::2]]
        return _base("freeform", {
            "path": path, "left": min(coord_x) / W, "top": min(coord_y) / H,
            "scaleX": 1.0, "scaleY": 1.0,
            "pathOffset": {"x": (min(coord_x) + max(coord_x)) / 2,
                           "y": (min(coord_y) + max(coord_y)) / 2}, "angle": 0})
    if family == "keypoint_set":
        return {**_base("keypoint_set", [
            {**_pt(cx + dx * w / 2, cy + dy * h / 2), "v": 2}
            for dx, dy in ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1))]), "skeleton": ""}
    raise ValueError(family)


def cuboid(t: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    x, y, w, h = t["cx"] - t["w"] / 2, t["cy"] - t["h"] / 2, t["w"], t["h"]
    x += rng.uniform(-0.02, 0.02)
    front = [_pt(x, y), _pt(x + w, y), _pt(x + w, y + h), _pt(x, y + h)]
    back = [_pt(p["x"] + 0.05, p["y"] - 0.05) for p in front]
    return _base("cuboid_2d", {"front": front, "back": back})


def grounding_blobs(seed: int) -> dict[str, dict[str, dict[str, Any]]]:
    """user → item → ``{"refer": blob, "refer_faces": blob}`` (serialize() shape)."""
    rng = random.Random(seed)
    out: dict[str, dict[str, dict[str, Any]]] = {u: {} for u in PEOPLE}
    for k, item in enumerate(ITEMS):
        family = FAMILY[k]
        truths = {e: truth_shape(family if family != "mixed" else
                                 ("bbox", "polygon", "ellipse", "mask")[j], rng)
                  for j, e in enumerate(EXPRESSIONS)}
        faces = {e: truth_shape("bbox", rng) for e in EXPRESSIONS[:3]}
        for n, user in enumerate(PEOPLE):
            regions: dict[str, list[Any]] = {}
            absent: list[str] = []
            for j, (e, t) in enumerate(truths.items()):
                r = rng.random()
                if r < 0.08:
                    continue  # skipped: unanswered
                if r < 0.2:
                    absent.append(e)
                    continue
                wobble = 0.15 if r > 0.9 else 0.03
                shape = draw(t, rng, wobble)
                if family == "mixed" and n == 1 and j == 0:
                    # bob draws the box as the polygon of its corners: 0 across types
                    c = shape["coordinates"]
                    shape = _base("polygon", [
                        _pt(c["x"], c["y"]), _pt(c["x"] + c["width"], c["y"]),
                        _pt(c["x"] + c["width"], c["y"] + c["height"]),
                        _pt(c["x"], c["y"] + c["height"])])
                regions[e] = [shape] + ([draw(t, rng, 0.2)] if 0.8 < r < 0.86 else [])
            out[user][item] = {"refer": {"regions": regions, "absent": absent,
                                         "verdicts": {}, "region_type": "polygon"}}
            face_regions: dict[str, list[Any]] = {}
            face_absent: list[str] = []
            for e, t in faces.items():
                r = rng.random()
                if r < 0.1:
                    face_absent.append(e)
                elif k % 3 == 0 and e == "e0" and n != 2:
                    face_regions[e] = [cuboid(t, rng)]
                else:
                    face_regions[e] = [draw(t, rng, 0.04)]
            out[user][item]["refer_faces"] = {"regions": face_regions,
                                              "absent": face_absent, "verdicts": {},
                                              "region_type": "box"}
    degenerate = out["alice"]["g11"]["refer"]  # g11: shapes with no area
    degenerate["regions"]["e1"] = [_base("bbox", {"x": 0.4, "y": 0.4, "width": 0.0,
                                                  "height": 0.2})]
    degenerate["absent"] = [e for e in degenerate["absent"] if e != "e1"]
    for user in ("bob", "carol"):
        blob = out[user]["g11"]["refer"]
        blob["regions"]["e1"] = [_base("bbox", {"x": 0.4, "y": 0.4, "width": 0.0,
                                                "height": 0.2})]
        blob["absent"] = [e for e in blob["absent"] if e != "e1"]
        blob["regions"]["e2"] = [_base("ellipse", {"cx": 0.5, "cy": 0.5, "rx": 0.0,
                                                   "ry": 0.1, "angle": 0})]
        blob["absent"] = [e for e in blob["absent"] if e != "e2"]
    return out


def _png(path: Path, k: int) -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (W, H), (200 - 8 * k, 210, 190 + 5 * k))
    ImageDraw.Draw(image).ellipse((20, 15, 60, 45), outline=(90, 60, 40), width=2)
    image.save(path)


def build(out: Path = OUT) -> Path:
    items = [{"id": item, "text": f"scene {item}", "image": f"images/{item}.png",
              "expressions": [{"id": e, "text": f"object {e[1:]}"} for e in EXPRESSIONS]}
             for item in ITEMS]
    work = prepare(NAME, "vlm_shapes_projects.py", SEED, base_config(SCHEMES), items)
    (work / "images").mkdir()
    for k, item in enumerate(ITEMS):
        _png(work / "images" / f"{item}.png", k)
    blobs = grounding_blobs(SEED)
    posted = {u: {i: {f"{s}:::_data": json.dumps(b) for s, b in by.items()}
                  for i, by in items_.items()} for u, items_ in blobs.items()}
    report = serve(work, PORT, PEOPLE, len(ITEMS),
                   lambda sim, url, user, iid: posted[user][iid] or None, iaa_timeout=300)
    return save(work, out / NAME, PEOPLE, report, folders=("images",))


def main(argv: list[str]) -> int:
    out, _ = split_out(argv, OUT)
    print(f"{NAME}: {shown(build(out))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
