"""``accord import eaf``: ELAN files written with pympi-ling, read back through the
importer, the written Potato project and Accord's own reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from lxml import etree
from pympi import Elan

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


def _new_eaf() -> Any:
    eaf = Elan.Eaf()
    eaf.remove_tier("default")
    return eaf


# ------------------------------------------------------------------------ round trips


def test_one_tier_per_coder_is_segments_in_seconds_with_the_audio(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "elan"
    src.mkdir()
    eaf = _new_eaf()
    for coder in ("alice", "bob"):  # no PARTICIPANT anywhere: each tier is a coder
        eaf.add_tier(coder)
    eaf.add_annotation("alice", 1250, 2500, "laugh ")
    eaf.add_annotation("alice", 4000, 4720, "cough")
    eaf.add_annotation("bob", 1300, 2450, "laugh")
    eaf.add_linked_file("file:///C:/corpus/rec%201.wav", relpath="../elsewhere/rec 1.wav",
                        mimetype="audio/x-wav")
    eaf.to_file(str(src / "rec1.eaf"))
    (src / "rec 1.wav").write_bytes(b"RIFF....WAVE")
    out = tmp_path / "project"

    code, printed, _ = run_import(capsys, "eaf", str(src), "-o", str(out))

    assert code == 0 and "segments (audio_annotation)" in printed
    assert stored(out, "alice", "rec1", "segments") == {"segments": [
        {"id": "segment_1", "start_time": 1.25, "end_time": 2.5, "label": "laugh"},
        {"id": "segment_2", "start_time": 4, "end_time": 4.72, "label": "cough"}]}
    record = json.loads((out / "data" / "items.jsonl").read_text().splitlines()[0])
    assert record == {"id": "rec1", "text": "rec1.eaf", "audio": "media/rec1/rec 1.wav"}
    assert (out / record["audio"]).read_bytes() == b"RIFF....WAVE"
    study = load_study(out)
    assert study.annotators == ("alice", "bob")
    got = study.answers["segments"]["rec1"]["bob"].objects
    assert got == (Segment(1.3, 2.45, "laugh", None, "segment_1"),)


def _tiered_file(path: Path) -> None:
    """alice and bob (PARTICIPANT), each: words, a symbolic-association gloss and a
    symbolic-subdivision morph tier; carol is named by ANNOTATOR (beside a speaker
    PARTICIPANT)."""
    eaf = _new_eaf()
    eaf.add_linguistic_type("words-lt")
    eaf.add_linguistic_type("gloss-lt", constraints="Symbolic_Association", timealignable=False)
    eaf.add_linguistic_type("morph-lt", constraints="Symbolic_Subdivision", timealignable=False)
    for coder in ("alice", "bob"):
        eaf.add_tier(f"words_{coder}", ling="words-lt", part=coder)
        eaf.add_tier(f"gloss_{coder}", ling="gloss-lt", parent=f"words_{coder}")
        eaf.add_tier(f"{coder}-morph", ling="morph-lt", parent=f"words_{coder}")
    eaf.add_tier("words (carol)", ling="words-lt", part="speaker A", ann="carol")
    eaf.add_annotation("words_alice", 1000, 2500, "hello")
    eaf.add_annotation("words_alice", 3000, 4000, "world")
    eaf.add_ref_annotation("gloss_alice", "words_alice", 3500, "WORLD")
    eaf.add_annotation("words_bob", 1100, 2400, "hello")
    eaf.add_ref_annotation("bob-morph", "words_bob", 1500, "hel")
    first = next(iter(eaf.tiers["bob-morph"][1]))
    eaf.add_ref_annotation("bob-morph", "words_bob", 1500, "lo", prev=first)
    eaf.add_annotation("words (carol)", 1000, 2000, "hello")
    eaf.to_file(str(path))


def test_several_tiers_per_coder_are_one_tiered_scheme_in_milliseconds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tiered_file(tmp_path / "clip1.eaf")
    out = tmp_path / "project"

    code, printed, _ = run_import(capsys, "eaf", str(tmp_path / "clip1.eaf"), "-o", str(out))

    assert code == 0, printed
    config = yaml.safe_load((out / "config.yaml").read_text())
    (scheme,) = config["annotation_schemes"]
    assert scheme["annotation_type"] == "tiered_annotation"
    assert [(t["name"], t["tier_type"], t.get("parent_tier"), t.get("constraint_type"))
            for t in scheme["tiers"]] == [
        ("words", "independent", None, None),
        ("gloss", "dependent", "words", "symbolic_association"),
        ("morph", "dependent", "words", "symbolic_subdivision")]
    bob = stored(out, "bob", "clip1", "tiers")["annotations"]
    assert bob["gloss"] == []
    assert [(a["start_time"], a["end_time"], a["label"], a["parent_id"])
            for a in bob["morph"]] == [(1100, 1750, "hel", bob["words"][0]["id"]),
                                       (1750, 2400, "lo", bob["words"][0]["id"])]
    alice = stored(out, "alice", "clip1", "tiers")["annotations"]
    assert [(a["tier"], a["start_time"], a["end_time"]) for a in alice["words"]] == [
        ("words", 1000, 2500), ("words", 3000, 4000)]
    assert alice["gloss"][0]["parent_id"] == alice["words"][1]["id"]
    assert stored(out, "carol", "clip1", "tiers")["annotations"]["words"][0]["label"] == "hello"
    study = load_study(out)
    assert study.annotators == ("alice", "bob", "carol")
    morph = [s for s in study.answers["tiers"]["clip1"]["bob"].objects
             if isinstance(s, Segment) and s.tier == "morph"]
    assert [(s.start, s.end, s.label) for s in morph] == [(1.1, 1.75, "hel"), (1.75, 2.4, "lo")]
    assert "symbolic-subdivision" in printed


def test_unaligned_slots_of_a_time_subdivision_are_placed_evenly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    eaf = _new_eaf()
    eaf.add_linguistic_type("phones-lt", constraints="Time_Subdivision")
    eaf.add_tier("words", part="alice")
    eaf.add_tier("phones", ling="phones-lt", parent="words", part="alice")
    eaf.add_annotation("words", 1000, 1600, "cat")
    ((word, (start, end, _, _)),) = eaf.tiers["words"][0].items()
    eaf.timeslots.update({"ts10": None, "ts11": None})  # ELAN's unaligned slots
    eaf.tiers["phones"][0].update({"a10": (start, "ts10", "k", None),
                                   "a11": ("ts10", "ts11", "a", None),
                                   "a12": ("ts11", end, "t", None)})
    eaf.to_file(str(tmp_path / "w.eaf"))
    out = tmp_path / "project"

    code, printed, _ = run_import(capsys, "eaf", str(tmp_path / "w.eaf"), "-o", str(out))

    assert code == 0, printed
    phones = stored(out, "alice", "w", "tiers")["annotations"]["phones"]
    assert [(p["start_time"], p["end_time"], p["label"], p["parent_id"]) for p in phones] == [
        (1000, 1200, "k", word), (1200, 1400, "a", word), (1400, 1600, "t", word)]
    assert "2 unaligned time slots" in printed


def test_each_source_is_one_coders_copy_with_annotator_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for coder, (a, b) in {"first": (500, 900), "second": (520, 950)}.items():
        (tmp_path / coder).mkdir()
        eaf = _new_eaf()
        eaf.add_tier("events", part="speaker A")  # the speaker, not the coder
        eaf.add_annotation("events", a, b, "music")
        eaf.to_file(str(tmp_path / coder / "s1.eaf"))
    out = tmp_path / "project"

    code, _, err = run_import(capsys, "eaf", str(tmp_path / "first"), str(tmp_path / "second"),
                              "-o", str(out), "--annotator", "ann", "--annotator", "ben")

    assert code == 0, err
    assert stored(out, "ben", "s1", "segments")["segments"][0]["end_time"] == 0.95
    assert load_study(out).annotators == ("ann", "ben")


# ------------------------------------------------------------------------- end to end

ITEMS = ("c1", "c2", "c3")
STUDY: dict[str, dict[str, dict[str, list[tuple[int, int, str]]]]] = {
    # coder -> item -> tier -> (start ms, end ms, value); an item missing: not annotated
    "alice": {"c1": {"words": [(0, 900, "yes"), (1000, 2000, "no")],
                     "gestures": [(100, 700, "nod")]},
              "c2": {"words": [(300, 1300, "maybe")], "gestures": []},
              "c3": {"words": [(0, 400, "yes")], "gestures": [(0, 400, "shake")]}},
    "bob": {"c1": {"words": [(50, 950, "yes"), (1100, 1900, "yes")], "gestures": []},
            "c2": {"words": [], "gestures": []},
            "c3": {"words": [(20, 380, "yes")], "gestures": [(10, 390, "nod")]}},
    "carol": {"c1": {"words": [(0, 1000, "yes"), (1000, 2100, "no")],
                     "gestures": [(120, 650, "nod")]},
              "c2": {"words": [(250, 1250, "maybe"), (1500, 1700, "uh")], "gestures": []}},
}


def _write_study_as_eaf(folder: Path) -> None:
    folder.mkdir()
    for item in ITEMS:
        eaf = _new_eaf()
        for coder, per_item in STUDY.items():
            if item not in per_item:
                continue
            for tier, marks in per_item[item].items():
                eaf.add_tier(f"{tier}-{coder}", part=coder)
                for start, end, value in marks:
                    eaf.add_annotation(f"{tier}-{coder}", start, end, value)
        eaf.to_file(str(folder / f"{item}.eaf"))


def _study_as_potato(root: Path) -> Path:
    scheme = {"annotation_type": "tiered_annotation", "name": "tiers", "source_field": "audio",
              "media_type": "audio",
              "tiers": [{"name": "words", "tier_type": "independent"},
                        {"name": "gestures", "tier_type": "independent"}]}
    answers = {coder: {item: {"annotations": {
        tier: [{"id": f"{coder}{i}", "tier": tier, "start_time": a, "end_time": b, "label": v,
                "parent_id": None} for i, (a, b, v) in enumerate(marks)]
        for tier, marks in tiers.items()}} for item, tiers in per_item.items()}
        for coder, per_item in STUDY.items()}
    records = [{"id": i, "text": f"{i}.eaf"} for i in ITEMS]
    return potato_project(root, [scheme], records, under_data("tiers", answers))


def test_a_study_in_elan_agrees_as_the_same_study_in_potato(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write_study_as_eaf(tmp_path / "elan")
    imported = tmp_path / "imported"
    code, _, err = run_import(capsys, "eaf", str(tmp_path / "elan"), "-o", str(imported))
    assert code == 0, err

    got = rounded_agreement(capsys, imported)
    want = rounded_agreement(capsys, _study_as_potato(tmp_path / "potato"))

    assert got == want
    tiers = got["schemes"]["tiers"]
    assert tiers["kind"] == "tiers" and tiers["n_items"] == 3 and tiers["n_pairs"] == 7
    assert 0 < tiers["metrics"]["mean_agreement"] < 1


# -------------------------------------------------------------------------- bad input


def _eaf_text(tmp_path: Path) -> str:
    eaf = _new_eaf()
    eaf.add_tier("words", part="alice")
    eaf.add_annotation("words", 100, 900, "a")
    eaf.to_file(str(tmp_path / "model.eaf"))
    return (tmp_path / "model.eaf").read_text(encoding="utf-8")


def _slot_edit(text: str, edit: str) -> str:
    """The first time slot removed, left without a value, or moved to ``edit`` ms."""
    root = etree.fromstring(text.encode("utf-8"))
    element = root.find(".//TIME_SLOT")
    assert element is not None
    if edit == "remove":
        element.getparent().remove(element)
    elif edit == "no value":
        del element.attrib["TIME_VALUE"]
    else:
        element.set("TIME_VALUE", edit)
    return etree.tostring(root, encoding="unicode")


@pytest.mark.parametrize(("case", "expected"), [
    ("truncated", "not well-formed XML"),
    ("undefined slot", "which TIME_ORDER does not define"),
    ("slot without value", "has no TIME_VALUE"),
    ("reversed", "ends before it starts"),
    ("not elan", "no ELAN ANNOTATION_DOCUMENT"),
])
def test_bad_files_are_one_line_and_leave_no_project(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, expected: str) -> None:
    text = _eaf_text(tmp_path)
    broken = {"truncated": text[: len(text) // 2],
              "undefined slot": _slot_edit(text, "remove"),
              "slot without value": _slot_edit(text, "no value"),
              "reversed": _slot_edit(text, "5000"),
              "not elan": "<TIERS><TIER TIER_ID='x'/></TIERS>"}[case]
    bad = tmp_path / "bad.eaf"
    bad.write_text(broken, encoding="utf-8")
    out = tmp_path / "project"

    code, _, err = run_import(capsys, "eaf", str(bad), "-o", str(out))

    assert_refused(code, err, out, bad)
    assert expected in err


def test_a_reference_to_a_missing_annotation_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tiered_file(tmp_path / "clip1.eaf")
    text = (tmp_path / "clip1.eaf").read_text(encoding="utf-8")
    bad = tmp_path / "clip2.eaf"
    bad.write_text(text.replace('ANNOTATION_REF="a', 'ANNOTATION_REF="zz'), encoding="utf-8")
    out = tmp_path / "project"

    code, _, err = run_import(capsys, "eaf", str(bad), "-o", str(out))

    assert_refused(code, err, out, bad)
    assert "does not exist" in err


def test_an_existing_non_empty_project_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tiered_file(tmp_path / "clip1.eaf")
    out = tmp_path / "project"

    code, err = import_into_occupied(capsys, "eaf", out, str(tmp_path / "clip1.eaf"))

    assert code == 2 and str(out) in err and len(err.strip().splitlines()) == 1


def test_the_same_coder_on_the_same_item_twice_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for folder in ("first", "second"):
        (tmp_path / folder).mkdir()
        _tiered_file(tmp_path / folder / "clip1.eaf")
    out = tmp_path / "project"

    code, _, err = run_import(capsys, "eaf", str(tmp_path / "first"), str(tmp_path / "second"),
                              "-o", str(out))

    assert_refused(code, err, out, tmp_path / "second" / "clip1.eaf")
    assert "already has item 'clip1'" in err
