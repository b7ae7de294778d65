"""Drawing data for the views: computed in the core, checked without OpenGL."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.agreement.drawing import cuboid_scene, timeline
from app.core.agreement.sets.agreement import per_pair, set_agreement
from app.core.geometry.cuboids import cuboid_iou_matrix
from app.core.geometry.intervals import segment_iou_matrix
from app.core.model import Answer
from app.core.objects import Cuboid, ObjectSet, Segment
from app.core.progress import run


def test_cuboid_scene_edges_links_and_unmatched() -> None:
    a = (Cuboid("car", (0, 0, 0), (2, 2, 2)), Cuboid("car", (10, 0, 0), (2, 2, 2)))
    b = (Cuboid("car", (0.2, 0, 0), (2, 2, 2)),)
    answers: dict[str, dict[str, Answer]] = {"sweep": {"x": ObjectSet(a), "y": ObjectSet(b)}}
    agreement = run(set_agreement(answers, lambda s: s.of_type(Cuboid),
                                  per_pair(lambda p, q: cuboid_iou_matrix(p, q)), 0.25))  # type: ignore[arg-type]
    scene = cuboid_scene(agreement, "sweep")
    assert scene.annotators == ("x", "y")
    assert scene.edges.shape == (36, 2, 3)
    lengths = np.linalg.norm(scene.edges[:, 1] - scene.edges[:, 0], axis=1)
    assert np.allclose(lengths, 2.0)
    assert scene.edge_owner.tolist() == [0] * 24 + [1] * 12
    assert scene.unmatched.tolist() == [False, True, False]
    assert scene.links.shape == (1, 2, 3)
    assert scene.links[0].tolist() == [[0, 0, 0], [0.2, 0, 0]]
    assert scene.link_iou[0] == pytest.approx(1.8 / 2.2)


def test_timeline_rows_rects_and_links() -> None:
    x = (Segment(0.0, 2.0, "host", "speaker"), Segment(3.0, 3.5, "laughter", "events"))
    y = (Segment(0.2, 2.0, "host", "speaker"),)
    answers: dict[str, dict[str, Answer]] = {"clip": {"x": ObjectSet(x), "y": ObjectSet(y)}}
    agreement = run(set_agreement(answers, lambda s: s.of_type(Segment),
                                  per_pair(lambda p, q: segment_iou_matrix(p, q, within_tier=True)),  # type: ignore[arg-type]
                                  0.5))
    drawing = timeline(agreement, "clip")
    assert drawing.rows == (("events", "x"), ("events", "y"), ("speaker", "x"),
                            ("speaker", "y"))
    assert drawing.rects.tolist() == [[0.0, 2.1, 2.0, 2.9], [3.0, 0.1, 3.5, 0.9],
                                      [0.2, 3.1, 2.0, 3.9]]
    assert drawing.unmatched.tolist() == [False, True, False]
    assert drawing.links.tolist() == [[[1.0, 2.5], [1.1, 3.5]]]
    assert drawing.link_iou[0] == pytest.approx(0.9)
