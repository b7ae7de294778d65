"""The window's kind table (``app/ui/views/kinds.py``): every kind of the core's table has
a row, each row's detail view is a view the window has, and the docks, the detail views'
scheme lists and the metric names read it."""

from __future__ import annotations

from app.core.agreement.kinds import registry
from app.ui import dock_layout
from app.ui.views.base import VIEW_NAMES
from app.ui.views.kinds import LOOKS, kinds_drawn_by, kinds_with_confusion, look_of
from app.ui.views.metric_text import metric_label


def test_every_kind_has_a_look_and_every_look_a_view() -> None:
    names = {str(spec.kind) for spec in registry.KINDS}
    assert set(LOOKS) == names, "a row in app/ui/views/kinds.py for every kind"
    for kind, look in LOOKS.items():
        assert look.detail is None or look.detail in VIEW_NAMES, kind
        assert set(look.labels) <= set(registry.spec_of(kind).metrics), kind


def test_the_window_reads_the_table() -> None:
    assert {k: v.detail for k, v in LOOKS.items() if v.detail} == dock_layout.DETAIL_FOR_KIND
    assert kinds_drawn_by("answers") == {"nominal", "ordinal", "multilabel", "grounding",
                                         "captions", "episodes", "rollouts"}
    assert kinds_drawn_by("tiers") == {"segments", "tiers"}
    assert kinds_with_confusion() == {"nominal", "ordinal", "trace"}
    assert metric_label("kappa", "ordinal") == "Weighted κ (quadratic, mean over pairs)"
    assert metric_label("alpha", "trace") == "Step-level α"
    assert metric_label("alpha", "nominal") != metric_label("alpha", "trace")


def test_a_kind_without_a_row_has_no_detail_tab_and_common_names() -> None:
    assert look_of("toy").detail is None and look_of(None).unit == "item"
    assert "toy" not in dock_layout.DETAIL_FOR_KIND
    assert metric_label("kappa", "toy") == metric_label("kappa", "nominal")


def test_masks_say_why_they_have_no_pair_matrix() -> None:
    assert "STAPLE" in look_of("masks").no_pairs
    pooled = {"masks", "grounding", "captions", "episodes", "rollouts", "matrix"}
    assert all(not look.no_pairs for kind, look in LOOKS.items() if kind not in pooled)
    assert all("pooled over annotator pairs" in look_of(k).no_pairs
               for k in pooled - {"masks", "matrix"})
    assert "per row and pooled over every item × row" in look_of("matrix").no_pairs
