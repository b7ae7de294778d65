"""Grounding, caption, episode and rollout schemes in the window (issue 38 part 3), on
the project Potato 2.12.1's server wrote (``tests/data/potato_server/vlm``): the answers
view shows every annotator's answer side by side, read back against the stored
``user_state.json`` blobs, never voted on; presentation mode shows A, B, C; the
overview's card has one table per metric group."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.answers.layers import NO_VOTE
from app.ui.views.answers.view import MAJORITY_ROW, AnswersView
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.overview.groups import metric_groups

ROOT = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "vlm"
SCHEMES = ("refer", "describe", "episode", "rollout")


@pytest.fixture(scope="module")
def vlm() -> ProjectData:
    return run(open_project(ROOT, preview=True))


def stored(scheme: str) -> dict[str, dict[str, dict[str, object]]]:
    """item → user → the posted blob, from the files."""
    out: dict[str, dict[str, dict[str, object]]] = {}
    for path in sorted(ROOT.glob("annotation_output/*/user_state.json")):
        state = json.loads(path.read_text())
        for item, entries in state["instance_id_to_label_to_value"].items():
            for key, value in entries:
                if key["schema"] == scheme:
                    out.setdefault(item, {})[state["user_id"]] = json.loads(value)
    return out


def test_answers_side_by_side_as_the_files_say(qtbot, vlm: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = AnswersView()
    qtbot.addWidget(view)
    blobs = {s: stored(s) for s in SCHEMES}
    for item in vlm.study.items:
        view.show_context(ViewContext(project=vlm, item=item))
        columns = view.column_schemes()
        assert [c for c in columns if c in SCHEMES] == list(SCHEMES)
        rows = view.row_labels()
        assert rows[-1] == MAJORITY_ROW
        for r, person in enumerate(rows[:-1]):
            for c, scheme in enumerate(columns):
                text = view.cell_text(r, c)
                blob = blobs[scheme].get(item, {}).get(person)
                if blob is None:
                    assert text == "—"
                elif scheme == "refer":
                    for expression in blob["absent"]:  # type: ignore[index]
                        assert f"{expression}: not present" in text
                    for expression in blob["regions"]:  # type: ignore[index]
                        assert f"{expression}: box" in text
                elif scheme == "describe":
                    for entry in blob["captions"]:  # type: ignore[index]
                        assert entry["caption"].strip() in text
                elif scheme == "episode":
                    result = blob["outcome"]["result"] or "—"  # type: ignore[index]
                    assert f"outcome: {result}" in text
                    for phase in blob["phases"]:  # type: ignore[index]
                        assert phase["label"] in text
                else:
                    for mark in blob["violations"]:  # type: ignore[index]
                        assert f"{mark['t']:.2f} s ({mark['type']}" in text
                    for stream in blob["clean"]:  # type: ignore[index]
                        assert f"{stream}: clean" in text
        majority = [view.cell_text(len(rows) - 1, c) for c in range(len(columns))]
        assert all(m == NO_VOTE for m, s in zip(majority, columns, strict=True) if s in SCHEMES)


def test_presentation_mode_hides_names(qtbot, vlm: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = AnswersView()
    qtbot.addWidget(view)
    names = vlm.study.annotators
    aliases = anonymous_aliases(names)
    view.show_context(ViewContext(project=vlm, item="v01", anonymous=True, aliases=aliases))
    assert view.row_labels()[:-1] == [aliases[n] for n in names]
    everything = " ".join([view.header.text(), view.text.text(), *view.row_labels(),
                           *(view.cell_text(r, c) for r in range(view.table.rowCount())
                             for c in range(view.table.columnCount()))])
    assert not any(name in everything for name in names)


def test_one_table_per_metric_group(vlm: ProjectData) -> None:
    report = vlm.report
    assert report is not None
    titles = {s: [t.split(":")[0] for t, _ in metric_groups(report.schemes[s]) or []]
              for s in SCHEMES}
    assert titles["refer"] == ["Detection", "Localization", "Coverage"]
    assert titles["episode"] == ["Phases", "Outcome", "Reward curve"]
    assert titles["rollout"][:3] == ["Detection", "Localization", "Category"]
    assert titles["describe"][0].startswith("Captions of matched regions")
    groups = dict(metric_groups(report.schemes["rollout"]) or [])
    detection = next(t for t in groups if t.startswith("Detection"))
    assert "chance-corrected" in detection and groups[detection] == ["detection.alpha"]
    assert metric_groups(report.schemes["regions"]) is None  # other kinds: as before
