"""The people of Potato's ``engine.sqlite`` in the window and on the certificate.

``cascade_fixture`` (written by Potato 2.12.1's labelling engine) has no
``user_state.json``: three people labelled 59 sentiment items each in the engine. The
overview, the answers view (people, then the machine tiers) and the certificate's page 1
count them. Oracles: the raw engine rows (``tests/core/test_engine_people.py``'s reader,
on a copy of the database) and the ``krippendorff`` package.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import krippendorff
import pypdf
import pytest

from app.cli.main import main
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.answers.view import MAJORITY_ROW, AnswersView
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.items.model import ANNOTATORS, ITEM, SCORE
from app.ui.views.items.view import ItemsView
from app.ui.views.overview.view import OverviewView
from tests.core.test_engine_people import DATA, blind_latest, raw_rows

PEOPLE = ["ann_a", "ann_b", "ann_c"]
SENTIMENT = ["positive", "negative", "neutral"]


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("engine-people") / "cascade_fixture"
    shutil.copytree(DATA / "cascade_fixture", out)
    return out


@pytest.fixture(scope="module")
def project(copy: Path) -> ProjectData:
    return run(open_project(copy, preview=True))


@pytest.fixture(scope="module")
def raw(copy: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return blind_latest(raw_rows(copy, tmp_path_factory.mktemp("raw")))


def test_the_overview_counts_the_people_and_fills_the_pair_matrix(
        qtbot: Any, project: ProjectData, raw: dict[str, Any]) -> None:
    view = OverviewView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(ViewContext(project=project))
    assert "150 items · 3 annotators:" in view.header_text
    assert view.heatmap.names == PEOPLE
    answers = raw["sentiment"]
    both = [i for i in answers if {"ann_a", "ann_c"} <= set(answers[i])]
    oracle = krippendorff.alpha(reliability_data=[[answers[i]["ann_a"] for i in both],
                                                  [answers[i]["ann_c"] for i in both]],
                                level_of_measurement="nominal", value_domain=SENTIMENT)
    assert view.heatmap.cell(0, 2).text.startswith(f"{oracle:.3f}")
    text = "\n".join(view.card("sentiment").texts())
    assert "nobody answered" not in text and "59 of 59 answered items scored" in text


def test_presentation_mode_hides_their_names_in_the_notes_too(
        qtbot: Any, project: ProjectData) -> None:
    view = OverviewView()
    qtbot.addWidget(view)
    aliases = anonymous_aliases(project.study.annotators)
    view.show_context(ViewContext(project=project, anonymous=True, aliases=aliases))
    assert view.heatmap.names == ["A", "B", "C"]
    shown = view.header_text + "\n".join(
        "\n".join(view.card(s).texts()) for s in ("sentiment", "quality"))
    assert not any(p in shown for p in PEOPLE)


def test_the_answers_view_shows_the_people_then_the_machine_tiers(
        qtbot: Any, project: ProjectData, raw: dict[str, Any]) -> None:
    view = AnswersView()
    qtbot.addWidget(view)
    checked = 0
    for item in sorted(raw["sentiment"])[:12]:
        view.show_context(ViewContext(project=project, item=item))
        rows = view.row_labels()
        assert rows[-1] == MAJORITY_ROW
        people = [r for r in rows[:-1] if r in PEOPLE]
        assert people == [p for p in PEOPLE if p in raw["sentiment"][item]
                          or p in raw["quality"].get(item, {})]
        machines = rows[len(people):-1]
        assert machines and all("machine" in m for m in machines)  # after the people
        col = view.column_schemes().index("sentiment")
        for row, person in enumerate(people):
            text = view.cell_text(row, col).split(" ")[-1]
            assert text == raw["sentiment"][item][person]
        checked += 1
    assert checked == 12


def test_the_items_view_lists_their_items_with_each_item_s_agreement(
        qtbot: Any, project: ProjectData, raw: dict[str, Any]) -> None:
    view = ItemsView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(ViewContext(project=project, scheme="sentiment"))
    answers = raw["sentiment"]
    assert view.model.rowCount() == len(answers) == 59
    items = view.column_texts(ITEM)
    scores = [float(t) for t in view.column_texts(SCORE)]
    for item, score in zip(items, scores, strict=True):  # the share of agreeing pairs
        labels = list(answers[item].values())
        pairs = [(a, b) for i, a in enumerate(labels) for b in labels[i + 1:]]
        assert score == pytest.approx(sum(a == b for a, b in pairs) / len(pairs), abs=5e-4)
    assert set(view.column_texts(ANNOTATORS)) == {"ann_a, ann_b, ann_c"}


def _pages(pdf: Path) -> list[str]:
    """Each page's words, read by poppler's pdftotext where it is installed (not by
    Accord), else by pypdf."""
    if shutil.which("pdftotext") is not None:
        text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                              capture_output=True, text=True).stdout
        return [" ".join(page.split()) for page in text.split("\f") if page.strip()]
    return [" ".join(page.extract_text().split()) for page in pypdf.PdfReader(pdf).pages]


def test_certificate_page_one_counts_the_people(qapp: Any, copy: Path, tmp_path: Path,
                                                 raw: dict[str, Any]) -> None:
    pdf = tmp_path / "cert.pdf"
    assert main(["certificate", str(copy), "-o", str(pdf)]) == 0
    pages = _pages(pdf)
    assert "150 items · 3 annotators · 2 schemes" in pages[0]
    whole = " ".join(pages)
    answers = raw["sentiment"]
    oracle = krippendorff.alpha(
        reliability_data=[[answers[i].get(p, float("nan")) for i in sorted(answers)]
                          for p in PEOPLE],
        level_of_measurement="nominal", value_domain=SENTIMENT)
    assert f"Krippendorff's α {oracle:.3f} on 59 items" in whole
    assert "nobody answered it" not in whole and "in the annotation files;" not in whole


def test_certificate_page_one_of_five_people_on_sixty_items(qapp: Any, tmp_path: Path) -> None:
    project = tmp_path / "engine_panels"
    shutil.copytree(DATA / "engine_panels", project)
    pdf = tmp_path / "cert.pdf"
    assert main(["certificate", str(project), "-o", str(pdf)]) == 0
    first = _pages(pdf)[0]
    assert "60 items · 5 annotators · 1 scheme" in first
    assert "0 annotators" not in " ".join(_pages(pdf))
