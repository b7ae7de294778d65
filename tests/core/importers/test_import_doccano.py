"""``accord import doccano``: members' JSONL files written by doccano's own writer
(pandas' ``to_json(orient="records", force_ascii=False, lines=True)``, see
``span_study.py``; ``tests/data/importers/spans/doccano/``), read back by Accord's reader
and Potato's ``UserState.load``, with the same spans as the Label Studio export of the
same study."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.formats.potato.project import load_study
from app.core.objects import Span
from tests.core.importers.span_study import (
    DATA,
    MARKS,
    TEXTS,
    check_written,
    doccano_by_writer,
    potato_spans,
    spans_of,
)
from tests.core.importers.support import import_fails, import_ok

DOCCANO = DATA / "doccano"


def test_the_fixtures_are_doccanos_writers_output() -> None:
    for name in MARKS:
        assert doccano_by_writer(name) == (DOCCANO / f"{name}.jsonl").read_text()


def test_members_files_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "project"
    printed = import_ok(capsys, "doccano", *(str(DOCCANO / f"{n}.jsonl") for n in MARKS),
                        "-o", str(out))

    check_written(out)
    study = load_study(out)
    for name in MARKS:
        want = {item: sorted(spans_of(name).get(item, [])) for item in TEXTS}
        assert potato_spans(out, name) == want  # every example is in every member's file
        for item, spans in want.items():
            answer = study.answers["entities"].get(item, {}).get(name)
            got = sorted((s.start, s.end, s.label) for s in (answer.objects if answer else ())
                         if isinstance(s, Span))
            assert got == spans
    records = [json.loads(line) for line in (out / "data" / "items.jsonl").read_text()
               .splitlines()]
    assert records == [{"id": item, "text": text} for item, text in TEXTS.items()]
    assert "2 examples have no span" in printed  # bob's 3 and carol's 4


def test_relation_projects_and_earlier_labels_key(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    text = TEXTS["1"]
    relations = tmp_path / "ann.jsonl"
    relations.write_text(json.dumps({
        "id": 1, "text": text, "entities": [
            {"id": 7, "label": "ORG", "start_offset": 0, "end_offset": 2},
            {"id": 8, "label": "MISC", "start_offset": 11, "end_offset": 17}],
        "relations": [{"id": 3, "from_id": 7, "to_id": 8, "type": "rejects"}],
        "Comments": []}, ensure_ascii=False) + "\n")
    older = tmp_path / "ben.jsonl"
    older.write_text(json.dumps({"id": 1, "text": text, "meta": {}, "annotation_approver": None,
                                 "labels": [[0, 2, "ORG"], [0, 2, "ORG"]]}) + "\n")
    printed = import_ok(capsys, "doccano", str(relations), str(older), "-o",
                        str(tmp_path / "p"))

    assert potato_spans(tmp_path / "p", "ann") == {"1": [(0, 2, "ORG"), (11, 17, "MISC")]}
    assert potato_spans(tmp_path / "p", "ben") == {"1": [(0, 2, "ORG")]}
    assert "1 relations were skipped" in printed and "1 spans repeated another" in printed


@pytest.mark.parametrize(("line", "needles"), [
    ('{"id": 1, "text": "EU rejects", "label": [[0, 20, "ORG"]]}',
     [":2", "from character 0 to 20 of a text of 10 characters"]),
    ('{"id": 1, "text": "EU rejects", "label": [[3, 2, "ORG"]]}', [":2", "0 <= start < end"]),
    ('{"id": 1, "text": "EU rejects", "label": [[0, 2]]}', [":2", "label[0]", "expected a span"]),
    ('{"id": 1, "text": "EU rejects", "label": ["positive"]}', [":2", "expected a span"]),
    ('{"text": "EU rejects", "label": []}', [":2", "key 'id'", "expected the example's id"]),
    ('{"id": 1, "label": []}', [":2", "key 'text'"]),
    ('{"id": 1, "text": "EU rejects"}', [":2", "expected the spans under 'label'"]),
    ('{"id": 1, "text": "EU rejects", "label": [[0, 2, "ORG"]]', [":2"]),
    ('{"id": 2, "text": "Peter Blackburn", "label": []}', [":2", "item '2' is already in"]),
])
def test_a_bad_line_is_one_error_naming_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, needles: list[str]
        ) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 2, "text": "Peter Blackburn", "label": [[0, 15, "PER"]]}\n' + line
                   + "\n")
    import_fails(capsys, "doccano", [str(bad)], tmp_path / "out", bad, *needles)


def test_texts_must_agree_and_a_folder_is_not_a_member(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "bob.jsonl"
    other.write_text((DOCCANO / "bob.jsonl").read_text().replace("rejects", "accepts"))
    import_fails(capsys, "doccano", [str(DOCCANO / "alice.jsonl"), str(other)],
                 tmp_path / "out", other, ":1", "item '1' has another text")
    import_fails(capsys, "doccano", [str(DOCCANO)], tmp_path / "out", DOCCANO,
                 "one <username>.jsonl per member")
    nothing = tmp_path / "none.jsonl"
    nothing.write_text('{"id": 1, "text": "x", "label": []}\n')
    import_fails(capsys, "doccano", [str(nothing)], tmp_path / "out", "no span in any file")
