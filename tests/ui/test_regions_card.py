"""The regions numbers card: chance-corrected numbers apart from the rest, KS with the
localization numbers, every interval on one line at 1280×800.

Oracles: the groups are the issue's, written out here (not read from the card module);
the interval strings are built here from the report's interval ends; "one line" is
measured with the label's own font metrics against the width and height Qt gave it.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from app.paths import demo_studies
from app.report.agreement_text import CHANCE_CORRECTED as REPORT_CORRECTED
from app.ui.main_window import MainWindow
from app.ui.settings import Settings
from app.ui.views.base import ViewContext
from app.ui.views.metric_text import CORRECTED
from app.ui.views.regions.view import RegionsView
from tests.ui.clipping import clipped_texts
from tests.ui.shell_helpers import open_and_wait
from tests.ui.views_helpers import demo

ISSUE_GROUPS = {
    "Chance-corrected": {"detection_alpha", "classification_alpha", "sigma"},
    "Localization": {"ks", "mean_within_distance", "mean_between_distance"},
    "Matching": {"mean_agreement", "detection_f1", "mean_matched_iou", "mean_object_count_diff"},
}


def _view(
    qtbot: QtBot, name: str, size: tuple[int, int] = (1280, 800), font_scale: float = 1.0
) -> RegionsView:
    view = RegionsView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    view.show_context(ViewContext(project=demo(name), font_scale=font_scale))
    for _ in range(3):  # the card's rows are shown and laid out by the event loop
        QApplication.processEvents()
        qtbot.wait(20)
    return view


@pytest.mark.parametrize("name", ["street_images", "people_photos"])
def test_ks_is_listed_with_localization_not_chance_corrected(qtbot: QtBot, name: str) -> None:
    view = _view(qtbot, name)
    groups: dict[str, set[str]] = {}
    for key, title in view.card.group_of.items():
        groups.setdefault(title, set()).add(key)
    assert groups == ISSUE_GROUPS
    assert "ks" not in groups["Chance-corrected"]
    # the overview, the text report and the card agree on what is corrected
    result = demo(name).report.schemes["objects" if name == "street_images" else next(
        k for k, r in demo(name).report.schemes.items() if r.kind == "regions")]
    assert groups["Chance-corrected"] == set(CORRECTED) & set(result.metrics)
    assert groups["Chance-corrected"] == set(REPORT_CORRECTED) & set(result.metrics)
    # and on screen, in that order: each group's header above its rows
    text = view.card.text()
    assert (
        text.index("[Chance-corrected]") < text.index("[Localization]") < text.index("[Matching]")
    )
    ks_row = next(line for line in text.splitlines() if "KS" in line)
    assert ks_row.startswith("[Localization]")


def test_values_and_intervals_are_the_reports(qtbot: QtBot) -> None:
    view = _view(qtbot, "street_images")
    result = demo("street_images").report.schemes["objects"]
    lo, hi = result.intervals["mean_agreement"]
    assert view.card.rows["mean_agreement"][2].text() == f"⚠ 95% CI {lo:.3f} – {hi:.3f}"
    lo, hi = result.intervals["mean_object_count_diff"]
    assert (
        view.card.rows["mean_object_count_diff"][2].text().endswith(f"95% CI {lo:.2f} – {hi:.2f}")
    )
    assert view.card.rows["ks"][2].text() == f"p = {result.extra['ks_pvalue']:.2g}"
    assert (
        view.card.rows["detection_alpha"][1]
        .text()
        .startswith(f"<b>{result.metrics['detection_alpha']:.3f}</b>")
    )


def test_undefined_alphas_say_why(qtbot: QtBot) -> None:
    view = _view(qtbot, "people_photos")
    result = demo("people_photos").report.schemes["people"]
    assert result.metrics["detection_alpha"] is None
    assert "undefined" in view.card.rows["detection_alpha"][1].text()
    notes = " ".join(n.text() for n in view.card.notes)
    assert result.undefined["detection_alpha"] in notes
    assert result.undefined["classification_alpha"] in notes


def _one_line(label: QLabel) -> bool:
    metrics = label.fontMetrics()
    needed = label.sizeHint().width()
    return (
        not label.wordWrap()
        and needed <= label.width() + 1
        and label.sizeHint().height() < 2 * metrics.height()
        and metrics.horizontalAdvance(label.text().replace("&nbsp;", " ")) <= label.width()
    )


@pytest.mark.parametrize("font_scale", [1.0, 1.6])
@pytest.mark.parametrize("name", ["street_images", "people_photos"])
def test_every_interval_is_on_one_line_at_1280x800(
    qtbot: QtBot, name: str, font_scale: float
) -> None:
    view = _view(qtbot, name, font_scale=font_scale)
    intervals = [labels[2] for labels in view.card.rows.values() if labels[2].text()]
    assert len(intervals) >= 4  # the matching numbers' intervals and KS's p
    for label in intervals:
        assert _one_line(label), (label.text(), label.width(), label.sizeHint().width())
    for labels in view.card.rows.values():
        assert not clipped_texts(labels[0]) and not clipped_texts(labels[1])
        # presentation mode's larger text reaches every column (a style sheet stopped it)
        for label in labels:
            assert label.font().pointSizeF() == pytest.approx(view.font().pointSizeF())


def test_intervals_fit_in_the_window_at_1280x800(qtbot: QtBot, settings: Settings) -> None:
    window = MainWindow(settings, watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    open_and_wait(qtbot, window, demo_studies()["street_images"])
    window.dock_layout.raise_view("regions")
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(30)
    view = window.views["regions"]
    assert isinstance(view, RegionsView)
    intervals = [labels[2] for labels in view.card.rows.values() if labels[2].text()]
    assert intervals
    for label in intervals:
        assert _one_line(label), (label.text(), label.width(), label.sizeHint().width())
