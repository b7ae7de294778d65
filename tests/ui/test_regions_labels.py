"""The regions picture labels every shape with its class and annotator, and no two labels
overlap.

Oracles: the classes and annotators come from the study's answer files (each drawn
shape's ``label`` and owner), not from the view; the layout is checked geometrically
(every pair of placed rectangles, every leader against every card) on hand-made crowds
where the naive place (each label at its shapes' top-left) is shown to collide, on
seeded random crowds, and on every demo item rendered at 1280×800.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from app.core.objects import ObjectSet
from app.core.project import ProjectData
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.label_geometry import Rect, crosses
from app.ui.views.regions.canvas import LabelSpec, RegionsCanvas
from app.ui.views.regions.label_layout import GAP, Layout, Request, leader_segment, place
from app.ui.views.regions.matches import GroupText
from app.ui.views.regions.view import REGION_TYPES, RegionsView
from tests.ui.views_helpers import demo


def assert_clean(
    layout: Layout,
    requests: list[Request],
    width: float,
    height: float,
    reserved: tuple[Rect, ...] = (),
) -> None:
    """No two cards intersect, none leaves the viewport or covers a reserved rectangle,
    no leader passes under another card, every request is placed or counted."""
    rects = [p.rect for p in layout.placed]
    for a, b in combinations(rects, 2):
        assert not a.intersects(b), (a, b)
    for r in rects:
        assert r.inside(width, height)
        assert not any(r.intersects(x) for x in reserved)
    for p in layout.placed:
        segment = leader_segment(p.rect, requests[p.index].target)
        if segment is not None:
            assert not any(crosses(segment, q.rect) for q in layout.placed if q is not p)
    indices = sorted([p.index for p in layout.placed] + list(layout.dropped))
    assert indices == list(range(len(requests)))


def test_two_neighbours_whose_naive_labels_collide_are_both_placed_apart() -> None:
    # Two pedestrians 10 px apart, labels 90 px wide: at each top-left corner they overlap.
    targets = [Rect(100, 100, 20, 60), Rect(130, 100, 20, 60)]
    naive = [Rect(t.x, t.y - GAP - 16, 90, 16) for t in targets]
    assert naive[0].intersects(naive[1])
    requests = [Request(t, (90, 16), (40, 16)) for t in targets]
    layout = place(requests, 400, 300)
    assert_clean(layout, requests, 400, 300)
    assert not layout.dropped and not any(p.short for p in layout.placed)
    for p in layout.placed:  # each right beside its own shapes, no leader needed
        assert leader_segment(p.rect, targets[p.index]) is None
        assert not any(p.rect.intersects(t) for t in targets)


def test_a_crowd_is_placed_without_overlaps_and_the_rest_counted() -> None:
    # 24 boxes edge to edge in a 300×200 view, labels wider than the boxes.
    targets = [Rect(10 + 23 * (k % 12), 60 + 50 * (k // 12), 22, 45) for k in range(24)]
    requests = [Request(t, (96, 16), (44, 16)) for t in targets]
    layout = place(requests, 300, 200)
    assert_clean(layout, requests, 300, 200)
    assert layout.dropped  # there is no room for 24 labels here: some must be counted
    assert len(layout.placed) >= 8
    note = (Rect(6, 200 - 22, 200, 16),)
    again = place(requests, 300, 200, reserved=note)
    assert_clean(again, requests, 300, 200, note)


@pytest.mark.parametrize("seed", range(30))
def test_random_crowds_never_overlap(seed: int) -> None:
    rng = random.Random(seed)
    width, height = rng.uniform(250, 700), rng.uniform(200, 600)
    requests = []
    for _ in range(rng.randint(2, 30)):
        w, h = rng.uniform(5, 120), rng.uniform(5, 120)
        target = Rect(rng.uniform(0, width - w), rng.uniform(0, height - h), w, h)
        lw = rng.uniform(30, 200)
        requests.append(Request(target, (lw, 16), (min(lw, 40), 16)))
    assert_clean(place(requests, width, height), requests, width, height)


def test_crosses_against_hand_cases() -> None:
    r = Rect(10, 10, 10, 10)
    assert crosses(((0, 15), (30, 15)), r)  # straight through
    assert crosses(((15, 15), (40, 40)), r)  # starts inside
    assert not crosses(((0, 0), (30, 0)), r)  # passes above
    assert not crosses(((0, 10), (30, 10)), r)  # along the top edge, not inside
    assert not crosses(((0, 40), (40, 0)), Rect(0, 0, 10, 10))  # misses the corner


# ----------------------------------------------------------------- through the canvas


def test_a_crowded_canvas_paints_disjoint_labels_and_counts_the_rest(qtbot: QtBot) -> None:
    canvas = RegionsCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(420, 320)
    canvas.show()
    canvas.show_image(None, (320, 240))
    colors = {"ana": QColor("#0072B2")}
    specs = [
        LabelSpec(
            (("ana", k),),
            (QRectF(20 + 14 * (k % 20), 40 + 60 * (k // 20), 13, 50),),
            GroupText(((f"class{k}", ("ana",)),), False),
            colors,
            {"ana": "ana"},
        )
        for k in range(60)
    ]
    canvas.set_labels(specs)
    drawn = canvas.drawn
    width, height = canvas.viewport().width(), canvas.viewport().height()
    requests = [Request(t, (1, 1), (1, 1)) for t in drawn.targets]
    assert_clean(
        drawn.layout, requests, width, height, (drawn.note_rect,) if drawn.note_rect else ()
    )
    assert drawn.layout.dropped
    assert drawn.note.startswith(f"{len(drawn.layout.dropped)} labels hidden")
    for placed, text in zip(drawn.layout.placed, drawn.texts, strict=True):
        cls = drawn.specs[placed.index].text.classes[0][0]
        assert text.startswith(cls)
        assert ("ana" in text) != placed.short  # the short form names no annotator


def _shapes(project: ProjectData, scheme: str, item: str) -> list[tuple[str, int, str]]:
    """(annotator, index, class) of every drawn shape, from the answer files."""
    out = []
    for name, answer in project.study.answers_for(scheme)[item].items():
        if isinstance(answer, ObjectSet):
            for k, obj in enumerate(answer.of_type(*REGION_TYPES)):
                out.append((name, k, str(getattr(obj, "label", ""))))
    return out


ITEMS = [
    ("street_images", "objects", i)
    for i in sorted(demo("street_images").study.answers_for("objects"))
]
ITEMS += [
    ("people_photos", "people", i)
    for i in sorted(demo("people_photos").study.answers_for("people"))[:6]
]


@pytest.mark.parametrize(("name", "scheme", "item"), ITEMS)
def test_every_shape_is_named_once_and_labels_never_overlap(
    qtbot: QtBot,
    name: str,
    scheme: str,
    item: str,
) -> None:
    project = demo(name)
    view = RegionsView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    view.show_context(ViewContext(project=project, scheme=scheme, item=item))
    qtbot.wait(10)
    drawn = view.canvas.drawn
    shapes = _shapes(project, scheme, item)
    # one label per object, and every shape in exactly one label, under its own class
    members = [m for spec in drawn.specs for m in spec.members]
    assert sorted(members) == sorted((a, k) for a, k, _ in shapes)
    for annotator, k, cls in shapes:
        spec = next(s for s in drawn.specs if (annotator, k) in s.members)
        assert any(c == cls and annotator in who for c, who in spec.text.classes)
    assert not drawn.layout.dropped, drawn.note  # at 1280×800 the demos all fit
    for placed, text in zip(drawn.layout.placed, drawn.texts, strict=True):
        spec = drawn.specs[placed.index]
        if not placed.short:
            for c, who in spec.text.classes:
                assert c in text and all(n in text for n in who)
    width, height = view.canvas.viewport().width(), view.canvas.viewport().height()
    requests = [Request(t, (1, 1), (1, 1)) for t in drawn.targets]
    assert_clean(drawn.layout, requests, width, height)
    # painted where laid out: the card's right padding is the label's near-white
    image = view.canvas.viewport().grab().toImage()
    for placed in drawn.layout.placed:
        r = placed.rect
        pixel = image.pixelColor(int(r.right - 2), int(r.y + r.h / 2))
        assert min(pixel.red(), pixel.green(), pixel.blue()) > 190, (text, pixel.name())


def test_hiding_an_annotator_takes_their_names_off_the_labels(qtbot: QtBot) -> None:
    view = RegionsView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    view.show_context(ViewContext(project=demo("street_images"), item="street_06"))
    before = len(view.canvas.drawn.specs)
    view.legend.boxes["ravi"].setChecked(False)
    drawn = view.canvas.drawn
    assert not any("ravi" in t for t in drawn.texts)
    assert all(name != "ravi" for s in drawn.specs for name, _ in s.members)
    # ravi's unmatched pedestrian had a label of its own: it is gone, not emptied
    assert len(drawn.specs) == before - 1
    view.legend.boxes["ravi"].setChecked(True)
    assert len(view.canvas.drawn.specs) == before


def test_presentation_mode_labels_use_aliases(qtbot: QtBot) -> None:
    project = demo("street_images")
    view = RegionsView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    aliases = anonymous_aliases(project.study.annotators)
    view.show_context(
        ViewContext(
            project=project, item="street_06", anonymous=True, aliases=aliases, font_scale=1.6
        )
    )
    drawn = view.canvas.drawn
    assert drawn.texts
    assert not any(n in t for t in drawn.texts for n in project.study.annotators)
    assert any(" A" in t or ": A" in t for t in drawn.texts)
    width, height = view.canvas.viewport().width(), view.canvas.viewport().height()
    requests = [Request(t, (1, 1), (1, 1)) for t in drawn.targets]
    assert_clean(
        drawn.layout, requests, width, height, (drawn.note_rect,) if drawn.note_rect else ()
    )
