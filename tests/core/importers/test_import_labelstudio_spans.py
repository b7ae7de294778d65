"""``accord import labelstudio`` of ``labels`` on text: a Label Studio JSON export of the
span study (``tests/data/importers/spans/labelstudio/ner.json``, see ``span_study.py``)
becomes a Potato ``span`` scheme, read back by Accord's reader and Potato's
``UserState.load``; HyperText spans are skipped and counted; bad spans are one error."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.core.formats.potato.project import load_study
from app.core.objects import Span
from tests.core.importers.span_study import (
    DATA,
    LABEL_CONFIG,
    MARKS,
    check_written,
    label_studio_export,
    potato_spans,
    spans_of,
)
from tests.core.importers.support import import_fails, import_ok

EXPORT = DATA / "labelstudio" / "ner.json"


def test_the_fixture_is_the_study() -> None:
    assert json.loads(EXPORT.read_text()) == label_studio_export()


def test_text_labels_are_a_span_scheme(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "project"
    import_ok(capsys, "labelstudio", str(EXPORT), "-o", str(out))

    (scheme,) = yaml.safe_load((out / "config.yaml").read_text())["annotation_schemes"]
    assert scheme["annotation_type"] == "span" and scheme["name"] == "label"
    assert scheme["labels"] == ["ORG", "MISC", "LOC", "PER"]  # in order of appearance
    check_written(out)
    study = load_study(out)
    for name in MARKS:
        want = {item: sorted(spans) for item, spans in spans_of(name).items()}
        assert potato_spans(out, name) == want  # carol never annotated item 4: absent
        for item, spans in want.items():
            answer = study.answers["label"].get(item, {}).get(name)
            assert sorted((s.start, s.end, s.label) for s in (answer.objects if answer else ())
                          if isinstance(s, Span)) == spans


def _export_with(result: dict[str, Any]) -> list[dict[str, Any]]:
    tasks = copy.deepcopy(label_studio_export(["alice"]))
    tasks[0]["annotations"][0]["result"].append(result)
    return tasks


def test_hypertext_spans_are_skipped_and_several_labels_split(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = _export_with({"id": "h1", "from_name": "label", "to_name": "text",
                          "type": "labels", "value": {
                              "start": "/p[1]/text()[1]", "end": "/p[1]/text()[1]",
                              "startOffset": 0, "endOffset": 2, "text": "EU",
                              "labels": ["ORG"]}})
    tasks[1]["annotations"][0]["result"][0]["value"]["labels"] = ["PER", "MISC"]
    export = tmp_path / "export.json"
    export.write_text(json.dumps(tasks))
    printed = import_ok(capsys, "labelstudio", str(export), "-o", str(tmp_path / "p"))

    spans = potato_spans(tmp_path / "p", "alice")
    assert spans["1"] == sorted(spans_of("alice")["1"])
    assert spans["2"] == [(0, 15, "MISC"), (0, 15, "PER")]
    assert "1 'labels (HyperText, Paragraphs)' results were skipped" in printed


@pytest.mark.parametrize(("value", "needles"), [
    ({"start": 0, "end": 99, "text": "EU", "labels": ["ORG"]},
     ["[0].annotations[0].result[3]", "from character 0 to 99 of a data.text of 47"]),
    ({"start": 0, "end": 2, "text": "UE", "labels": ["ORG"]},
     ["result[3].value.text", "'UE' is not data.text[0:2] ('EU')"]),
    ({"start": "0", "end": 2, "text": "EU", "labels": ["ORG"]},
     ["result[3].value", "expected character offsets"]),
    ({"start": 0, "end": 2, "text": "EU", "labels": []},
     ["result[3].value.labels", "without labels"]),
])
def test_a_bad_span_is_one_error_naming_the_result(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], value: dict[str, Any],
        needles: list[str]) -> None:
    export = tmp_path / "export.json"
    export.write_text(json.dumps(_export_with({
        "id": "bad", "from_name": "label", "to_name": "text", "type": "labels",
        "value": value})))
    import_fails(capsys, "labelstudio", [str(export)], tmp_path / "out", export, *needles)


def test_the_json_min_export_gives_the_same_spans(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """JSON-MIN written by label-studio-converter's own ``convert_to_json_min``."""
    from label_studio_converter import Converter

    Converter(LABEL_CONFIG, project_dir=None).convert_to_json_min(
        str(EXPORT), str(tmp_path / "min"), is_dir=False)
    import_ok(capsys, "labelstudio", str(tmp_path / "min" / "result.json"), "-o",
              str(tmp_path / "from_min"))
    import_ok(capsys, "labelstudio", str(EXPORT), "-o", str(tmp_path / "from_json"))

    check_written(tmp_path / "from_min")
    for name in MARKS:
        assert potato_spans(tmp_path / "from_min", name) == potato_spans(
            tmp_path / "from_json", name)


def _emoji_export(offsets: list[tuple[int, int, str]]) -> list[dict[str, Any]]:
    """One task whose text has two characters outside the BMP before its spans."""
    text = "😀 EU rejects 👨 German lamb."
    task: dict[str, Any] = copy.deepcopy(label_studio_export(["alice"])[0])
    task["data"]["text"] = text
    task["annotations"][0]["result"] = [
        {"id": f"e{k}", "from_name": "label", "to_name": "text", "type": "labels",
         "value": {"start": start, "end": end, "text": covered, "labels": ["ORG"]}}
        for k, (start, end, covered) in enumerate(offsets)]
    return [task]


@pytest.mark.parametrize("unit", ["code points", "utf-16"])
def test_offsets_in_utf16_units_are_converted_and_counted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], unit: str) -> None:
    """Older Label Studio exports counted JavaScript string units (an emoji is 2):
    both readings give the same spans; the UTF-16 one says so in the importer's note."""
    text = "😀 EU rejects 👨 German lamb."
    want = [(2, 4, "EU"), (15, 21, "German"), (22, 26, "lamb")]
    assert [text[s:e] for s, e, _ in want] == [w for _, _, w in want]

    def utf16(i: int) -> int:
        return len(text[:i].encode("utf-16-le")) // 2

    offsets = want if unit == "code points" else [(utf16(s), utf16(e), w)
                                                    for s, e, w in want]
    assert unit == "code points" or offsets != want  # the readings differ on this text
    export = tmp_path / "export.json"
    export.write_text(json.dumps(_emoji_export(offsets)))
    printed = import_ok(capsys, "labelstudio", str(export), "-o", str(tmp_path / "p"))

    assert potato_spans(tmp_path / "p", "alice")["1"] == [(s, e, "ORG") for s, e, _ in want]
    assert ("3 spans had offsets in UTF-16 units" in printed) == (unit == "utf-16")


def test_offsets_matching_neither_reading_are_one_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "export.json"
    export.write_text(json.dumps(_emoji_export([(4, 6, "EU")])))  # one past both readings
    import_fails(capsys, "labelstudio", [str(export)], tmp_path / "out", export,
                 "result[0].value.text", "in characters or in UTF-16 units")
