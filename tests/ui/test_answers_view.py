"""The answers view: every annotator's answer on an item, side by side.

Oracles: the answers are read again here straight from the demo's ``user_state.json``
files (not through Accord's reader), the majority is counted here, and the machine
tiers' labels come from ``labeling/predictions.jsonl`` read line by line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.answers.table import NOT_ANSWERED, majority
from app.ui.views.answers.view import DISAGREE_MARK, MACHINE_MARK, MAJORITY_ROW, AnswersView
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.registry import view_class

DEMOS = Path(__file__).resolve().parents[2] / "resources" / "demo"
TRIAGE = DEMOS / "support_triage"
SCHEMES = ("resolution", "helpfulness")


def raw_answers(project: Path) -> dict[str, dict[str, dict[str, str]]]:
    """scheme → item → annotator → label, from the Potato files themselves."""
    out: dict[str, dict[str, dict[str, str]]] = {}
    for state in sorted((project / "annotation_output").glob("*/user_state.json")):
        data = json.loads(state.read_text(encoding="utf-8"))
        person = data["user_id"]
        for item, pairs in data["instance_id_to_label_to_value"].items():
            for key, value in pairs:
                scheme = key["schema"]
                if scheme == "resolution" and value is True:
                    out.setdefault(scheme, {}).setdefault(item, {})[person] = key["name"]
                elif scheme == "helpfulness":
                    out.setdefault(scheme, {}).setdefault(item, {})[person] = str(value)
    return out


def plurality(labels: list[str]) -> str | None:
    counts = Counter(labels).most_common()
    if len(labels) < 2 or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


@pytest.fixture(scope="module")
def triage() -> ProjectData:
    return run(open_project(TRIAGE, preview=True))


@pytest.fixture(scope="module")
def sentiment() -> ProjectData:
    return run(open_project(DEMOS / "sentiment_reviews", preview=True))


def shown(view: AnswersView) -> dict[str, dict[str, str]]:
    """row label → scheme → cell text, for the rows above the majority row."""
    labels = view.row_labels()
    assert labels[-1] == MAJORITY_ROW
    return {label: {s: view.cell_text(r, c) for c, s in enumerate(view.column_schemes())}
            for r, label in enumerate(labels[:-1])}


def test_every_answer_of_every_item_as_the_files_say(qtbot, triage: ProjectData) -> None:  # type: ignore[no-untyped-def]
    raw = raw_answers(TRIAGE)
    view = AnswersView()
    qtbot.addWidget(view)
    order = list(triage.study.annotators)
    for item in triage.study.items:
        view.show_context(ViewContext(project=triage, item=item))
        assert view.column_schemes() == list(SCHEMES)
        table = shown(view)
        people = {p for s in SCHEMES for p in raw.get(s, {}).get(item, {})}
        assert list(table) == [p for p in order if p in table]  # study order
        assert people <= set(table)
        for person, cells in table.items():
            for scheme in SCHEMES:
                answer = raw[scheme].get(item, {}).get(person)
                expected = triage.study.answers_for(scheme).get(item, {}).get(person)
                assert answer == expected  # the reader agrees with the files
                text = cells[scheme].removeprefix(f"{DISAGREE_MARK} ")
                assert text == (NOT_ANSWERED if answer is None else answer)


def test_disagreements_are_marked_where_an_answer_differs(qtbot, triage: ProjectData) -> None:  # type: ignore[no-untyped-def]
    raw = raw_answers(TRIAGE)
    view = AnswersView()
    qtbot.addWidget(view)
    marked = 0
    for item in triage.study.items:
        view.show_context(ViewContext(project=triage, item=item))
        rows = view.row_labels()
        for col, scheme in enumerate(view.column_schemes()):
            answers = raw[scheme].get(item, {})
            major = plurality(list(answers.values()))
            for row, person in enumerate(rows[:-1]):
                answer = answers.get(person)
                differs = major is not None and answer is not None and answer != major
                text = view.cell_text(row, col)
                assert text.startswith(DISAGREE_MARK) == differs, (item, scheme, person)
                assert (view.cell_state(row, col) == "disagrees") == differs
                marked += differs
            summary = view.cell_text(len(rows) - 1, col)
            if major is None:
                assert "majority" in summary or "undefined" in summary  # said in words
            else:
                assert summary.startswith(f"{major}  ·  ")
    assert marked > 10  # the demo does disagree


def test_the_item_text_is_shown_above(qtbot, triage: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = AnswersView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=triage, item="conv-009"))
    record = json.loads(next(line for line in (TRIAGE / "data" / "conversations.jsonl")
                             .read_text(encoding="utf-8").splitlines() if '"conv-009"' in line))
    assert record["text"] in view.text.text() and "&#x27;" not in view.text.text()
    assert "conv-009" in view.header.text()


def test_presentation_mode_hides_names(qtbot, triage: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = AnswersView()
    qtbot.addWidget(view)
    names = triage.study.annotators
    aliases = anonymous_aliases(names)
    view.show_context(ViewContext(project=triage, item="conv-009"))
    plain = view.row_labels()[:-1]
    assert plain and set(plain) <= set(names)
    view.show_context(ViewContext(project=triage, item="conv-009", anonymous=True,
                                  aliases=aliases))
    hidden = view.row_labels()[:-1]
    assert hidden == [aliases[name] for name in plain]
    everything = " ".join([view.header.text(), view.text.text(), *view.row_labels(),
                           *(view.cell_text(r, c) for r in range(view.table.rowCount())
                             for c in range(view.table.columnCount()))])
    assert not any(name in everything for name in names)


def test_machine_tiers_are_rows_marked_as_machines(qtbot, sentiment: ProjectData) -> None:  # type: ignore[no-untyped-def]
    predictions: dict[tuple[str, str, str], dict[str, object]] = {}
    path = DEMOS / "sentiment_reviews" / "labeling" / "predictions.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        p = json.loads(line)
        predictions[(p["item"], p["schema"], p["tier"])] = p
    view = AnswersView()
    qtbot.addWidget(view)
    item = sorted(sentiment.study.answers_for("sentiment"))[0]
    view.show_context(ViewContext(project=sentiment, item=item))
    table = shown(view)
    for tier in ("distilbert", "gemma-12b"):
        label = f"{MACHINE_MARK} {tier} (machine)"
        assert label in table
        for scheme in view.column_schemes():
            p = predictions.get((item, scheme, tier))
            text = table[label][scheme].removeprefix(f"{DISAGREE_MARK} ")
            if p is None:
                assert text == NOT_ANSWERED
            else:
                assert text == f"{p['label']}  · {p['confidence']:.2f}"
    people = [r for r in table if not r.startswith(MACHINE_MARK)]
    assert people and set(people) <= set(sentiment.study.annotators)
    assert list(table)[:len(people)] == people  # people first, machines after


def test_majority_rules() -> None:
    assert majority(["a", "a", "b"], False).answer == "a"
    assert majority(["a", "b"], False).answer is None
    assert "tie" in majority(["a", "b"], False).text
    assert "one answer" in majority(["a"], False).text
    assert "nobody" in majority([], False).text
    sets = [frozenset({"x", "y"}), frozenset({"x"}), frozenset({"x", "y"})]
    assert majority(sets, True).answer == frozenset({"x", "y"})
    assert majority([frozenset({"x"}), frozenset()], True).answer is None


def test_an_item_without_a_categorical_scheme_says_so(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lidar = run(open_project(DEMOS / "lidar_sweeps"))
    view = AnswersView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=lidar, item=next(iter(lidar.study.items))))
    assert view.empty_message == "This project has no categorical scheme to show."
    assert view.table.isHidden()
    copy = tmp_path / "support_triage"
    shutil.copytree(TRIAGE, copy)
    with (copy / "data" / "conversations.jsonl").open("a", encoding="utf-8") as data:
        data.write(json.dumps({"id": "conv-new", "text": "Nobody has read me yet.",
                               "steps": []}) + "\n")
    fresh = run(open_project(copy, preview=True))
    assert "conv-new" in fresh.study.items
    view.show_context(ViewContext(project=fresh, item="conv-new"))
    assert view.empty_message == "Item conv-new has no answers in a categorical scheme."
    assert view.table.isHidden()
    view.show_context(ViewContext())
    assert view.empty_message.startswith("No project is open")


def test_no_item_selected_shows_the_first_answered(qtbot, triage: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = AnswersView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=triage))
    assert view.answers is not None and view.answers.item == next(iter(triage.study.items))
    assert "no item selected" in view.header.text()


def test_open_renders_the_answers_view_to_a_png(tmp_path: Path) -> None:
    assert view_class("answers") is AnswersView
    out = tmp_path / "answers.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "app", "open", str(TRIAGE), "--screenshot",
                           str(out), "--view", "answers", "--item", "conv-009",
                           "--size", "900x560"],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    assert not image.isNull() and (image.width(), image.height()) == (900, 560)


def test_the_first_answered_item_is_the_walks_in_either_map_of_items() -> None:
    """The first item in the study's order with a human answer, as a walk of every item
    finds it (the oracle), whether the items are a dict or a sharded map (found by
    position there); none answered is ``None``."""
    import random
    from types import SimpleNamespace

    from app.core.model import Kind
    from app.core.sharded import ShardedMap
    from app.ui.views.answers.table import first_answered_item

    rng = random.Random(11)
    for _ in range(200):
        ids = [f"i{k}" for k in rng.sample(range(400), rng.randrange(1, 60))]
        answered = {s: {i: {"ann": "a"} for i in ids if rng.random() < 0.15}
                    for s in ("a", "b")}
        answered["a"].update({"unknown": {"ann": "a"}} if rng.random() < 0.3 else {})
        answered["c"] = {ids[0]: {"ann": "box"}}  # not categorical: never counted
        walk = next((i for i in ids if i in answered["a"] or i in answered["b"]), None)
        sharded = ShardedMap.of(ids, ids)
        assert sharded is not None
        for items in (dict.fromkeys(ids), sharded):
            study = SimpleNamespace(
                items=items, answers_for=lambda s, answered=answered: answered.get(s, {}),
                schemes={"a": SimpleNamespace(kind=Kind.NOMINAL),
                         "b": SimpleNamespace(kind=Kind.NOMINAL),
                         "c": SimpleNamespace(kind=Kind.CUBOIDS)})
            project = SimpleNamespace(study=study)
            assert first_answered_item(project) == walk  # type: ignore[arg-type]
