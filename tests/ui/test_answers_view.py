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
    tie = majority(["b", "a", "b", "a", "c"], False, ["ana", "ravi", "chen", "dana", "eli"])
    assert tie.answer is None and tie.text == "no majority"
    # Who chose what: most chosen first, ties alphabetical, each with its annotators.
    assert tie.choices == (("a", ("ravi", "dana")), ("b", ("ana", "chen")), ("c", ("eli",)))
    assert tie.describe(str.upper) == "no majority: a (RAVI, DANA) · b (ANA, CHEN) · c (ELI)"
    split = majority([frozenset({"x"}), frozenset({"x", "y"})], True, ["ana", "ravi"])
    assert split.answer is None
    assert split.describe() == "no majority: y (ravi) · not y (ana)"
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


def agreeing_pair_share(labels: list[str]) -> float | None:
    pairs = [(a, b) for k, a in enumerate(labels) for b in labels[k + 1:]]
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else None


def test_no_item_selected_shows_the_most_disagreement(qtbot, triage: ProjectData) -> None:  # type: ignore[no-untyped-def]
    # The oracle: from the Potato files, the share of agreeing annotator pairs per item
    # and scheme; the lowest over both schemes, ties by item id (issue 35: not the first
    # answered item).
    raw = raw_answers(TRIAGE)
    worst: dict[str, float] = {}
    for scheme in SCHEMES:
        for item, by in raw[scheme].items():
            share = agreeing_pair_share(list(by.values()))
            if share is not None:
                worst[item] = min(share, worst.get(item, share))
    expected = min(worst, key=lambda item: (worst[item], item))
    assert expected != next(iter(triage.study.items))
    view = AnswersView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=triage))
    assert view.answers is not None and view.answers.item == expected
    assert "the most disagreement" in view.header.text()


def test_a_tie_says_no_majority_and_who_chose_what(qtbot, triage: ProjectData) -> None:  # type: ignore[no-untyped-def]
    raw = raw_answers(TRIAGE)
    item, by = next((item, by) for item, by in sorted(raw["helpfulness"].items())
                    if len(by) > 1 and plurality(list(by.values())) is None)
    context = ViewContext(project=triage, item=item,
                          aliases=anonymous_aliases(triage.study.annotators))
    view = AnswersView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    for ctx in (context, context.with_(anonymous=True)):
        view.show_context(ctx)
        col = SCHEMES.index("helpfulness")
        cell = view.cell_text(view.table.rowCount() - 1, col)
        assert cell.startswith("no majority: ")
        for person, label in by.items():
            shown = ctx.annotator_label(person)
            assert f"{label} (" in cell and shown in cell.split(f"{label} (")[1].split(")")[0]
        assert "no majority on helpfulness (a tie)" in view.header.text()
        # The whole sentence is on screen: the row is as tall as its wrapped text.
        row = view.table.rowCount() - 1
        needed = view.table.sizeHintForRow(row)
        assert view.table.rowHeight(row) >= needed


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


def test_the_most_disagreement_is_read_from_the_jobs_scores_without_a_walk() -> None:
    """At a million items the pick is one ``argmin`` per scheme over the scores the
    project job computed: the items are never walked (iterating them fails here), and
    a non-categorical scheme's lower score is not taken."""
    from types import SimpleNamespace

    import numpy as np

    from app.core.agreement.item_scores import ItemScores
    from app.core.model import Kind
    from app.ui.views.answers.table import most_disagreement_item

    class NoWalk(dict):  # type: ignore[type-arg]
        def __iter__(self):  # type: ignore[no-untyped-def]
            raise AssertionError("the items were walked")

    n = 1_000_000
    ids = tuple(f"i{k:07d}" for k in range(n))
    rng = np.random.default_rng(5)

    def scores(scheme: str, low: int, value: float) -> ItemScores:
        score = rng.uniform(0.5, 1.0, n)
        score[::7] = np.nan  # items with one answer: no score
        score[low] = value
        return ItemScores(scheme=scheme, kind="nominal", items=ids, annotators=(),
                          answered=np.zeros((n, 0), bool), score=score,
                          count_diff=np.full(n, np.nan), n_pairs=np.ones(n))

    study = SimpleNamespace(items=NoWalk(), answers_for=lambda s: {},
                            schemes={"a": SimpleNamespace(kind=Kind.NOMINAL),
                                     "b": SimpleNamespace(kind=Kind.ORDINAL),
                                     "boxes": SimpleNamespace(kind=Kind.CUBOIDS)})
    project = SimpleNamespace(study=study, item_scores={
        "a": scores("a", 500_001, 0.1), "b": scores("b", 12, 0.2),
        "boxes": scores("boxes", 3, 0.0)})
    assert most_disagreement_item(project) == ids[500_001]  # type: ignore[arg-type]
    project.item_scores["b"].score[40] = 0.1  # a tie: the smaller id
    assert most_disagreement_item(project) == ids[40]  # type: ignore[arg-type]
    # No scores at all (nobody answered twice): the first answered item, here none.
    assert most_disagreement_item(SimpleNamespace(study=study, item_scores={})) is None  # type: ignore[arg-type]
