"""The answers view's grounding cell on the Potato-written ``vlm_shapes`` project: every
region an annotator drew is named with its shape (a 2-D cuboid was an empty ``e0:``; a
mask, polygon or ellipse only its type's name), read back against the stored blobs."""

from __future__ import annotations

import json
import re
from pathlib import Path

from app.core.formats.potato.project import load_study
from app.ui.views.answers.layers import layered_text

ROOT = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "vlm_shapes"
SAID = {"bbox": "box (", "polygon": "polygon, ", "ellipse": "ellipse (", "mask": "mask, ",
        "landmark": "point (", "polyline": "open path", "freeform": "open path",
        "keypoint_set": "keypoint set, ",
        "cuboid_2d": "2-D cuboid, front ("}


def test_every_drawn_region_is_named_with_its_shape() -> None:
    study = load_study(ROOT)
    seen: set[str] = set()
    for path in sorted(ROOT.glob("annotation_output/*/user_state.json")):
        state = json.loads(path.read_text())
        user = state["user_id"]
        for item, entries in state["instance_id_to_label_to_value"].items():
            for key, value in entries:
                blob = json.loads(value) if isinstance(value, str) else value
                text = layered_text(study.answers_for(key["schema"])[item][user])
                lines = dict(line.split(": ", 1) for line in text.splitlines())
                for e, shapes in blob["regions"].items():
                    if e in blob["absent"]:
                        continue
                    parts = lines[e].split("; ")
                    assert len(parts) == len(shapes), (item, user, e, lines[e])
                    for shape, part in zip(shapes, parts, strict=True):
                        assert part.startswith(SAID[shape["type"]]), (shape["type"], part)
                        seen.add(shape["type"])
                for e in blob["absent"]:
                    assert lines[e] == "not present"
    assert seen == set(SAID)


def test_a_mask_cell_counts_its_pixels() -> None:
    study = load_study(ROOT)
    checked = 0
    for item in ("g06", "g07"):
        for answer in study.answers_for("refer")[item].values():
            text = layered_text(answer)
            for e, grounded in sorted(answer.parsed.items()):
                if grounded.absent:
                    continue
                found = re.search(rf"{e}: mask, ([\d,]+) of 60×80 px", text)
                assert found is not None, text
                count = int(found.group(1).replace(",", ""))
                assert count == int(grounded.regions[0].to_array().sum()) > 0
                checked += 1
    assert checked >= 10
