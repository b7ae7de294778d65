"""3D points are compared by distance in metres, and said so (issue 35, part 8).

On the spatial project Potato 2.12.1's own server wrote (cuboids, 3D points, polylines and
point-cloud segments by three annotators), the report's note and ``extra["point_3d"]`` give
the matched points' distances, and the 3D view's labels say ``a–b distance 0.4 m``, never
an IoU, for a pair of points. References: the coordinates read straight from each
annotator's ``user_state.json`` (not through Accord's reader), and Potato's own
``spatial_similarity`` (``1 − d / 2``), from which each distance is recovered.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.core.agreement.drawing import cuboid_scene
from app.core.agreement.sets.agreement import SetAgreement
from app.core.agreement.sets.spatial_points import metres
from app.core.objects import Point3D
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.cuboids.labels import cluster_labels, link_boxes

SPATIAL = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "spatial"
LIDAR = Path(__file__).resolve().parents[2] / "resources" / "demo" / "lidar_sweeps"


@pytest.fixture(scope="module")
def spatial() -> ProjectData:
    return run(open_project(SPATIAL))


def _raw_points() -> dict[tuple[str, str], list[list[float]]]:
    """(item, annotator) → the point_3d coordinates, read from the files themselves."""
    out: dict[tuple[str, str], list[list[float]]] = {}
    for state in sorted((SPATIAL / "annotation_output").glob("*/user_state.json")):
        data = json.loads(state.read_text())
        for item, entries in data["instance_id_to_label_to_value"].items():
            for key, value in entries:
                if key["schema"] != "objects":
                    continue
                shapes = json.loads(value)
                shapes = shapes if isinstance(shapes, list) else shapes.get("annotations", [])
                out[(item, data["user_id"])] = [
                    s["coordinates"] for s in shapes if s.get("type") == "point_3d"
                ]
    return out


def _matched_point_pairs(agreement: SetAgreement) -> list[tuple[Point3D, Point3D]]:
    pairs = []
    for o in agreement.outcomes:
        objects = agreement.objects[o.item]
        for r, c in zip(o.rows.tolist(), o.cols.tolist(), strict=True):
            a, b = objects[o.a][r], objects[o.b][c]
            if isinstance(a, Point3D) and isinstance(b, Point3D):
                pairs.append((a, b))
    return pairs


def test_the_report_gives_points_distances_in_metres(spatial: ProjectData) -> None:
    from potato.server_utils.iaa.geometry import spatial_similarity

    scheme = spatial.report.schemes["objects"]
    agreement = scheme.details
    assert isinstance(agreement, SetAgreement)
    pairs = _matched_point_pairs(agreement)
    assert len(pairs) >= 5
    raw = _raw_points()
    every_raw = {tuple(p) for points in raw.values() for p in points}
    distances = []
    for a, b in pairs:
        assert a.position in every_raw and b.position in every_raw  # as Potato wrote them
        sim = spatial_similarity({"type": "point_3d", "points": [list(a.position)]},
                                 {"type": "point_3d", "points": [list(b.position)]})
        distances.append(2.0 * (1.0 - sim))  # Potato's 1 − d / 2 m, undone
    stats = scheme.extra["point_3d"]
    assert stats["n_points"] == sum(len(p) for p in raw.values())
    assert stats["n_matched_pairs"] == len(pairs)
    assert stats["mean_matched_distance_m"] == pytest.approx(np.mean(distances), abs=1e-9)
    assert stats["max_matched_distance_m"] == pytest.approx(max(distances), abs=1e-9)
    note = next(n for n in scheme.notes if "3D points" in n)
    assert "distance between them in metres, not by an IoU" in note
    assert "at most 1.5 m apart" in note  # the threshold 0.25 in metres: 2 · (1 − 0.25)
    assert f"{len(pairs)} pairs of points matched, {metres(np.mean(distances))} apart" in note
    # the other objects without a volume are named too
    assert any("3D polylines" in n and "point-cloud segments" in n for n in scheme.notes)


def test_the_3d_view_labels_a_pair_of_points_by_its_distance(spatial: ProjectData) -> None:
    agreement = spatial.report.schemes["objects"].details
    assert isinstance(agreement, SetAgreement)
    raw = _raw_points()
    seen = 0
    for item in sorted(spatial.study.items):
        scene = cuboid_scene(agreement, item)
        assert len(scene.edges) == 12 * len(scene.box_owner)  # points drawn as 12 edges
        assert int(scene.is_point.sum()) == sum(
            len(raw.get((item, who), [])) for who in scene.annotators)
        labels = cluster_labels(scene, link_boxes(agreement, item), str)
        for label in labels:
            members = [scene.is_point[i] for i in label.boxes]
            if not all(members) or label.unmatched:
                assert any(not m for m in members) or label.unmatched
                continue
            for line in label.lines[1:]:
                found = re.fullmatch(r"(\w+)–(\w+) distance ([\d.]+) m", line)
                assert found, line
                a, b = found.group(1), found.group(2)
                near = [p for p in raw[(item, a)] for q in raw[(item, b)]
                        if metres(math.dist(p, q)) == f"{found.group(3)} m"]
                assert near, (item, line)  # a distance between two points they wrote
                seen += 1
            assert "IoU" not in label.short and " distance " in label.short
    assert seen >= 5


def test_boxes_keep_their_iou_labels(spatial: ProjectData) -> None:
    lidar = run(open_project(LIDAR))
    agreement = lidar.report.schemes["objects"].details
    assert isinstance(agreement, SetAgreement)
    scene = cuboid_scene(agreement, "sweep_001")
    assert not scene.is_point.any() and np.isnan(scene.link_distance).all()
    labels = cluster_labels(scene, link_boxes(agreement, "sweep_001"), str)
    assert all("distance" not in line for c in labels for line in c.lines)
    assert any(" · IoU " in c.short for c in labels)
    assert "point_3d" not in lidar.report.schemes["objects"].extra


def test_metres_reads_like_a_measurement() -> None:
    assert [metres(d) for d in (0.4, 0.404, 1.25, 0.0, 2.0, 0.005)] == [
        "0.4 m", "0.4 m", "1.25 m", "0 m", "2 m", "0.01 m"]


def test_the_view_counts_points_apart_and_names_what_it_does_not_draw(
    qtbot: Any, spatial: ProjectData
) -> None:
    from app.ui.views.base import ViewContext
    from app.ui.views.cuboids.view import CuboidsView

    raw = _raw_points()
    view = CuboidsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=spatial, item="s03"))
    header, legend = view.header.text(), view.legend.text()
    n_points = sum(len(raw.get(("s03", who), [])) for who in spatial.study.annotators)
    assert f"{n_points} points" in header or (n_points == 1 and "1 point," in header)
    assert "3D polylines and segments scored, not drawn" in header
    for who in spatial.study.annotators:
        mine = len(raw.get(("s03", who), []))
        if mine:
            assert f"{mine} point{'s' if mine != 1 else ''}, " in legend.split(who, 1)[1]
    assert "1 boxes" not in legend and "1 boxes" not in header
    assert "compared by the distance between them" in legend
