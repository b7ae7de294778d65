"""The 3D view's labels: clusters of matched boxes, class names, and a layout without overlap.

References: hand-made scenes whose clusters and class lines are written out here; a
brute-force check over every pair of placed rectangles; the demo's README counts.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.core.agreement.drawing import CuboidScene, cuboid_scene
from app.core.agreement.sets.agreement import SetAgreement
from app.core.geometry.cuboid_boxes import boxes_array, wireframe_segments
from app.core.objects import Cuboid
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.cuboids.labels import class_line, cluster_labels, clusters, link_boxes
from app.ui.views.cuboids.layout import GAP, Layout, Request, hidden_note, layout
from app.ui.views.label_geometry import Rect

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "lidar_sweeps"


@pytest.fixture(scope="module")
def lidar() -> ProjectData:
    return run(open_project(DEMO))


def scene_of(
    boxes: list[tuple[str, str, float]], links: list[tuple[int, int]], ious: list[float]
) -> CuboidScene:
    """(annotator, class, x) boxes of 1 m side on a line; links by box index."""
    annotators = tuple(sorted({a for a, _, _ in boxes}))
    cuboids = [Cuboid(c, (x, 0.0, 0.0), (1.0, 1.0, 1.0), (0.0, 0.0, 0.0, 1.0)) for _, c, x in boxes]
    owner = np.array([annotators.index(a) for a, _, _ in boxes])
    centers = np.array([[x, 0.0, 0.0] for _, _, x in boxes])
    matched = np.zeros(len(boxes), dtype=bool)
    for i, j in links:
        matched[[i, j]] = True
    return CuboidScene(
        annotators=annotators,
        edges=wireframe_segments(boxes_array(cuboids)),
        edge_owner=np.repeat(owner, 12),
        box_owner=owner,
        centers=centers,
        labels=tuple(c for _, c, _ in boxes),
        unmatched=~matched,
        links=np.array([[centers[i], centers[j]] for i, j in links]).reshape(-1, 2, 3),
        link_iou=np.array(ious, dtype=float),
    )


def test_clusters_are_connected_components() -> None:
    assert clusters(6, [(0, 3), (3, 4), (1, 5)]) == [[0, 3, 4], [1, 5], [2]]
    assert clusters(3, []) == [[0], [1], [2]]
    assert clusters(0, []) == []


def test_class_line_names_the_majority_and_who_said_otherwise() -> None:
    assert class_line(["car", "car", "car"], ["A", "B", "C"]) == "car"
    assert class_line(["car", "cyclist", "car"], ["A", "B", "C"]) == "car · B: cyclist"
    # A tie: alphabetical majority, the rest listed.
    assert class_line(["cyclist", "car"], ["A", "B"]) == "car · A: cyclist"
    assert class_line(["", ""], ["A", "B"]) == "(no class)"


def test_one_label_per_cluster_with_class_iou_and_priority() -> None:
    # Object 1: a, b, c agree it is a car (IoU .9, .8, .7); object 2: a says car, b says
    # cyclist (IoU .6); c's pedestrian is unmatched.
    scene = scene_of(
        [
            ("a", "car", 0.0),
            ("a", "car", 10.0),
            ("b", "car", 0.1),
            ("b", "cyclist", 10.1),
            ("c", "car", 0.2),
            ("c", "pedestrian", 20.0),
        ],
        [(0, 2), (0, 4), (2, 4), (1, 3)],
        [0.9, 0.8, 0.7, 0.6],
    )
    labels = cluster_labels(scene, [(0, 2), (0, 4), (2, 4), (1, 3)], str.upper)
    assert [c.lines for c in labels] == [
        ("pedestrian", "unmatched: C only"),  # unmatched first
        ("car · B: cyclist", "A–B 0.60"),  # then a class disagreement
        ("car", "A–B 0.90", "A–C 0.80", "B–C 0.70"),  # then by lowest IoU
    ]
    assert [c.short for c in labels] == [
        "pedestrian · unmatched",
        "car · B: cyclist · IoU 0.60",
        "car · IoU 0.70–0.90",
    ]
    assert [c.boxes for c in labels] == [(5,), (1, 3), (0, 2, 4)]
    assert labels[0].unmatched and not labels[2].unmatched
    assert labels[2].anchor[2] == pytest.approx(0.5)  # the highest box top
    assert labels[2].corners.shape == (3 * 24, 3)


def test_link_boxes_agree_with_the_scene_links(lidar: ProjectData) -> None:
    agreement = lidar.report.schemes["objects"].details
    assert isinstance(agreement, SetAgreement)
    for item in lidar.study.items:
        scene = cuboid_scene(agreement, item)
        pairs = link_boxes(agreement, item)
        assert len(pairs) == len(scene.links)
        for (i, j), link in zip(pairs, scene.links, strict=True):
            assert np.array_equal(scene.centers[i], link[0])
            assert np.array_equal(scene.centers[j], link[1])
            assert scene.box_owner[i] != scene.box_owner[j]


def test_demo_labels_name_every_box_class(lidar: ProjectData) -> None:
    agreement = lidar.report.schemes["objects"].details
    assert isinstance(agreement, SetAgreement)
    scene = cuboid_scene(agreement, "sweep_001")
    labels = cluster_labels(scene, link_boxes(agreement, "sweep_001"), str)
    assert sum(len(c.boxes) for c in labels) == 9  # kofi 4 + lena 3 + mateo 2 (README)
    for c in labels:
        assert c.lines[0].split(" · ")[0] in {"car", "pedestrian", "cyclist"}


def assert_apart(
    result: Layout, width: float, height: float, reserved: tuple[Rect, ...] = ()
) -> None:
    rects = [p.rect for p in result.placed] + list(reserved)
    for a, b in itertools.combinations(rects, 2):
        assert not a.intersects(b), (a, b)
    for p in result.placed:
        r = p.rect
        assert r.x >= 0 and r.x + r.w <= width and r.y >= 0 and r.y + r.h <= height


def test_a_crowd_at_one_point_is_stacked_shortened_and_counted() -> None:
    # 40 three-line labels on one anchor in a 400 × 300 view: they cannot all fit.
    requests = [Request((200.0, 150.0), (120.0, 48.0), (90.0, 16.0)) for _ in range(40)]
    result = layout(requests, 400, 300)
    assert_apart(result, 400, 300)
    assert result.dropped == 40 - len(result.placed) > 0
    assert any(p.short for p in result.placed) and not result.placed[0].short
    # The first (most important) label takes the first place: right of its anchor.
    first = result.placed[0]
    assert (first.index, first.rect.x, first.rect.y) == (0, 200 + GAP, 150 - 24)
    assert not first.leader and all(p.leader for p in result.placed[8:])
    assert hidden_note(result.dropped).startswith(f"{result.dropped} labels hidden")
    assert hidden_note(1) == "1 label hidden: zoom in or use Top-down" and hidden_note(0) == ""


def test_random_crowds_never_overlap_and_respect_reserved_corners() -> None:
    rng = np.random.default_rng(11)
    for _ in range(60):
        width, height = float(rng.integers(200, 1400)), float(rng.integers(150, 900))
        n = int(rng.integers(1, 30))
        # Anchors bunched in a few clusters, as neighbouring objects are.
        hubs = rng.uniform([0, 0], [width, height], (3, 2))
        anchors = hubs[rng.integers(0, 3, n)] + rng.normal(0, 15, (n, 2))
        requests = [
            Request(
                (float(x), float(y)),
                (float(rng.uniform(40, 200)), float(rng.uniform(14, 70))),
                (float(rng.uniform(30, 120)), 16.0),
            )
            for x, y in anchors
        ]
        note = Rect(6.0, height - 22.0, 150.0, 16.0)
        result = layout(requests, width, height, reserved=(note,))
        assert_apart(result, width, height, (note,))
        on_screen = sum(0 <= x <= width and 0 <= y <= height for x, y in anchors)
        assert len(result.placed) + result.dropped == on_screen


def test_anchors_off_screen_or_behind_are_not_labelled() -> None:
    requests = [
        Request((float("nan"), float("nan")), (50, 20), (40, 16)),
        Request((-30.0, 50.0), (50, 20), (40, 16)),
        Request((60.0, 50.0), (50, 20), (40, 16)),
    ]
    result = layout(requests, 300, 200)
    assert [p.index for p in result.placed] == [2] and result.dropped == 0


def _old_place(ax: float, ay: float, size: tuple[float, float], taken: list[Any],
               width: float, height: float) -> Any:
    """The per-rectangle loop the numpy placement replaced (the oracle)."""
    from app.ui.views.cuboids.layout import PAD, _candidates

    w, h = size
    if w > width or h > height:
        return None
    fallback = None
    for wanted, leader in _candidates(ax, ay, w, h, height):
        rect = wanted.pushed_inside(width, height)
        if any(rect.intersects(o, PAD) for o in taken):
            continue
        if abs(rect.x - wanted.x) + abs(rect.y - wanted.y) <= 0.5:
            return rect, leader
        fallback = fallback or rect
    return None if fallback is None else (fallback, True)


def test_layout_equals_the_per_rectangle_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from app.ui.views.cuboids import layout as module
    from app.ui.views.label_geometry import Rect

    rng = random.Random(17)
    for _ in range(40):
        width, height = rng.choice([(300.0, 200.0), (800.0, 600.0)])
        requests = [module.Request((rng.uniform(-20, width + 20), rng.uniform(-20, height + 20)),
                                   (rng.uniform(20, 160), rng.choice([14.0, 28.0, 42.0])),
                                   (rng.uniform(10, 60), 14.0))
                    for _ in range(rng.randrange(1, 60))]
        obstacles = [Rect(rng.uniform(0, width), rng.uniform(0, height), rng.uniform(5, 80),
                          rng.uniform(5, 80)) for _ in range(rng.randrange(0, 30))]
        reserved = [Rect(4.0, height - 20.0, 120.0, 16.0)] if rng.random() < 0.5 else []
        got = module.layout(requests, width, height, reserved=reserved, obstacles=obstacles)

        def old(ax: float, ay: float, size: Any, taken: Any, w: float, h: float) -> Any:
            return _old_place(ax, ay, size, taken.rects, w, h)

        class Listed:
            def __init__(self, rects: Any) -> None:
                self.rects = list(rects)

            def add(self, rect: Any) -> None:
                self.rects.append(rect)

        with monkeypatch.context() as m:
            m.setattr(module, "_place", old)
            m.setattr(module, "_Taken", Listed)
            expected = module.layout(requests, width, height, reserved=reserved,
                                     obstacles=obstacles)
        assert got == expected


def test_a_layout_resumed_from_one_without_the_note_equals_one_from_scratch() -> None:
    """The count note's corner reserved after a first layout: keeping the first layout's
    labels up to the first that meets the note, and placing the rest again, gives the
    layout done from scratch with the note reserved."""
    import random

    from app.ui.views.cuboids.layout import Request, layout
    from app.ui.views.label_geometry import Rect

    rng = random.Random(29)
    resumed_late = 0
    for _ in range(300):
        width, height = rng.choice([(300.0, 200.0), (800.0, 600.0), (752.0, 291.0)])
        hubs = [(rng.uniform(0, width), rng.uniform(0, height)) for _ in range(3)]
        requests = []
        for _ in range(rng.randrange(1, 60)):
            hx, hy = rng.choice(hubs)
            anchor = (rng.gauss(hx, 40), rng.gauss(hy, 40)) if rng.random() < 0.95 \
                else (float("nan"), float("nan"))
            requests.append(Request(anchor, (rng.uniform(20, 160), rng.choice([14.0, 28.0])),
                                    (rng.uniform(10, 60), 14.0)))
        obstacles = [Rect(rng.uniform(0, width), rng.uniform(0, height), rng.uniform(5, 80),
                          rng.uniform(5, 80)) for _ in range(rng.randrange(0, 20))]
        first = layout(requests, width, height, obstacles=obstacles)
        note = (Rect(6.0, height - 22.0, rng.uniform(60, 260), 16.0),)
        expected = layout(requests, width, height, reserved=note, obstacles=obstacles)
        got = layout(requests, width, height, reserved=note, obstacles=obstacles,
                     earlier=first)
        assert got == expected
        resumed_late += got.placed[:3] == first.placed[:3] != ()
    assert resumed_late > 100  # the kept prefix is exercised, not only the fresh start


def test_candidate_arrays_are_the_candidates_in_order() -> None:
    import random

    from app.ui.views.cuboids.layout import _candidate_arrays, _candidates

    rng = random.Random(3)
    for _ in range(50):
        args = (rng.uniform(-50, 900), rng.uniform(-50, 700), rng.uniform(5, 200),
                rng.choice([13.5, 14.0, 27.25]), rng.choice([100.0, 600.0, 777.0]))
        x, y, leader = _candidate_arrays(*args)
        expected = list(_candidates(*args))
        assert x.tolist() == [r.x for r, _ in expected]
        assert y.tolist() == [r.y for r, _ in expected]
        assert leader.tolist() == [lead for _, lead in expected]
