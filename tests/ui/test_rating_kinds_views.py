"""The rating kinds on screen (issue 37): a project Potato 2.12.1's server wrote, opened
in the overview: a number scheme's card heads with its interval α, lists it as
chance-corrected and Pearson r, MAE, RMSE, ICC as not, and the rotating panel's ICC says
why it is undefined; the project tree's headline; a card sort's placements in words."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.answers.table import answer_text
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.metric_text import CORRECTED, UNCORRECTED, short_headline
from app.ui.views.overview.view import OverviewView

NUMBERS = (Path(__file__).resolve().parents[1] / "data" / "potato_server" / "ratings"
           / "numbers")


@cache
def _project() -> ProjectData:
    return run(open_project(NUMBERS))


def _overview(qtbot: QtBot) -> OverviewView:
    project = _project()
    view = OverviewView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(ViewContext(project=project,
                                  aliases=anonymous_aliases(project.study.annotators)))
    return view


def test_a_number_card_heads_with_interval_alpha_and_sorts_its_metrics(qtbot: QtBot) -> None:
    view = _overview(qtbot)
    text = " ".join("\n".join(view.card("count").texts()).split())
    assert "Krippendorff's α (interval): 0.926" in text
    corrected = text.index("Chance-corrected")
    uncorrected = text.index("Not chance-corrected")
    assert corrected < text.index("Krippendorff's α (interval) 0.926") < uncorrected
    for line in ("Pearson r (mean over pairs) 0.927", "ICC(2,k) (items every annotator "
                 "rated) 0.975"):
        assert text.index(line) > uncorrected, line
    assert {"alpha_interval", "weighted_kappa_linear"} <= set(CORRECTED)
    assert {"pearson_r", "mae", "kendall_tau", "spearman_footrule"} <= set(UNCORRECTED)


def test_the_rotating_panels_card_says_why_icc_is_undefined(qtbot: QtBot) -> None:
    text = " ".join("\n".join(_overview(qtbot).card("pain").texts()).split())
    assert ("no item was rated by all 3 annotators; ICC(2,k) needs the complete items × "
            "raters table") in text


def test_the_tree_heads_numbers_and_rankings() -> None:
    report = _project().report
    assert short_headline(report.schemes["count"]).startswith("interval α 0.93")
    assert short_headline(report.schemes["priorities"]).startswith("τ 0.69")


def test_a_card_sort_placement_reads_group_then_card() -> None:
    answer = _project().study.answers_for("features")["n00"]["alice"]
    text = answer_text(answer)
    assert "\u241f" not in text
    groups = {part.split(": ")[0] for part in text.split(", ")}
    assert groups <= {"Keep", "Drop", "Later"} and text.count(": ") == 5
