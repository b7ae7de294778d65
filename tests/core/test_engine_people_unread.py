"""An ``engine.sqlite`` whose people cannot be read: a note when the annotation files hold
answers, the error naming the file when the engine may hold the only human labels.

Projects: ``potato_server/categorical`` (Potato's server wrote alice's, bob's and carol's
``user_state.json``) with an unreadable ``engine.sqlite`` put beside its config: a file
that is no SQLite database, and one of another Potato version (``human_request`` without
the columns 2.12 has). ``server_engine`` (its files and a WAL a killed server left) with
its main file damaged, read through the private copy. ``labels_only_in_db`` has no
``user_state.json``: its engine holds the only human labels.

Oracle for "the files' agreement still reported": the same project without any
``engine.sqlite``, whose report never touched the engine (its JSON must be identical,
scheme by scheme; only the note is added).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from app.cli.main import main
from app.core.errors import InputError
from app.core.formats.potato.project import load_study

DATA = Path(__file__).resolve().parents[1] / "data"
ENGINE = "engine.sqlite"


def _copy(project: Path, tmp: Path) -> Path:
    out = tmp / project.name
    shutil.copytree(project, out)
    return out


def _not_sqlite(path: Path) -> None:
    path.write_bytes(b"this is not a database, whatever its name says\n" * 100)


def _other_version(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE human_request (id INTEGER PRIMARY KEY, item_id TEXT,"
                   " schema_name TEXT, status TEXT, label_json TEXT)")
    db.close()


def _agreement_json(project: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict,
                                                                               str]:
    code = main(["agreement", str(project), "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


@pytest.mark.parametrize("spoil", [_not_sqlite, _other_version])
def test_files_agreement_stands_with_a_note_naming_the_database(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], spoil) -> None:  # type: ignore[no-untyped-def]
    alone = _copy(DATA / "potato_server" / "categorical", tmp_path / "alone")
    spoiled = _copy(DATA / "potato_server" / "categorical", tmp_path / "spoiled")
    spoil(spoiled / ENGINE)

    code_alone, expected, _ = _agreement_json(alone, capsys)
    code, got, _ = _agreement_json(spoiled, capsys)
    assert code == code_alone == 0
    assert got["schemes"] == expected["schemes"]
    assert got["coverage"] == expected["coverage"]
    assert expected["schemes"] and any(  # a number that was computed, not all undefined
        s["metrics"].get("alpha") is not None for s in expected["schemes"].values())

    study = load_study(spoiled)
    assert study.annotators == ("alice", "bob", "carol")
    notes = [n for n in study.notes if "labelling engine could not be read" in n]
    assert len(notes) == 1
    assert str(spoiled / ENGINE) in notes[0]
    assert "user_state.json" in notes[0] and "missing" in notes[0]
    assert got["notes"] == [*expected.get("notes", []), notes[0]]  # said in the JSON
    assert load_study(alone).notes == [n for n in study.notes if n != notes[0]]


def test_a_damaged_database_with_its_wal_is_a_note_too(tmp_path: Path) -> None:
    project = _copy(DATA / "potato_engine" / "server_engine", tmp_path)
    before = sorted(p.name for p in project.iterdir())
    _not_sqlite(project / ENGINE)
    study = load_study(project)
    assert study.annotators == ("ann_a", "ann_b", "ann_c")
    assert any(str(project / ENGINE) in n and "could not be read" in n for n in study.notes)
    assert sorted(p.name for p in project.iterdir()) == before


@pytest.mark.parametrize("spoil", [_not_sqlite, _other_version])
def test_the_engine_holding_the_only_labels_is_an_error_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], spoil) -> None:  # type: ignore[no-untyped-def]
    project = _copy(DATA / "potato_engine" / "labels_only_in_db", tmp_path)
    (project / ENGINE).unlink()
    spoil(project / ENGINE)
    with pytest.raises(InputError) as caught:
        load_study(project)
    assert Path(str(caught.value.file)) == project / ENGINE
    code, _, err = _agreement_json(project, capsys)
    assert code == 2
    assert str(project / ENGINE) in err


def test_annotation_files_without_an_answer_do_not_hide_the_error(tmp_path: Path) -> None:
    """Folders with ``user_state.json`` but no answer: the engine may still hold every
    human label, so its damage is the error."""
    project = _copy(DATA / "potato_server" / "categorical", tmp_path)
    for state_file in (project / "annotation_output").glob("*/user_state.json"):
        state = json.loads(state_file.read_text())
        state["instance_id_to_label_to_value"] = {}
        state["instance_id_to_span_to_value"] = {}
        state_file.write_text(json.dumps(state))
    _not_sqlite(project / ENGINE)
    with pytest.raises(InputError) as caught:
        load_study(project)
    assert Path(str(caught.value.file)) == project / ENGINE


def test_annotation_files_of_machine_raters_only_do_not_hide_the_error(tmp_path: Path) -> None:
    """Only machine raters (an ``origin`` in their user state) answered in the files: the
    engine may hold every person's label, so its damage is the error; with one person's
    folder back, the files' agreement of that person and the machines stands, with the
    note."""
    project = _copy(DATA / "potato_server" / "machines", tmp_path)
    people = tmp_path / "people"
    people.mkdir()
    for person in ("alice", "bob", "carol"):
        shutil.move(project / "annotation_output" / person, people / person)
    _not_sqlite(project / ENGINE)
    with pytest.raises(InputError) as caught:
        load_study(project)
    assert Path(str(caught.value.file)) == project / ENGINE
    shutil.move(people / "alice", project / "annotation_output" / "alice")
    study = load_study(project)
    assert "alice" in study.annotators and "alice" not in study.machine_raters
    assert any("could not be read" in n for n in study.notes)
