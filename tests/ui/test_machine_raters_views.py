"""Machine raters in the window: marked "⚙ name (machine)" everywhere, people the headline.

``tests/data/potato_server/machines`` was written by the real Potato 2.12.1 server with
three people and three declared machine annotators (their ``origin`` stamped by Potato).
The pair matrix shows every pair (the report's ``pooled`` partition) with the machines
marked; the cards are people only with one line for the machines and everyone; the items
filter scores a machine rater over its pairs with everyone; the answers view lists the
machine raters after the people and keeps them out of the majority. Oracles: Potato's
own ``/admin/iaa`` partitions and the raw answers in the study.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import krippendorff
import pytest

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.answers.view import MAJORITY_ROW, AnswersView
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.items.model import ANNOTATORS, SCORE
from app.ui.views.items.view import ItemsView
from app.ui.views.overview.view import OverviewView

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_server"
MACHINES = ("llm_judge", "ner_tool", "rule_bot")
PEOPLE = ("alice", "bob", "carol")


def mark(name: str) -> str:
    return f"⚙ {name} (machine)"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> ProjectData:
    copy = tmp_path_factory.mktemp("machines") / "machines"
    shutil.copytree(DATA / "machines", copy)
    return run(open_project(copy, preview=True))


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> ProjectData:
    copy = tmp_path_factory.mktemp("categorical") / "categorical"
    shutil.copytree(DATA / "categorical", copy)
    return run(open_project(copy, preview=True))


def potato_pooled() -> dict[str, Any]:
    iaa = json.loads((DATA / "machines" / "expected" / "iaa.json").read_text())
    schemas: dict[str, Any] = iaa["partitions"]["pooled"]["schemas"]
    return schemas


def test_labels_mark_machine_raters_only(project: ProjectData, plain: ProjectData) -> None:
    ctx = ViewContext(project=project)
    assert [ctx.annotator_label(a) for a in project.study.annotators] == \
        [*PEOPLE, *(mark(m) for m in MACHINES)]
    shown = ViewContext(project=project, anonymous=True,
                        aliases=anonymous_aliases(project.study.annotators))
    assert shown.annotator_label("ner_tool") == mark("E")  # presentation mode too
    assert shown.annotator_label("bob") == "B"
    other = ViewContext(project=plain)
    assert [other.annotator_label(a) for a in plain.study.annotators] == \
        list(plain.study.annotators)


def test_overview_every_pair_marked_and_cards_people_only(qtbot: Any,
                                                          project: ProjectData) -> None:
    view = OverviewView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(ViewContext(project=project, scheme="sentiment"))
    assert all(mark(m) in view.header_text for m in MACHINES)
    assert "every number on the cards is over people only" in view.header_text
    assert view.heatmap.names == [*PEOPLE, *(mark(m) for m in MACHINES)]
    # a person-machine cell: the pair's α, against the krippendorff package on the two
    answers = project.study.answers["sentiment"]
    both = sorted(i for i, by in answers.items() if {"alice", "ner_tool"} <= set(by))
    values = sorted({answers[i][a] for i in both for a in ("alice", "ner_tool")})
    oracle = krippendorff.alpha(
        reliability_data=[[values.index(answers[i][a]) for i in both]
                          for a in ("alice", "ner_tool")],
        level_of_measurement="nominal")
    i, j = view.heatmap.names.index("alice"), view.heatmap.names.index(mark("ner_tool"))
    assert view.heatmap.cell(i, j).text.startswith(f"{oracle:.3f}\nn={len(both)}")
    card = " ".join(view.card("sentiment").texts())
    people = project.report.schemes["sentiment"].metrics["alpha"]
    assert isinstance(people, float) and f"{people:.3f}" in card
    for part, potato in (("machine_machine", None), ("pooled", potato_pooled())):
        alpha = project.report.partitions[part].schemes["sentiment"].metrics["alpha"]
        assert isinstance(alpha, float) and f"{alpha:.3f}" in card
        if potato is not None:
            assert alpha == pytest.approx(potato["sentiment"]["metrics"]["alpha_nominal"],
                                          abs=1e-9)


def test_items_filter_marks_and_scores_a_machine_rater(qtbot: Any,
                                                      project: ProjectData) -> None:
    view = ItemsView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(ViewContext(project=project, scheme="sentiment"))
    combo = [view.annotator_combo.itemText(i) for i in range(view.annotator_combo.count())]
    assert [mark(m) for m in MACHINES] == combo[-3:]
    everyone = set(" ".join(view.column_texts(ANNOTATORS)).split(", "))
    assert not everyone & set(MACHINES)  # "All annotators": the people, the headline
    view.annotator_combo.setCurrentIndex(view.annotator_combo.findData("llm_judge"))
    rows = view.column_texts(ANNOTATORS)
    assert rows and all(mark("llm_judge") in r for r in rows)
    assert all(s not in ("", "—") for s in view.column_texts(SCORE))


def test_answers_machine_raters_after_people_not_in_the_majority(
        qtbot: Any, project: ProjectData) -> None:
    view = AnswersView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(ViewContext(project=project, item="q02"))
    assert view.row_labels() == [*PEOPLE, *(mark(m) for m in MACHINES), MAJORITY_ROW]
    assert view.answers is not None
    sentiment = view.answers.schemes.index("sentiment")
    major = view.answers.majorities[sentiment]
    answers = project.study.answers["sentiment"]["q02"]
    people = [answers[p] for p in PEOPLE]
    assert major.n == 3
    assert major.answer == max(set(people), key=people.count)
    assert "3 machine raters" in view.header.text()
