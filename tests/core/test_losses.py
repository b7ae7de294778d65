"""Loss families of contracts.md, each worked by hand."""

from __future__ import annotations

import pytest

from app.core.contracts.labels.losses import family, is_correct, loss
from app.core.model import Kind, Scheme, TraceJudgement
from app.core.objects import BoxRegion, Cuboid, ObjectSet, Segment, Span

RADIO = Scheme("s", "radio", Kind.NOMINAL)
LIKERT = Scheme("q", "likert", Kind.ORDINAL, scale=("1", "2", "3", "4", "5"))
SLIDER = Scheme("v", "slider", Kind.ORDINAL, scale=tuple(str(v) for v in range(0, 101)))
MULTI = Scheme("m", "multiselect", Kind.MULTILABEL)
SPANS = Scheme("e", "span", None)
BOXES = Scheme("b", "image_annotation", Kind.REGIONS)
CUBES = Scheme("c", "spatial_annotation", Kind.CUBOIDS)
TIERS = Scheme("t", "tiered_annotation", Kind.TIERS)
TRACE = Scheme("r", "process_reward", Kind.TRACE)


def test_families() -> None:
    assert [family(s) for s in (RADIO, LIKERT, SLIDER, MULTI, SPANS, BOXES, CUBES, TIERS,
                                TRACE)] == ["categorical", "ordinal", "numeric", "multilabel",
                                            "spans", "regions", "objects3d", "segments",
                                            "traces"]
    assert family(Scheme("c", "text", None)) is None
    assert family(Scheme("seg", "image_annotation", Kind.MASKS)) is None


def test_categorical_ordinal_numeric_multilabel() -> None:
    assert loss(RADIO, "pos", "pos") == 0.0 and loss(RADIO, "pos", "neg") == 1.0
    assert loss(LIKERT, "2", "5") == 3 / 4
    assert is_correct(LIKERT, "2", "4") is True and is_correct(LIKERT, "1", "4") is False
    assert loss(SLIDER, "30", "55") == 0.25
    assert loss(MULTI, frozenset("ab"), frozenset("bc")) == pytest.approx(2 / 3)
    assert loss(MULTI, frozenset(), frozenset()) == 0.0


def test_spans_exact_offsets() -> None:
    a = ObjectSet((Span(0, 5, "PER"), Span(10, 12, "LOC")))
    b = ObjectSet((Span(0, 5, "PER"), Span(10, 13, "LOC")))
    assert loss(SPANS, a, b) == 0.5  # F1 = 2·1 / 4


def test_structured_losses_are_the_report_item_score() -> None:
    a = ObjectSet((BoxRegion("car", 0.0, 0.0, 0.2, 0.2),))
    b = ObjectSet((BoxRegion("car", 0.0, 0.0, 0.2, 0.1),))
    assert loss(BOXES, a, b) == pytest.approx(0.5)  # IoU 0.5, matched at 0.5
    cubes = ObjectSet((Cuboid("car", (0, 0, 0), (2, 2, 2)),))
    moved = ObjectSet((Cuboid("truck", (0.2, 0, 0), (2, 2, 2)),))
    assert loss(CUBES, cubes, moved) == pytest.approx(1 - (1.8 / 2.2) / 2)  # label halves
    x = ObjectSet((Segment(0, 4, "host", "speaker"),))
    y = ObjectSet((Segment(0, 4, "host", "events"),))
    assert loss(TIERS, x, y) == 1.0  # different tiers never match
    assert loss(BOXES, ObjectSet(()), ObjectSet(())) == 0.0  # two empty answers agree


def test_trace_loss_counts_only_shared_steps() -> None:
    judge = TraceJudgement({"0": "1", "1": "1", "2": "-1"})
    person = TraceJudgement({"0": "1", "2": "1", "3": None})
    assert loss(TRACE, judge, person) == 0.5
    assert loss(TRACE, judge, TraceJudgement({"0": "1"})) == 0.0
    assert loss(TRACE, judge, TraceJudgement({"7": "1"})) is None
    assert is_correct(TRACE, judge, TraceJudgement({"7": "1"})) is None
