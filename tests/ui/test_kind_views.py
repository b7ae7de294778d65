"""The views of issue 37 (spans, numbers, rankings, matrices) on projects Potato 2.12.1's
server wrote: each shows, for a known item, the spans, points and lines the project's
files hold (read here from ``user_state.json`` directly, never from the view's code),
presentation mode hides every name, and an undefined metric shows its sentence.

Oracles: the stored answers themselves; Potato's own ``iaa/span.py`` (``pairwise_span_f1``)
for the items' disagreement order; scipy's ``kendalltau`` for an item's τ; numpy for
the Bland–Altman bias; the report's JSON blocks for the matrix rows.
"""

from __future__ import annotations

import itertools
import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from potato.server_utils.iaa.span import pairwise_span_f1
from PySide6.QtWidgets import QLabel, QTableWidget
from pytestqt.qtbot import QtBot
from scipy.stats import kendalltau

from app.core.agreement.partitions import drawn
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.matrices.model import POOLED
from app.ui.views.matrices.view import MatricesView
from app.ui.views.numbers.view import ALL_PAIRS, NumbersView
from app.ui.views.rankings.view import RankingsView
from app.ui.views.spans.model import LABEL_MISMATCH, MATCHED
from app.ui.views.spans.view import SpansView

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_server"
NUMBERS = DATA / "ratings" / "numbers"
SPANS = DATA / "spans"


@cache
def _project(path: Path) -> ProjectData:
    return run(open_project(path))


def _states(path: Path) -> dict[str, dict[str, Any]]:
    return {p.parent.name: json.loads(p.read_text())
            for p in sorted(path.glob("annotation_output/*/user_state.json"))}


def _label_values(path: Path, scheme: str, item: str) -> dict[str, dict[str, str]]:
    """annotator → {name: value} of ``scheme`` on ``item`` as Potato stored it."""
    out: dict[str, dict[str, str]] = {}
    for who, state in _states(path).items():
        for key, value in state["instance_id_to_label_to_value"].get(item, []):
            if key["schema"] == scheme:
                out.setdefault(who, {})[key["name"]] = value
    return out


def _file_spans(item: str, scheme: str = "entities") -> dict[str, list[tuple[int, int, str]]]:
    """annotator → spans of ``scheme`` on ``item`` (everyone who saved the item)."""
    out: dict[str, list[tuple[int, int, str]]] = {}
    for who, state in _states(SPANS).items():
        saved = (item in state["instance_id_to_span_to_value"]
                 or item in state["instance_id_to_label_to_value"])
        if not saved:
            continue
        out[who] = [(k["start"], k["end"], k["name"])
                    for k, _v in state["instance_id_to_span_to_value"].get(item, [])
                    if k["schema"] == scheme]
    return out


def _texts(view: Any) -> str:
    parts = [w.text() for w in view.findChildren(QLabel)]
    for table in view.findChildren(QTableWidget):
        for r in range(table.rowCount()):
            for c in range(table.columnCount()):
                if table.item(r, c) is not None:
                    parts.append(table.item(r, c).text())
        for c in range(table.columnCount()):
            head = table.horizontalHeaderItem(c)
            parts.append(head.text() if head is not None else "")
    return "\n".join(parts)


def _context(path: Path, anonymous: bool = False, **kw: Any) -> ViewContext:
    project = _project(path)
    return ViewContext(project=project, anonymous=anonymous,
                       aliases=anonymous_aliases(project.study.annotators), **kw)


# ------------------------------------------------------------------ spans
def test_spans_lanes_hold_each_annotators_spans_from_the_files(qtbot: QtBot) -> None:
    view = SpansView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(_context(SPANS, item="n08", scheme="entities"))
    expected = _file_spans("n08")
    drawn: dict[str, set[tuple[int, int, str]]] = {}
    for bar in view.canvas.bars:
        drawn.setdefault(bar.annotator, set()).add((bar.start, bar.end, bar.label))
    assert drawn == {a: set(s) for a, s in expected.items() if s}
    # the files: alice ORG and bob LOC on the same words (a label mismatch); alice's and
    # carol's PER overlap (a match)
    status = {(b.annotator, b.label): b.status for b in view.canvas.bars}
    alice = {s[2]: s for s in expected["alice"]}
    bob = {s[2]: s for s in expected["bob"]}
    assert alice["ORG"][:2] == bob["LOC"][:2]
    assert status[("alice", "ORG")] == status[("bob", "LOC")] == LABEL_MISMATCH
    carol = {s[2]: s for s in expected["carol"]}
    assert max(alice["PER"][0], carol["PER"][0]) < min(alice["PER"][1], carol["PER"][1])
    assert status[("alice", "PER")] == status[("carol", "PER")] == MATCHED
    # each bar sits under its characters: its left edge at its first character's x,
    # and its tooltip quotes the item's text at the stored offsets
    text = json.loads((SPANS / "data" / "items.jsonl").read_text().splitlines()[8])
    assert text["id"] == "n08"
    for bar in view.canvas.bars:
        assert bar.rect.width() > 0
        centre = bar.rect.center()
        tip = view.canvas.bar_tip(centre.x(), centre.y())
        assert f"[{bar.start}, {bar.end}) “{text['text'][bar.start:bar.end]}”" in tip
    lanes = {bar.annotator: bar for bar in view.canvas.bars if bar.label in ("ORG", "LOC")}
    assert lanes["alice"].rect.left() == lanes["bob"].rect.left()  # same offsets, same x
    assert lanes["alice"].rect.top() < lanes["bob"].rect.top()  # alice's lane above bob's


def test_spans_items_sorted_by_potatos_partial_f1(qtbot: QtBot) -> None:
    view = SpansView()
    qtbot.addWidget(view)
    view.show_context(_context(SPANS, scheme="entities"))
    order = view.item_order()
    details = _project(SPANS).report.schemes["entities"].details
    assert order == details.metrics.items_by_disagreement()  # the kind's own order
    f1 = {item: pairwise_span_f1(_file_spans(item), partial=True) for item in order}
    assert [f1[i] for i in order] == sorted(f1[i] for i in order)
    assert order[0] == "n08"  # the least partial F1 of the project, shown first
    assert view.shown is not None and view.shown.item == "n08"
    assert view.shown.values["span_f1_partial"] == pytest.approx(f1["n08"], abs=1e-12)
    assert f"partial F1 <b>{f1['n08']:.3f}</b>" in view.numbers.text()


def test_spans_presentation_hides_names(qtbot: QtBot) -> None:
    view = SpansView()
    qtbot.addWidget(view)
    view.show_context(_context(SPANS, anonymous=True, item="n08", scheme="entities"))
    assert list(view.canvas._names.values()) == ["A", "B", "C"]
    text = _texts(view)
    for name in ("alice", "bob", "carol"):
        assert name not in text


# ------------------------------------------------------------------ numbers
def test_numbers_plots_each_pairs_answers_and_the_bias(qtbot: QtBot) -> None:
    view = NumbersView()
    qtbot.addWidget(view)
    view.show_context(_context(NUMBERS, scheme="count", item="n01"))
    assert view.pair_combo.currentText() == ALL_PAIRS
    states = _states(NUMBERS)
    values = {who: {item: float(v) for item in s["instance_id_to_label_to_value"]
                    for k, v in s["instance_id_to_label_to_value"][item]
                    if k["schema"] == "count"} for who, s in states.items()}
    view.pair_combo.setCurrentIndex(1)  # alice – bob
    view.show_context(view._context)
    (pair,) = view.pairs
    assert (pair.a, pair.b) == ("alice", "bob")
    shared = sorted(set(values["alice"]) & set(values["bob"]))
    x, y = view.plots.points.getData()
    assert list(x) == [values["alice"][i] for i in shared]
    assert list(y) == [values["bob"][i] for i in shared]
    diffs = np.array([values["alice"][i] - values["bob"][i] for i in shared])
    assert view.plots.bias.value() == pytest.approx(diffs.mean())
    assert view.plots.high.value() == pytest.approx(diffs.mean()
                                                    + 1.959963984540054 * diffs.std(ddof=1))
    ix, iy = view.plots.item_points.getData()
    assert (list(ix), list(iy)) == ([values["alice"]["n01"]], [values["bob"]["n01"]])
    lx, ly = view.plots.identity.getData()
    assert list(lx) == list(ly)  # the identity line
    first = view.table.item(0, 0).text()
    spread = {i: max(v[i] for v in values.values() if i in v)
              - min(v[i] for v in values.values() if i in v) for i in values["alice"]}
    assert spread[first] == max(spread.values())


def test_numbers_undefined_icc_shows_its_sentence(qtbot: QtBot) -> None:
    view = NumbersView()
    qtbot.addWidget(view)
    view.show_context(_context(NUMBERS, scheme="pain"))
    text = view.metrics.text()
    assert "ICC(2,k)" in text and "undefined" in text
    assert "no item was rated by all 3 annotators" in text
    assert "nan" not in text.lower()


def test_numbers_presentation_hides_names(qtbot: QtBot) -> None:
    view = NumbersView()
    qtbot.addWidget(view)
    view.show_context(_context(NUMBERS, anonymous=True, scheme="count"))
    combo = [view.pair_combo.itemText(i) for i in range(view.pair_combo.count())]
    assert combo == [ALL_PAIRS, "A – B", "A – C", "B – C"]
    text = _texts(view) + view.plots.legend.text() + view.plots.ba_note.text()
    for name in ("alice", "bob", "carol"):
        assert name not in text


# ------------------------------------------------------------------ rankings
def test_rankings_columns_lines_and_tau_of_an_item(qtbot: QtBot) -> None:
    view = RankingsView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(_context(NUMBERS, scheme="priorities", item="n01"))
    stored = {who: v["rank_order"].split(",")
              for who, v in _label_values(NUMBERS, "priorities", "n01").items()}
    for who, order in stored.items():
        boxes = sorted((r.top(), option) for (name, option), r in view.canvas.boxes.items()
                       if name == who)
        assert [option for _top, option in boxes] == order
    names = list(stored)
    expected_links = {(a, b, o) for a, b in itertools.pairwise(names)
                      for o in stored[a] if o in stored[b]}
    assert {(link.left, link.right, link.option) for link in view.canvas.links} == \
        expected_links
    for p in view.taus:
        a, b = stored[p.a], stored[p.b]
        shared = [o for o in a if o in b]
        want = kendalltau([a.index(o) for o in shared], [b.index(o) for o in shared])[0]
        assert p.tau == pytest.approx(want)
    mean = np.mean([p.tau for p in view.taus])
    assert f"τ <b>{mean:.3f}</b>" in view.pair_text.text()


def test_rankings_presentation_hides_names(qtbot: QtBot) -> None:
    view = RankingsView()
    qtbot.addWidget(view)
    view.show_context(_context(NUMBERS, anonymous=True, scheme="priorities", item="n01"))
    assert list(view.canvas._names.values()) == ["A", "B", "C"]
    for name in ("alice", "bob", "carol"):
        assert name not in _texts(view)


# ------------------------------------------------------------------ matrices
def test_matrices_rows_by_metrics_and_a_rows_answers(qtbot: QtBot) -> None:
    view = MatricesView()
    qtbot.addWidget(view)
    view.show_context(_context(NUMBERS, scheme="triage"))
    report = _project(NUMBERS).report.schemes["triage"]
    rows = report.extra["rows"]
    shown = view.shown
    assert shown is not None and list(shown.rows) == [*rows, POOLED]
    for r, name in enumerate(shown.rows):
        block = rows.get(name, report.metrics)
        for c, key in enumerate(shown.metrics, start=1):
            cell = view.table.item(r, c)
            want = block.get(key)
            assert cell.text() == ("undefined" if want is None else f"{want:.3f}"), (name, key)
    view._on_row_clicked(list(rows).index("Impact"), 1)
    assert view.row == "Impact"
    for r in range(view.answers.rowCount()):
        item = view.answers.verticalHeaderItem(r).text()
        stored = {who: v["Impact"] for who, v in
                  _label_values(NUMBERS, "triage", item).items() if "Impact" in v}
        heads = [view.answers.horizontalHeaderItem(c).text()
                 for c in range(view.answers.columnCount())]
        shown_row = {heads[c]: view.answers.item(r, c).text()
                     for c in range(view.answers.columnCount())
                     if view.answers.item(r, c).text() != "—"}
        assert shown_row == stored


def test_matrices_presentation_hides_names(qtbot: QtBot) -> None:
    view = MatricesView()
    qtbot.addWidget(view)
    view.show_context(_context(NUMBERS, anonymous=True, scheme="triage"))
    heads = [view.answers.horizontalHeaderItem(c).text()
             for c in range(view.answers.columnCount())]
    assert heads == ["A", "B", "C"]
    for name in ("alice", "bob", "carol"):
        assert name not in _texts(view)


def test_rankings_show_machine_raters_marked(qtbot: QtBot) -> None:
    """The machines project's declared machine raters rank too: a column each, marked ⚙
    (the report scores them apart, so its details hold people only)."""
    machines = DATA / "ratings" / "machines"
    view = RankingsView()
    qtbot.addWidget(view)
    view.show_context(_context(machines, scheme="priorities", item="n01"))
    stored = _label_values(machines, "priorities", "n01")
    assert set(view.canvas._orders) == set(stored)
    assert view.canvas._names["llm_judge"] == "⚙ llm_judge (machine)"
    assert len(view.taus) == len(stored) * (len(stored) - 1) // 2


def test_spans_list_follows_a_new_project(qtbot: QtBot) -> None:
    """The items list is kept while the scheme's result is the same object; another
    project's result (same scheme name: span_machines, whose machine raters' spans
    change the order) rebuilds it."""
    view = SpansView()
    qtbot.addWidget(view)
    view.show_context(_context(SPANS, scheme="entities"))
    first = view.item_order()
    other = DATA / "span_machines"
    view.show_context(_context(other, scheme="entities"))
    details = drawn(_project(other).report, "entities").details  # machines included
    assert view.item_order() == details.metrics.items_by_disagreement() != first
    assert view.items._source is details  # rebuilt from the new project's result
    view.show_context(_context(SPANS, scheme="entities"))
    assert view.item_order() == first
    assert view.items._source is _project(SPANS).report.schemes["entities"].details


def test_spans_machine_raters_have_lanes_marked(qtbot: QtBot) -> None:
    """span_machines declares two machine raters: their spans are drawn on lanes of
    their own, marked ⚙, as their user_state.json files hold them."""
    machines = DATA / "span_machines"
    view = SpansView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show_context(_context(machines, scheme="entities", item="n07"))
    assert view.canvas._names["llm_ner"] == "⚙ llm_ner (machine)"
    stored: dict[str, set[tuple[int, int, str]]] = {}
    for who, state in _states(machines).items():
        stored[who] = {(k["start"], k["end"], k["name"]) for k, _v in
                       state["instance_id_to_span_to_value"].get("n07", [])
                       if k["schema"] == "entities"}
    drawn: dict[str, set[tuple[int, int, str]]] = {}
    for bar in view.canvas.bars:
        drawn.setdefault(bar.annotator, set()).add((bar.start, bar.end, bar.label))
    assert drawn == {who: spans for who, spans in stored.items() if spans}
    assert "machine raters included" in view.numbers.text()


def test_rankings_item_taus_equal_scipy_on_random_orders() -> None:
    """The list's τ per item (numpy, all items at once) equals scipy's kendalltau on the
    options each pair shares, averaged over the pairs, on partial rankings and repeats."""
    import random

    from app.ui.views.rankings.model import item_taus

    rng = random.Random(37)
    options = list("ABCDEFG")
    rows: dict[str, dict[str, tuple[str, ...]]] = {}
    for i in range(300):
        rows[f"i{i:03d}"] = {a: tuple(rng.sample(options, rng.randint(1, 7)))
                             for a in ("x", "y", "z") if rng.random() < 0.9}
    rows["repeat"] = {"x": ("A", "B", "A", "C"), "y": ("C", "A", "B")}
    got = item_taus(rows, ("x", "y", "z"))
    for (item, by), tau in zip(rows.items(), got, strict=True):
        taus = []
        names = sorted(by)
        for k, a in enumerate(names):
            for b in names[k + 1:]:
                first = list(dict.fromkeys(by[a]))  # the first place of a repeat
                last = {o: p for p, o in enumerate(by[b])}  # the last place in b
                shared = [o for o in first if o in last]
                if len(shared) >= 2:
                    taus.append(kendalltau([first.index(o) for o in shared],
                                           [last[o] for o in shared])[0])
        if taus:
            assert tau == pytest.approx(float(np.mean(taus)), abs=1e-12), item
        else:
            assert tau is None, item


@pytest.mark.parametrize(("cls", "path", "scheme"), [
    (SpansView, SPANS, "entities"), (RankingsView, NUMBERS, "priorities")])
def test_the_windows_steps_show_what_show_context_shows(
        qtbot: QtBot, cls: Any, path: Path, scheme: str) -> None:
    """The window runs context_steps one per event-loop turn: the list first (the spans
    view: its order, then the list), then the rest; the result is the same as one
    show_context."""
    stepped, whole = cls(), cls()
    qtbot.addWidget(stepped)
    qtbot.addWidget(whole)
    context = _context(path, scheme=scheme)
    steps = stepped.context_steps(context)
    assert len(steps) == (3 if cls is SpansView else 2)
    for step in steps[:-1]:
        step()
    assert stepped.item_order()  # the list is there before the last step
    steps[-1]()
    whole.show_context(context)
    assert stepped.item_order() == whole.item_order()
    assert stepped.heading.text() == whole.heading.text()


def test_numbers_shows_a_slider_with_potatos_block(qtbot: QtBot) -> None:
    """The machines project's slider (ordinal in Accord, a number to Potato): its answers
    are plotted for every pair, machine raters included, and the line of Potato's block
    carries /admin/iaa's own numbers (expected/iaa.json, written by Potato's server)."""
    machines = DATA / "ratings" / "machines"
    view = NumbersView()
    qtbot.addWidget(view)
    view.show_context(_context(machines, scheme="relevance"))
    assert view.scheme_combo.currentText() == "relevance"
    assert len(view.pairs) == 10  # 5 raters: 3 people, 2 machines
    potato = json.loads((machines / "expected" / "iaa.json").read_text())
    block = potato["schemas"]["relevance"]["metrics"]
    text = view.metrics.text()
    for key in ("pearson_r", "mae", "rmse", "alpha_interval", "icc_2_k"):
        assert f"<b>{block[key]:.3f}</b>" in text, key
    x, _y = view.plots.points.getData()
    stored = _states(machines)
    assert len(x) == sum(
        len({i for i, v in stored[a]["instance_id_to_label_to_value"].items()
             if any(k["schema"] == "relevance" for k, _ in v)}
            & {i for i, v in stored[b]["instance_id_to_label_to_value"].items()
               if any(k["schema"] == "relevance" for k, _ in v)})
        for a, b in ((p.a, p.b) for p in view.pairs))


# ------------------------------------------------------------------ picks in the views
def test_a_scheme_chosen_in_a_view_is_told_to_the_window_and_forgets_the_item(
        qtbot: QtBot) -> None:
    """The views' own selectors go through View.user_chose_scheme / user_chose_item: the
    window hears the pick, and the view redraws on the new scheme (spans: without the
    item, which belongs to the old scheme's list)."""
    view = SpansView()
    qtbot.addWidget(view)
    view.show_context(_context(SPANS, scheme="entities", item="n08"))
    schemes = [view.scheme_combo.itemText(i) for i in range(view.scheme_combo.count())]
    other = next(s for s in schemes if s != "entities")
    heard: list[str] = []
    view.scheme_picked.connect(heard.append)
    view.scheme_combo.activated.emit(schemes.index(other))  # as a user's choice
    assert heard == [other]
    assert view._context.scheme == other
    assert view._context.item is None
    items: list[str] = []
    view.item_picked.connect(items.append)
    view._on_item_clicked("n03")
    view._on_item_clicked("")
    assert items == ["n03"]
    assert view._context.item == "n03"
