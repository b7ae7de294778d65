"""``accord import labelstudio`` on Label Studio's JSON-MIN export.

Every JSON-MIN file here is written by label-studio-converter 0.0.59 itself
(``Converter.convert(..., "JSON_MIN")``, what Label Studio runs for that export) from a
full JSON export built as in ``test_import_labelstudio``. The oracle is the full export:
imported from JSON-MIN, the study must be the one imported from the JSON it was made
from (every answer, scheme and agreement number), or be refused where JSON-MIN cannot
carry who is who.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.core.formats.importers.label_studio import read
from tests.core.importers.support import (
    import_fails,
    import_ok,
    label_pairs,
    rounded_agreement,
)
from tests.core.importers.test_import_labelstudio import (
    _annotation,
    _choice,
    _export,
    _rect,
    _tasks,
)

LABEL_CONFIG = """<View>
  <Image name="image" value="$image"/>
  <RectangleLabels name="box" toName="image">
    <Label value="car"/><Label value="person"/><Label value="sign"/>
  </RectangleLabels>
  <PolygonLabels name="outline" toName="image"><Label value="person"/></PolygonLabels>
  <BrushLabels name="paint" toName="image"><Label value="road"/></BrushLabels>
  <Choices name="kind" toName="image" perRegion="true">
    <Choice value="parked"/><Choice value="moving"/>
  </Choices>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text">
    <Choice value="pos"/><Choice value="neg"/><Choice value="neu"/>
  </Choices>
  <Choices name="tags" toName="text" choice="multiple"><Choice value="x"/><Choice value="y"/>
  </Choices>
  <Rating name="quality" toName="text"/>
  <Audio name="audio" value="$audio"/>
  <Labels name="speech" toName="audio"><Label value="speech"/><Label value="music"/></Labels>
</View>"""
"""The labelling config the tasks were made with (the converter needs its schema)."""

ANN = {"id": 1, "email": "ann@lab.org", "first_name": "Ann", "last_name": ""}


def json_min(full: Path, out: Path) -> Path:
    """label-studio-converter's JSON-MIN of the full export ``full``, at ``out``."""
    converter = pytest.importorskip("label_studio_converter")
    work = out.parent / f".{out.name}.converter"
    converter.Converter(config=LABEL_CONFIG, project_dir=None).convert(
        str(full), str(work), "JSON_MIN", is_dir=False)
    (work / "result.json").replace(out)
    work.rmdir()
    return out


def with_users(tasks: list[dict[str, Any]], by: dict[Any, Any]) -> list[dict[str, Any]]:
    """``tasks`` with each annotation's ``completed_by`` mapped through ``by`` (by e-mail
    or id), so that one user is named one way throughout."""
    tasks = copy.deepcopy(tasks)
    for task in tasks:
        for ann in task["annotations"]:
            who = ann["completed_by"]
            key = who.get("email", who.get("id")) if isinstance(who, dict) else who
            ann["completed_by"] = by.get(key, by.get(who if not isinstance(who, dict)
                                                     else who.get("id"), who))
    return tasks


def both(tmp_path: Path, tasks: list[dict[str, Any]]) -> tuple[Path, Path]:
    """The full export and its JSON-MIN, in one folder beside the images."""
    full = _export(tmp_path / "export", tasks)
    return full, json_min(full, tmp_path / "export" / "project-3-min.json")


def config(project: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((project / "config.yaml").read_text())
    loaded.pop("annotation_task_name")
    return loaded


def states(project: Path) -> dict[str, Any]:
    out = {}
    for folder in sorted((project / "annotation_output").iterdir()):
        state = json.loads((folder / "user_state.json").read_text())
        out[folder.name] = {item: sorted(map(json.dumps, label_pairs(project, folder.name,
                                                                      item)))
                            for item in state["instance_id_to_label_to_value"]}
    return out


# ------------------------------------------------------------------------ round trips


@pytest.mark.parametrize("naming", ["e-mails", "ids"])
def test_json_min_imports_as_the_json_it_was_made_from(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], naming: str) -> None:
    by: dict[Any, Any] = {1: ANN, "cy@lab.org": {"id": 3, "email": "cy@lab.org"}} \
        if naming == "e-mails" else {1: 1, "ben@lab.org": 2, 2: 2, "cy@lab.org": 3,
                                     "ann@lab.org": 1}
    full, minimal = both(tmp_path, with_users(_tasks(), by))
    assert isinstance(json.loads(minimal.read_text())[0]["annotator"],
                      str if naming == "e-mails" else int)
    out_full = import_ok(capsys, "labelstudio", str(full), "-o", str(tmp_path / "full"))
    out_min = import_ok(capsys, "labelstudio", str(minimal), "-o", str(tmp_path / "min"))
    assert states(tmp_path / "min") == states(tmp_path / "full")
    names = {"e-mails": ["ann@lab.org", "ben@lab.org", "cy@lab.org"],
             "ids": ["user_1", "user_2", "user_3"]}[naming]
    assert sorted(states(tmp_path / "min")) == names
    assert (tmp_path / "min" / "data" / "items.jsonl").read_text() == \
        (tmp_path / "full" / "data" / "items.jsonl").read_text()
    assert config(tmp_path / "min") == config(tmp_path / "full")
    assert rounded_agreement(capsys, tmp_path / "min") == \
        rounded_agreement(capsys, tmp_path / "full")
    # What the full export says and JSON-MIN cannot: the model and the cancelled work.
    assert "1 predictions were skipped" in out_full and "predictions" not in \
        out_min.replace("cancelled annotations and predictions", "")
    assert "Read as Label Studio's JSON-MIN export" in out_min
    assert "'tags' is a multiselect" in out_min  # one answer is {"choices": ["x", "y"]}
    assert "answers are bare text" in out_min


def _with_kind(rid: str, choice: str, x: float) -> list[dict[str, Any]]:
    """A box and its per-region choice (same id, the box's place, as Label Studio
    writes an attribute)."""
    region = _rect(rid, "car", x, 10, 60, 30)
    attribute = {**copy.deepcopy(region), "from_name": "kind", "type": "choices"}
    attribute["value"] = {**{k: v for k, v in region["value"].items()
                             if k != "rectanglelabels"}, "choices": [choice]}
    return [region, attribute]


def _image_task(*annotations: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"id": 1, "data": {"image": "/data/upload/3/8f3c2a1b-a.png"},
             "annotations": list(annotations)}]


def test_a_per_region_choice_is_skipped_as_in_the_json(tmp_path: Path) -> None:
    ben = {"id": 2, "email": "ben@lab.org"}
    tasks = _image_task(
        _annotation(1, ANN, [*_with_kind("r1", "parked", 20), *_with_kind("r2", "moving", 110),
                             _choice("sentiment", "pos")]),
        _annotation(2, ben, [*_with_kind("r3", "parked", 22), _choice("sentiment", "pos")]))
    full, minimal = both(tmp_path, tasks)
    # The converter drops the attributes' places: a list of bare choices, a bare choice.
    kinds = sorted(map(json.dumps, (r["kind"] for r in json.loads(minimal.read_text()))))
    assert kinds == ['"parked"', '["parked", "moving"]']
    from_full, from_min = read([full], []), read([minimal], [])
    assert from_min.answers == from_full.answers
    assert "kind" not in {s.name for s in from_min.schemes}
    skipped = "3 'per-region choices' results were skipped"
    assert any(skipped in n for n in from_full.notes)
    assert any(skipped in n for n in from_min.notes)


def test_a_per_region_choice_on_single_regions_only_reads_as_an_item_choice(
        tmp_path: Path) -> None:
    """What JSON-MIN cannot carry and Accord cannot detect: one region's one choice is
    the bare text a choice about the whole item also is. It is read as the latter, and
    the notes say how bare text is read."""
    _, minimal = both(tmp_path, _image_task(_annotation(1, ANN, _with_kind("r1", "parked", 20))))
    study = read([minimal], [])
    assert study.answers["ann@lab.org"]["1"]["kind"] == "parked"
    assert any("1 answers are bare text" in n and "a region's one choice" in n
               for n in study.notes)


# ------------------------------------------------------------ what JSON-MIN cannot carry


def test_ids_and_e_mails_in_one_file_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # _tasks() names ann as user 1 in tasks 11 and 13 and as ann@lab.org in task 12: the
    # JSON export links them, JSON-MIN cannot.
    full, minimal = both(tmp_path, _tasks())
    import_ok(capsys, "labelstudio", str(full), "-o", str(tmp_path / "full"))
    line = import_fails(capsys, "labelstudio", [str(minimal)], tmp_path / "p", minimal,
                        "Label Studio's JSON-MIN export names some annotators by user id",
                        "cannot say which id is which e-mail",
                        "export the project from Label Studio as JSON (not JSON-MIN)")
    assert ".annotator" in line and "Traceback" not in line


def test_an_annotation_of_no_one_is_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    tasks = with_users(_tasks(), {1: ANN, "cy@lab.org": {"id": 3, "email": "cy@lab.org"}})
    tasks[0]["annotations"][1]["completed_by"] = {"id": 2, "first_name": "Ben"}  # no e-mail
    _, minimal = both(tmp_path, tasks)
    import_fails(capsys, "labelstudio", [str(minimal)], tmp_path / "p", minimal,
                 "[1].annotator", "does not say who made this annotation",
                 "annotator is None", "as JSON (not JSON-MIN)")


def test_a_task_nobody_annotated_is_an_item_without_answers(tmp_path: Path) -> None:
    tasks = with_users(_tasks(), {1: ANN, "cy@lab.org": {"id": 3, "email": "cy@lab.org"}})
    tasks.append({"id": 15, "data": {"image": "/data/upload/3/8f3c2a1b-a.png"},
                  "annotations": []})
    full, minimal = both(tmp_path, tasks)
    assert json.loads(minimal.read_text())[-1]["annotator"] is None
    from_min = read([minimal], [])
    assert "15" in from_min.items and from_min.answers == read([full], []).answers


# ----------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("damage", "needles"), [
    (lambda r: r[0].update(box=7), ("[0].box", "is int; expected a JSON-MIN answer")),
    (lambda r: r[2].update(quality=[{"rating": 0}]), ("key '[2].quality[0].rating'",
                                                       "expected a rating of 1 or more")),
    (lambda r: r[0]["box"][0].update(x="left"), ("key '[0].box[0].x'", "expected a number")),
    (lambda r: r[2].update(quality=[3]), ("[2].quality", "expected a JSON-MIN answer")),
    (lambda r: r[1].pop("id"), ("[1]", "expected a JSON-MIN record")),
    (lambda r: r[3].update(annotator=True), ("[3].annotator", "does not say who")),
])
def test_a_damaged_json_min_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        damage: Any, needles: tuple[str, ...]) -> None:
    _, minimal = both(tmp_path, with_users(
        _tasks(), {1: ANN, "cy@lab.org": {"id": 3, "email": "cy@lab.org"}}))
    records = json.loads(minimal.read_text())
    damage(records)
    minimal.write_text(json.dumps(records))
    import_fails(capsys, "labelstudio", [str(minimal)], tmp_path / "p", minimal, *needles)
