"""Numbers on screen say how far they can be trusted (issue 15, part 4).

A lead read "α 1.000" on 4 items and "CI 1.000–1.000" as certainty; saw three headlines
for one scheme (the card's detection α 0.041, the tree's "agreement 0.46", a heatmap of
mean agreement); and found KS listed as chance-corrected. Each test below fails on the
screen that lead saw.
"""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.core.agreement.result import SchemeResult
from app.report.agreement_text import CHANCE_CORRECTED
from app.ui.project_tree import ProjectTree
from app.ui.views.metric_text import (
    CORRECTED,
    SMALL_SAMPLE,
    UNCORRECTED,
    headline_key,
    interval_text,
    short_headline,
)
from app.ui.views.overview.view import OverviewView
from app.ui.views.traces.view import TracesView
from tests.ui.views_helpers import context, demo


def _overview(qtbot: QtBot, name: str, scheme: str | None = None) -> OverviewView:
    view = OverviewView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(context(name, scheme=scheme) if scheme else context(name))
    return view


def test_a_degenerate_interval_is_said_in_words() -> None:
    assert interval_text([1.0, 1.0], "detection_f1", 0.95) == \
        "95% CI degenerate (every resample 1.000)"
    assert interval_text([0.2, 0.4], "alpha", 0.95) == "95% CI 0.200 – 0.400"
    assert interval_text([0.2, 0.4], "alpha", 0.95, small=True).startswith("⚠ ")


def test_ks_is_not_chance_corrected_and_sigma_is() -> None:
    assert "ks" not in CORRECTED and "ks" in UNCORRECTED
    assert "sigma" in CORRECTED
    assert "ks" not in CHANCE_CORRECTED and "sigma" in CHANCE_CORRECTED  # text, CSV, JSON


def test_a_small_sample_is_flagged_beside_alpha_kappa_and_the_interval(qtbot: QtBot) -> None:
    result = demo("people_photos").report.schemes["person_present"]
    assert result.n_items < SMALL_SAMPLE and result.metrics["alpha"] == 1.0
    view = _overview(qtbot, "people_photos")
    text = "\n".join(view.card("person_present").texts())
    assert "Only 4 items scored" in text
    for line in ("Krippendorff's α 1.000 ⚠", "Cohen's κ (mean over pairs) 1.000 ⚠"):
        assert line in " ".join(text.split()), line
    regions = " ".join("\n".join(view.card("people").texts()).split())
    assert "⚠ 95% CI degenerate (every resample 1.000)" in regions
    assert "CI 1.000 – 1.000" not in regions


def test_a_large_sample_carries_no_warning(qtbot: QtBot) -> None:
    view = _overview(qtbot, "support_triage")
    text = "\n".join(view.card("resolution").texts())
    assert "⚠" not in text and "Only" not in text


def _tree_headline(qtbot: QtBot, name: str, scheme: str) -> str:
    tree = ProjectTree()
    qtbot.addWidget(tree)
    tree.show_project(demo(name))
    node = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                if tree.topLevelItem(i).text(0) == scheme)
    return node.text(2)


def test_one_headline_per_scheme_in_card_tree_and_pair_matrix(qtbot: QtBot) -> None:
    result: SchemeResult = demo("street_images").report.schemes["objects"]
    assert headline_key(result.metrics) == "detection_alpha"
    # 15 items: the headline carries the small-sample warning everywhere too.
    assert _tree_headline(qtbot, "street_images", "objects") == "detection α 0.04 ⚠"
    assert short_headline(result) == "detection α 0.04 ⚠"
    view = _overview(qtbot, "street_images", scheme="objects")
    card = " ".join("\n".join(view.card("objects").texts()).split())
    assert card.startswith("objects image_annotation · regions Detection α (found the same "
                           "objects): 0.041 ⚠ 15 items")
    title = view.pair_title.text()
    assert "the headline, is one number over all annotators together" in title


def test_the_tree_and_card_agree_for_every_demo_scheme(qtbot: QtBot) -> None:
    for name in ("support_triage", "lidar_sweeps", "speaker_turns", "people_photos"):
        for scheme, result in demo(name).report.schemes.items():
            key = headline_key(result.metrics)
            if key is None:
                continue
            assert _tree_headline(qtbot, name, scheme) == short_headline(result)


def test_the_traces_view_flags_alpha_over_four_traces(qtbot: QtBot) -> None:
    view = TracesView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(context("agent_judge", scheme="steps"))
    assert demo("agent_judge").report.schemes["steps"].n_items == 4
    assert "Only 4 items scored" in view.summary.text()
