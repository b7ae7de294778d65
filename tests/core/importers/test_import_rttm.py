"""``accord import rttm``: RTTM files written by hand following NIST's 10-field layout
(``SPEAKER file chan onset dur <NA> <NA> speaker <NA> <NA>``, seconds), read back
through the importer, the written Potato project and Accord's own reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from app.core.formats.potato.project import load_study
from app.core.objects import Segment
from tests.core.importers.support import (
    assert_refused,
    import_into_occupied,
    potato_project,
    rounded_agreement,
    run_import,
    stored,
    under_data,
)

# ------------------------------------------------------------------------------ helpers


def _line(file_id: str, onset: float, duration: float, speaker: str, channel: int = 1) -> str:
    """One SPEAKER record, as pyannote and the DIHARD/VoxConverse references write it."""
    return f"SPEAKER {file_id} {channel} {onset:.3f} {duration:.3f} <NA> <NA> {speaker} <NA> <NA>"


def _rttm(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------------ round trips


def test_a_speaker_turn_is_a_segment_in_seconds_labelled_by_the_speaker(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rttm = _rttm(tmp_path / "hyp" / "alice.rttm", [
        ";; written by hand",
        "SPKR-INFO rec1 1 <NA> <NA> <NA> unknown spk_a <NA> <NA>",
        _line("rec1", 2.1, 0.2, "spk_b"),
        "SPEAKER\trec1  1 0.500 1.250 <NA> <NA> spk_a <NA> <NA>",
        _line("rec1", 3.0, 0.0, "spk_a"),
        "",
    ])
    (tmp_path / "hyp" / "rec1.flac").write_bytes(b"fLaC")
    out = tmp_path / "project"

    code, printed, _ = run_import(capsys, "rttm", str(rttm), "-o", str(out))

    assert code == 0, printed
    (scheme,) = yaml.safe_load((out / "config.yaml").read_text())["annotation_schemes"]
    assert (scheme["name"], scheme["annotation_type"]) == ("segments", "audio_annotation")
    assert scheme["labels"] == [{"name": "spk_a"}, {"name": "spk_b"}]
    assert stored(out, "alice", "rec1", "segments") == {"segments": [
        {"id": "segment_1", "start_time": 0.5, "end_time": 1.75, "label": "spk_a"},
        {"id": "segment_2", "start_time": 2.1, "end_time": 2.3, "label": "spk_b"},
        {"id": "segment_3", "start_time": 3, "end_time": 3, "label": "spk_a"}]}
    assert "no turn type" in printed and "1 records of other RTTM types" in printed
    record = json.loads((out / "data" / "items.jsonl").read_text())
    assert record == {"id": "rec1", "text": "alice.rttm", "audio": "media/rec1/rec1.flac"}
    study = load_study(out)
    got = study.answers["segments"]["rec1"]["alice"].objects
    assert [(s.start, s.end, s.label) for s in got if isinstance(s, Segment)] == [
        (0.5, 1.75, "spk_a"), (2.1, 2.3, "spk_b"), (3.0, 3.0, "spk_a")]


def test_an_annotators_files_are_pooled_and_items_matched_by_file_id(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _rttm(tmp_path / "a" / "one.rttm", [_line("r1", 0, 1, "x")])
    _rttm(tmp_path / "a" / "two.rttm", [_line("r2", 0, 1, "x"), _line("r1", 2, 1, "y", 2)])
    _rttm(tmp_path / "b.rttm", [_line("r2", 0.1, 1, "x")])
    out = tmp_path / "project"

    code, printed, err = run_import(capsys, "rttm", str(tmp_path / "a"), str(tmp_path / "b.rttm"),
                                    "-o", str(out), "--annotator", "ann", "--annotator", "ben")

    assert code == 0, err
    assert [s["label"] for s in stored(out, "ann", "r1", "segments")["segments"]] == ["x", "y"]
    study = load_study(out)
    assert set(study.answers["segments"]["r1"]) == {"ann"}
    assert set(study.answers["segments"]["r2"]) == {"ann", "ben"}
    assert "1 recordings have turns on several channels" in printed
    assert "1 recordings have no turn in some annotator's RTTM" in printed


# ------------------------------------------------------------------------- end to end

STUDY: dict[str, dict[str, list[tuple[float, float, str]]]] = {
    # annotator -> recording -> (onset s, duration s, speaker)
    "alice": {"r1": [(0.0, 2.0, "host"), (2.0, 1.5, "guest"), (3.6, 1.0, "host")],
              "r2": [(0.5, 3.0, "guest")],
              "r3": [(1.0, 1.0, "host")]},
    "bob": {"r1": [(0.1, 1.8, "host"), (2.1, 1.6, "guest")],
            "r2": [(0.4, 2.9, "guest"), (3.3, 0.4, "host")],
            "r3": [(1.2, 0.6, "guest")]},
    "carol": {"r1": [(0.0, 2.1, "host"), (2.1, 1.4, "host"), (3.5, 1.2, "host")],
              "r2": [(0.6, 3.1, "guest")]},
}


def test_a_study_in_rttm_agrees_as_the_same_study_in_potato(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sources = []
    for who, per_item in STUDY.items():
        lines = [_line(item, a, d, s) for item, turns in per_item.items() for a, d, s in turns]
        sources.append(str(_rttm(tmp_path / "rttm" / f"{who}.rttm", lines[::-1])))
    imported = tmp_path / "imported"
    code, _, err = run_import(capsys, "rttm", *sources, "-o", str(imported))
    assert code == 0, err
    answers = {who: {item: {"segments": [
        {"id": f"segment_{i + 1}", "start_time": a, "end_time": round(a + d, 3), "label": s}
        for i, (a, d, s) in enumerate(turns)]} for item, turns in per_item.items()}
        for who, per_item in STUDY.items()}
    scheme = {"annotation_type": "audio_annotation", "name": "segments",
              "source_field": "audio", "mode": "label",
              "labels": [{"name": "host"}, {"name": "guest"}]}
    records = [{"id": i, "text": i} for i in ("r1", "r2", "r3")]
    potato = potato_project(tmp_path / "potato", [scheme], records,
                            under_data("segments", answers))

    got = rounded_agreement(capsys, imported)
    want = rounded_agreement(capsys, potato)

    assert got == want
    segments = got["schemes"]["segments"]
    assert segments["kind"] == "segments" and segments["n_pairs"] == 7
    assert 0 < segments["metrics"]["mean_agreement"] < 1


# -------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("line", "expected"), [
    ("SPEAKER rec1 1 0.500 1.250 <NA> <NA> spk_a", "has 8 fields; expected 10"),
    ("SPEAKER rec1 1 zero 1.250 <NA> <NA> spk_a <NA> <NA>", "onset 'zero' is not a number"),
    ("SPEAKER rec1 1 0.5 nan <NA> <NA> spk_a <NA> <NA>", "duration 'nan' is not a number"),
    ("SPEAKER rec1 1 0.5 -0.2 <NA> <NA> spk_a <NA> <NA>", "duration is negative"),
    ("SPEAKER rec1 1 -1 0.2 <NA> <NA> spk_a <NA> <NA>", "onset is negative"),
    ("rec1 0.5 1.0 spk_a", "expected an RTTM record"),
])
def test_a_bad_line_is_one_error_naming_the_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, expected: str) -> None:
    bad = _rttm(tmp_path / "bad.rttm", [_line("rec1", 0, 1, "spk_a"), "", line])
    out = tmp_path / "project"

    code, _, err = run_import(capsys, "rttm", str(bad), "-o", str(out))

    assert_refused(code, err, out, f"{bad}:3:")
    assert expected in err


def test_a_file_that_is_not_text_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bin.rttm"
    bad.write_bytes(b"SPEAKER \xff\xfe\x00")
    out = tmp_path / "project"

    code, _, err = run_import(capsys, "rttm", str(bad), "-o", str(out))

    assert_refused(code, err, out, bad)


def test_an_existing_non_empty_project_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rttm = _rttm(tmp_path / "a.rttm", [_line("rec1", 0, 1, "x")])
    out = tmp_path / "project"

    code, err = import_into_occupied(capsys, "rttm", out, str(rttm))

    assert code == 2 and str(out) in err and len(err.strip().splitlines()) == 1
