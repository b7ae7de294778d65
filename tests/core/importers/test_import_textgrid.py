"""``accord import textgrid``: TextGrids written with praatio (long and short text
formats), read back through the importer, the written Potato project and Accord's own
reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from praatio import textgrid
from praatio.data_classes.interval_tier import IntervalTier
from praatio.data_classes.point_tier import PointTier

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


def _grid(path: Path, tiers: dict[str, list[tuple[float, float, str]] | list[tuple[float, str]]],
          end: float = 5.0, form: str = "long_textgrid") -> Path:
    """Interval tiers from (start, end, text), point tiers from (time, text), with praatio."""
    grid = textgrid.Textgrid()
    for name, entries in tiers.items():
        if entries and len(entries[0]) == 2:
            grid.addTier(PointTier(name, entries, 0.0, end))
        else:
            grid.addTier(IntervalTier(name, entries, 0.0, end))
    path.parent.mkdir(parents=True, exist_ok=True)
    grid.save(str(path), format=form, includeBlankSpaces=True)
    return path


# ------------------------------------------------------------------------ round trips


def test_one_interval_tier_is_segments_in_seconds_and_gaps_are_not_annotations(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grid = _grid(tmp_path / "ann" / "rec7.TextGrid",
                 {"words": [(0.5, 1.25, "hello"), (1.5, 2.001, " wörld ")]})
    (tmp_path / "ann" / "rec7.WAV").write_bytes(b"RIFF")
    assert 'text = ""' in grid.read_text(encoding="utf-8")  # praatio wrote the gaps
    out = tmp_path / "project"

    code, printed, _ = run_import(capsys, "textgrid", str(tmp_path / "ann"), "-o", str(out))

    assert code == 0 and "segments (audio_annotation)" in printed
    assert stored(out, "ann", "rec7", "segments") == {"segments": [
        {"id": "segment_1", "start_time": 0.5, "end_time": 1.25, "label": "hello"},
        {"id": "segment_2", "start_time": 1.5, "end_time": 2.001, "label": "wörld"}]}
    assert "3 empty intervals are gaps" in printed and "cannot overlap" in printed
    record = json.loads((out / "data" / "items.jsonl").read_text(encoding="utf-8"))
    assert record["audio"] == "media/rec7/rec7.WAV" and (out / record["audio"]).is_file()
    got = load_study(out).answers["segments"]["rec7"]["ann"].objects
    assert [(s.start, s.end, s.label) for s in got if isinstance(s, Segment)] == [
        (0.5, 1.25, "hello"), (1.5, 2.001, "wörld")]


@pytest.mark.parametrize("form", ["long_textgrid", "short_textgrid"])
def test_several_tiers_are_tiered_in_milliseconds_and_points_are_instants(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str) -> None:
    grid = _grid(tmp_path / "clip.TextGrid",
                 {"words": [(0.25, 1.001, "one"), (1.001, 2.5, "two")],
                  "beats": [(0.7, "b"), (1.9, "")]}, form=form)
    out = tmp_path / "project"

    code, printed, _ = run_import(capsys, "textgrid", str(grid), "-o", str(out),
                                  "--annotator", "lee")

    assert code == 0, printed
    (scheme,) = yaml.safe_load((out / "config.yaml").read_text())["annotation_schemes"]
    assert scheme["annotation_type"] == "tiered_annotation"
    assert [(t["name"], t["tier_type"]) for t in scheme["tiers"]] == [
        ("words", "independent"), ("beats", "independent")]
    tiers = stored(out, "lee", "clip", "tiers")["annotations"]
    assert [(a["start_time"], a["end_time"], a["label"]) for a in tiers["words"]] == [
        (250, 1001, "one"), (1001, 2500, "two")]
    assert [(a["tier"], a["start_time"], a["end_time"], a["label"]) for a in tiers["beats"]] == [
        ("beats", 700, 700, "b"), ("beats", 1900, 1900, "")]
    got = load_study(out).answers["tiers"]["clip"]["lee"].objects
    read = sorted((s.tier, s.start, s.end) for s in got if isinstance(s, Segment))
    assert [r[0] for r in read] == ["beats", "beats", "words", "words"]
    assert [v for r in read for v in r[1:]] == pytest.approx(
        [0.7, 0.7, 1.9, 1.9, 0.25, 1.001, 1.001, 2.5], abs=1e-12)


def test_a_utf16_textgrid_as_praat_writes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grid = _grid(tmp_path / "u.TextGrid", {"words": [(1.0, 2.0, "straße")]})
    grid.write_text(grid.read_text(encoding="utf-8"), encoding="utf-16")
    out = tmp_path / "project"

    code, _, err = run_import(capsys, "textgrid", str(grid), "-o", str(out), "--annotator", "kim")

    assert code == 0, err
    assert stored(out, "kim", "u", "segments")["segments"][0]["label"] == "straße"


# ------------------------------------------------------------------------- end to end

ITEMS = ("c1", "c2", "c3")
STUDY: dict[str, dict[str, dict[str, list[Any]]]] = {
    # annotator -> item -> tier -> intervals (start s, end s, text) or points (time s, text)
    "alice": {"c1": {"words": [(0.0, 0.9, "yes"), (1.0, 2.0, "no")], "beats": [(0.5, "x")]},
              "c2": {"words": [(0.3, 1.3, "maybe")], "beats": []},
              "c3": {"words": [(0.0, 0.4, "yes")], "beats": [(0.2, "x"), (3.0, "x")]}},
    "bob": {"c1": {"words": [(0.05, 0.95, "yes"), (1.1, 1.9, "yes")], "beats": [(0.5, "x")]},
            "c2": {"words": [], "beats": []},
            "c3": {"words": [(0.02, 0.38, "yes")], "beats": [(0.2, "x")]}},
    "carol": {"c1": {"words": [(0.0, 1.0, "yes"), (1.0, 2.1, "no")], "beats": [(0.51, "x")]},
              "c2": {"words": [(0.25, 1.25, "maybe"), (1.5, 1.7, "uh")], "beats": [(1.0, "y")]}},
}


def _study_as_potato(root: Path) -> Path:
    scheme = {"annotation_type": "tiered_annotation", "name": "tiers", "source_field": "audio",
              "media_type": "audio",
              "tiers": [{"name": "words", "tier_type": "independent"},
                        {"name": "beats", "tier_type": "independent"}]}

    def entry(who: str, tier: str, i: int, mark: tuple[Any, ...]) -> dict[str, Any]:
        start, end = (mark[0], mark[1]) if len(mark) == 3 else (mark[0], mark[0])
        return {"id": f"{who}{i}", "tier": tier, "start_time": round(start * 1000),
                "end_time": round(end * 1000), "label": mark[-1], "parent_id": None}

    answers = {who: {item: {"annotations": {
        tier: [entry(who, tier, i, m) for i, m in enumerate(marks)]
        for tier, marks in tiers.items()}} for item, tiers in per_item.items()}
        for who, per_item in STUDY.items()}
    records = [{"id": i, "text": f"{i}.TextGrid"} for i in ITEMS]
    return potato_project(root, [scheme], records, under_data("tiers", answers))


def test_a_study_in_textgrids_agrees_as_the_same_study_in_potato(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for who, per_item in STUDY.items():
        for item, tiers in per_item.items():
            form = "short_textgrid" if who == "bob" else "long_textgrid"
            _grid(tmp_path / who / f"{item}.TextGrid", tiers, form=form)
    imported = tmp_path / "imported"
    code, _, err = run_import(capsys, "textgrid", *(str(tmp_path / who) for who in STUDY),
                              "-o", str(imported))
    assert code == 0, err

    got = rounded_agreement(capsys, imported)
    want = rounded_agreement(capsys, _study_as_potato(tmp_path / "potato"))

    assert got == want
    tiers = got["schemes"]["tiers"]
    assert tiers["kind"] == "tiers" and tiers["n_items"] == 3 and tiers["n_pairs"] == 7
    assert 0 < tiers["metrics"]["mean_agreement"] < 1


# -------------------------------------------------------------------------- bad input


def _long_text(tmp_path: Path) -> str:
    return _grid(tmp_path / "model.TextGrid",
                 {"words": [(0.5, 1.25, "hello"), (1.5, 2.0, "world")]}).read_text(
        encoding="utf-8")


@pytest.mark.parametrize(("case", "expected"), [
    ("truncated", "could not be read as a TextGrid"),
    ("reversed", "cannot occur after its end time"),
    ("overlapping", "overlap"),
    ("not a textgrid", "could not be read as a TextGrid"),
    ("same tier twice", "same name"),
])
def test_bad_files_are_one_line_and_leave_no_project(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, expected: str) -> None:
    text = _long_text(tmp_path)
    twice = text.replace("size = 1", "size = 2") + text[text.index("    item [1]:"):]
    broken = {"truncated": text[: len(text) // 2],
              "reversed": text.replace("xmax = 1.25", "xmax = 0.25", 1),
              "overlapping": text.replace("xmin = 1.5", "xmin = 1.0", 1),
              "not a textgrid": "hello\nworld\n",
              "same tier twice": twice}[case]
    bad = tmp_path / "bad.TextGrid"
    bad.write_text(broken, encoding="utf-8")
    out = tmp_path / "project"

    code, _, err = run_import(capsys, "textgrid", str(bad), "-o", str(out))

    assert_refused(code, err, out, bad)
    assert expected in err


def test_a_folder_without_textgrids_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    out = tmp_path / "project"

    code, _, err = run_import(capsys, "textgrid", str(tmp_path / "empty"), "-o", str(out))

    assert_refused(code, err, out, tmp_path / "empty")
    assert "no Praat TextGrid files" in err


def test_an_existing_non_empty_project_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grid = _grid(tmp_path / "a.TextGrid", {"words": [(0.5, 1.0, "x")]})
    out = tmp_path / "project"

    code, err = import_into_occupied(capsys, "textgrid", out, str(grid))

    assert code == 2 and str(out) in err and len(err.strip().splitlines()) == 1
