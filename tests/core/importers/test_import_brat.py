"""``accord import brat``: brat standoff folders (the standoff page's own example
document and annotations, ``tests/data/importers/spans/brat/``), read back through the
written project by Accord's reader and by Potato 2.12.1's ``UserState.load``, the
stored spans equal to what Potato's own ``save`` writes for them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.core.formats.potato.project import load_study
from app.core.objects import Span
from tests.core.importers.span_study import (
    DATA,
    SERVER,
    SERVER_KEYS,
    check_written,
    potato_spans,
)
from tests.core.importers.support import import_fails, import_ok

BRAT = DATA / "brat"
SONY = "Sony formed a joint venture with Ericsson, a mobile phone company based in Sweden.\n"


def _accord(project: Path) -> dict[str, dict[str, list[tuple[int, int, str]]]]:
    """item → annotator → sorted spans, as Accord's Potato reader reads them."""
    study = load_study(project)
    return {item: {who: sorted((s.start, s.end, s.label) for s in answer.objects
                               if isinstance(s, Span)) for who, answer in by.items()}
            for item, by in study.answers["entities"].items()}


def test_potatos_server_stores_spans_in_the_shape_the_importers_write() -> None:
    """The oracle of ``check_written``'s shape: what Potato 2.12.1's server wrote."""
    state = json.loads((SERVER / "user_state.json").read_text())
    pairs = [p for ps in state["instance_id_to_span_to_value"].values() for p in ps]
    assert len(pairs) > 10
    for span, value in pairs:
        assert list(span) == SERVER_KEYS and value == 1
        assert span["id"] == f"{span['schema']}_{span['name']}_{span['start']}_{span['end']}"
        assert span["title"] == span["name"]


def test_the_standoff_example_round_trips(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "project"
    printed = import_ok(capsys, "brat", str(BRAT / "alice"), str(BRAT / "bob"), "-o", str(out))

    stored = check_written(out)  # Potato's save writes the same; values are the text
    alice = {"sony": [(0, 4, "Organization"), (14, 27, "MERGE-ORG"), (33, 41, "Organization"),
                      (75, 81, "Country"), (83, 87, "Organization")],
             "japan": [(0, 5, "Location")]}
    bob = {"sony": [(0, 4, "Organization"), (0, 4, "Organization"), (33, 41, "Organization"),
                    (75, 81, "Country"), (83, 87, "Organization")],
           "japan": []}
    assert potato_spans(out, "alice") == alice
    assert potato_spans(out, "bob") == bob
    text = (BRAT / "alice" / "sony.txt").read_text()
    assert [text[s:e] for s, e, _ in alice["sony"]] == ["Sony", "joint venture", "Ericsson",
                                                        "Sweden", "Sony"]
    # the discontinuous "Sony ... Ericsson": first fragment, the rest as additional_parts
    (joined,) = [s for s, _ in stored["bob"]["sony"] if s.get("additional_parts")]
    assert (joined["start"], joined["end"]) == (0, 4)
    assert joined["additional_parts"] == [{"start": 33, "end": 41, "text": "Ericsson"}]
    accord = _accord(out)
    assert accord["sony"] == {"alice": alice["sony"], "bob": bob["sony"]}
    assert accord["japan"]["alice"] == alice["japan"]
    assert "1 events, 1 notes, 1 relations" in printed and "1 attributes" in printed
    assert "1 discontinuous spans" in printed and "Event triggers" in printed


def test_line_ends_count_and_a_txt_without_ann_is_not_annotated(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "ann1"
    folder.mkdir()
    (folder / "d.txt").write_bytes("Héllo\r\nWörld 😀 Paris\n".encode())
    (folder / "d.ann").write_text("T1\tLOC 15 20\tParis\nT2\tGREETING 0 5;7 12\tHéllo Wörld\n"
                                  "T3\tLOC 15 20\tParis\n", encoding="utf-8")
    (folder / "unseen.txt").write_text("nobody marked this")
    out = tmp_path / "project"
    printed = import_ok(capsys, "brat", str(folder), "-o", str(out))

    check_written(out)
    assert potato_spans(out, "ann1") == {"d": [(0, 5, "GREETING"), (15, 20, "LOC")]}
    assert "1 .txt documents have no .ann" in printed
    assert "1 spans repeated another" in printed


@pytest.mark.parametrize(("ann", "needles"), [
    ("T1\tOrganization 0 4\tSony\nT2\tCountry 75 120\tSweden\n",
     [":2", "from character 75 to 120 of a text of 113 characters"]),
    ("T1\tOrganization 0 4\tSoni\n", [":1", "the text 'Soni' is not", "('Sony')"]),
    ("T1\tOrganization 0-4\tSony\n", [":1", "not '<start> <end>' pairs"]),
    ("T1\tOrganization 0 4\n", [":1", "expected a text-bound annotation"]),
    ("\nX1\tOrganization 0 4\tSony\n", [":2", "starts with 'X'"]),
    ("T1\tOrganization 4 4\t\n", [":1", "expected 0 <= start < end"]),
])
def test_a_bad_line_is_one_error_naming_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], ann: str, needles: list[str]
        ) -> None:
    folder = tmp_path / "alice"
    shutil.copytree(BRAT / "alice", folder)
    (folder / "sony.ann").write_text(ann)
    import_fails(capsys, "brat", [str(folder)], tmp_path / "out", folder / "sony.ann", *needles)


def test_an_ann_without_its_txt_and_texts_that_differ(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "doc.ann").write_text("T1\tX 0 1\ta\n")
    import_fails(capsys, "brat", [str(lone)], tmp_path / "out", lone / "doc.ann",
                 "no doc.txt beside this .ann")
    import_fails(capsys, "brat", [str(lone / "doc.ann")], tmp_path / "out", "no doc.txt")
    other = tmp_path / "bob"
    shutil.copytree(BRAT / "bob", other)
    (other / "sony.txt").write_text(SONY.replace("Sweden", "Norway"))
    (other / "sony.ann").write_text("T1\tOrganization 0 4\tSony\n")
    import_fails(capsys, "brat", [str(BRAT / "alice"), str(other)], tmp_path / "out",
                 other / "sony.ann", "item 'sony' has another text here than in")
    empty = tmp_path / "empty"
    empty.mkdir()
    import_fails(capsys, "brat", [str(empty)], tmp_path / "out", empty, "no brat .ann files")
