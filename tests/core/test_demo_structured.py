"""The structured demo studies (lidar boxes, speaker turns, street images) and their
generators.

The folders under ``resources/demo`` are committed so the app can open them offline;
these tests keep each one identical to what its ``scripts/demo_data/make_*.py``
writes, and check that the Potato reader opens them the way the demos promise: the
schemes and kinds, the media inside the project, and the units (milliseconds in tiers,
seconds in audio, unit quaternions, masks of the image's size).
"""

from __future__ import annotations

import importlib.util
import json
import math
import struct
import sys
import wave
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from app.core.formats.potato.project import load_study
from app.core.model import Kind, Study
from app.core.objects import BoxRegion, Cuboid, Mask, ObjectSet, Segment

ROOT = Path(__file__).resolve().parents[2]
DEMO_DIR = ROOT / "resources" / "demo"
GENERATORS_DIR = ROOT / "scripts" / "demo_data"


def _load(script: str) -> ModuleType:
    """Import a generator from its path: ``scripts/demo_data`` is not a package. No
    bytecode is written, so running the tests leaves no ``__pycache__`` beside the
    scripts (nor in ``resources``)."""
    name = f"accord_demo_{script}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, GENERATORS_DIR / f"{script}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while being built
    keep, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = keep
    return module


make_lidar = _load("make_lidar")
make_speakers = _load("make_speakers")
make_images = _load("make_images")
GENERATORS = {"lidar_sweeps": make_lidar, "speaker_turns": make_speakers,
              "street_images": make_images}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _state(folder: str, annotator: str) -> dict[str, Any]:
    path = DEMO_DIR / folder / "annotation_output" / annotator / "user_state.json"
    state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return state


def _raw(folder: str, annotator: str, item: str, scheme: str) -> Any:
    """One stored answer, parsed from its ``_data`` JSON string."""
    pairs = _state(folder, annotator)["instance_id_to_label_to_value"][item]
    values = [v for key, v in pairs if key == {"schema": scheme, "name": "_data"}]
    assert len(values) == 1 and isinstance(values[0], str)
    return json.loads(values[0])


@pytest.fixture(scope="module")
def lidar() -> Study:
    return load_study(DEMO_DIR / "lidar_sweeps")


@pytest.fixture(scope="module")
def speakers() -> Study:
    return load_study(DEMO_DIR / "speaker_turns")


@pytest.fixture(scope="module")
def images() -> Study:
    return load_study(DEMO_DIR / "street_images")


def _objects(study: Study, scheme: str, item: str, annotator: str) -> ObjectSet:
    answer = study.answers[scheme][item][annotator]
    assert isinstance(answer, ObjectSet)
    return answer


# --------------------------------------------------------------------- regeneration


@pytest.mark.parametrize("folder", sorted(GENERATORS))
def test_committed_folder_is_what_the_script_generates(folder: str, tmp_path: Path) -> None:
    out = tmp_path / folder
    GENERATORS[folder].generate(out)
    generated, committed = _files(out), _files(DEMO_DIR / folder)
    assert sorted(generated) == sorted(committed)
    changed = [name for name in generated if generated[name] != committed[name]]
    script = GENERATORS[folder].__file__
    assert not changed, f"regenerate with python {script}: {changed}"


def test_generate_refuses_to_replace_a_foreign_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(FileExistsError):
        make_images.generate(tmp_path)
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_demos_stay_small_and_leave_no_bytecode() -> None:
    total = sum(len(b) for folder in GENERATORS for b in _files(DEMO_DIR / folder).values())
    assert total < 4_000_000
    assert not list(DEMO_DIR.rglob("__pycache__"))


def test_png_encoder_round_trips_through_zlib() -> None:
    """The writer's own DEFLATE (used so PNG bytes do not depend on the zlib build)."""
    writer = sys.modules["_potato_writer"]
    dice = writer.Dice(7)
    for _ in range(50):
        data = bytes(dice.between(0, 3) if dice.chance(0.3) else 9
                     for _ in range(dice.between(0, 2000)))
        assert zlib.decompress(writer.deflate(data, (1, 33))) == data


# ---------------------------------------------------------------------------- loading


def test_lidar_loads_with_cuboids_and_three_annotators(lidar: Study) -> None:
    assert lidar.annotators == ("kofi", "lena", "mateo")
    assert sorted(lidar.items) == [f"sweep_{i:03d}" for i in range(1, 21)]
    assert {n: s.kind for n, s in lidar.schemes.items()} == {"objects": Kind.CUBOIDS}
    assert lidar.schemes["objects"].labels == ("car", "pedestrian", "cyclist")
    assert lidar.notes == []
    for item in lidar.items:  # everyone annotated every sweep
        assert set(lidar.answers["objects"][item]) == set(lidar.annotators)


def test_speakers_load_with_tiers_and_segments(speakers: Study) -> None:
    assert speakers.annotators == ("ines", "jonas", "wei")
    assert sorted(speakers.items) == [f"clip_{i:02d}" for i in range(1, 13)]
    assert {n: s.kind for n, s in speakers.schemes.items()} == {
        "turns": Kind.TIERS, "speech": Kind.SEGMENTS}
    assert speakers.notes == []
    for scheme in ("turns", "speech"):
        for item in speakers.items:
            assert set(speakers.answers[scheme][item]) == set(speakers.annotators)


def test_images_load_with_regions_and_masks(images: Study) -> None:
    assert images.annotators == ("ana", "ravi", "tomas")
    assert sorted(images.items) == [f"street_{i:02d}" for i in range(1, 16)]
    assert {n: s.kind for n, s in images.schemes.items()} == {
        "objects": Kind.REGIONS, "segmentation": Kind.REGIONS}
    assert images.schemes["segmentation"].labels == ("road", "sidewalk")
    assert images.notes == []
    kinds: set[str] = set()
    for item in images.items:
        for annotator in images.annotators:
            objects = _objects(images, "objects", item, annotator)
            kinds |= {type(o).__name__ for o in objects.objects}
            assert not objects.of_type(Mask)
            masks = _objects(images, "segmentation", item, annotator)
            assert masks.objects and all(isinstance(o, Mask) for o in masks.objects)
    assert kinds == {"BoxRegion", "PolygonRegion", "EllipseRegion"}


@pytest.mark.parametrize(("folder", "key", "suffix"), [
    ("lidar_sweeps", "point_cloud", ".npy"), ("speaker_turns", "audio", ".wav"),
    ("street_images", "image", ".png")])
def test_media_exist_inside_the_project(folder: str, key: str, suffix: str) -> None:
    study = load_study(DEMO_DIR / folder)
    root = (DEMO_DIR / folder).resolve()
    for item in study.items.values():
        media = item.media[key]
        assert media.is_file() and media.suffix == suffix
        assert root in media.resolve().parents
        assert media == (root / item.record[key]).resolve()


# ------------------------------------------------------------------------------ media


def test_point_clouds_are_small_float32_clouds() -> None:
    for path in sorted((DEMO_DIR / "lidar_sweeps" / "clouds").glob("*.npy")):
        cloud = np.load(path, allow_pickle=False)
        assert cloud.dtype == np.float32 and cloud.ndim == 2 and cloud.shape[1] == 3
        assert 1_000 <= cloud.shape[0] <= 3_000
        assert np.isfinite(cloud).all()


def test_wavs_are_short_mono_8khz_clips() -> None:
    for path in sorted((DEMO_DIR / "speaker_turns" / "audio").glob("*.wav")):
        with wave.open(str(path), "rb") as w:
            assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 1, 8000)
            assert 5.0 <= w.getnframes() / 8000 <= 8.0


def _png(data: bytes) -> tuple[int, int, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", (0, 0)
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return size[0], size[1], zlib.decompress(idat)


def test_pngs_decode_to_320_by_240() -> None:
    for path in sorted((DEMO_DIR / "street_images" / "images").glob("*.png")):
        width, height, raw = _png(path.read_bytes())
        assert (width, height) == (320, 240)
        assert len(raw) == height * (width + 1)


# ------------------------------------------------------------------------------ units


def test_tiered_segments_are_milliseconds_read_as_seconds(speakers: Study) -> None:
    checked = 0
    for item in speakers.items:
        for annotator in speakers.annotators:
            raw = _raw("speaker_turns", annotator, item, "turns")["annotations"]
            stored = [(s["tier"], s["start_time"], s["end_time"], s["label"])
                      for tier in raw.values() for s in tier]
            read = _objects(speakers, "turns", item, annotator).objects
            assert len(read) == len(stored)
            for seg, (tier, start_ms, end_ms, label) in zip(read, stored, strict=True):
                assert isinstance(seg, Segment)
                assert isinstance(start_ms, int) and isinstance(end_ms, int)
                assert seg.tier == tier and seg.label == label
                assert seg.start == pytest.approx(start_ms / 1000, abs=1e-12)
                assert seg.end == pytest.approx(end_ms / 1000, abs=1e-12)
                checked += 1
    assert checked > 100


def test_audio_segments_are_seconds(speakers: Study) -> None:
    for item in speakers.items:
        duration = speakers.items[item].record["duration"]
        for annotator in speakers.annotators:
            raw = _raw("speaker_turns", annotator, item, "speech")["segments"]
            read = _objects(speakers, "speech", item, annotator).objects
            assert [(s.start, s.end) for s in read if isinstance(s, Segment)] == [
                (r["start_time"], r["end_time"]) for r in raw]
            assert all(0 <= r["start_time"] < r["end_time"] <= duration for r in raw)


def test_two_annotators_mark_the_same_instant(speakers: Study) -> None:
    clip = make_speakers.INSTANT_CLIP
    instants = {a: [(s.start, s.label) for s in _objects(speakers, "turns", clip, a).objects
                    if isinstance(s, Segment) and s.tier == "events" and s.duration == 0]
                for a in speakers.annotators}
    assert instants["ines"] == instants["jonas"] != []
    assert instants["ines"][0][1] == "overlap"
    assert instants["wei"] == []


def test_cuboid_quaternions_are_unit_length(lidar: Study) -> None:
    n = 0
    for item in lidar.items:
        for annotator in lidar.annotators:
            raw = _raw("lidar_sweeps", annotator, item, "objects")
            read = _objects(lidar, "objects", item, annotator).objects
            assert len(read) == len(raw)
            for box, stored in zip(read, raw, strict=True):
                assert isinstance(box, Cuboid)
                q = stored["coordinates"]["rotation"]
                assert math.sqrt(sum(v * v for v in q)) == pytest.approx(1.0, abs=1e-5)
                assert box.rotation == pytest.approx(tuple(q), abs=1e-5)
                assert list(box.center) == stored["coordinates"]["center"]
                n += 1
    assert n > 300
    tilted = [b for item in lidar.items for b in _objects(lidar, "objects", item, "kofi").objects
              if isinstance(b, Cuboid) and max(abs(b.rotation[0]), abs(b.rotation[1])) > 0.01]
    assert len(tilted) >= 10  # pitch and roll are really there, not only yaw


def test_every_mask_decodes_to_the_image_size(images: Study) -> None:
    n = 0
    for item in images.items:
        for annotator in images.annotators:
            for mask in _objects(images, "segmentation", item, annotator).objects:
                assert isinstance(mask, Mask)
                assert (mask.height, mask.width) == (240, 320)
                assert sum(mask.counts) == 240 * 320
                assert mask.to_array().shape == (240, 320)
                n += 1
    assert n >= 2 * 15 * 2


def test_a_few_boxes_reach_outside_the_image(images: Study) -> None:
    outside = [(item, a) for item in images.items for a in images.annotators
               for box in _objects(images, "objects", item, a).objects
               if isinstance(box, BoxRegion) and (min(box.bounds()) < 0 or max(box.bounds()) > 1)]
    assert len(outside) >= 2
    assert {item for item, _ in outside} >= set(make_images.EDGE_IMAGES)


# ---------------------------------------------------------------------------- truth


def test_empty_sweep_has_two_empty_answers(lidar: Study) -> None:
    answers = lidar.answers["objects"][make_lidar.EMPTY_SWEEP]
    assert {a: len(o) for a, o in answers.items() if isinstance(o, ObjectSet)} == {
        "kofi": 0, "lena": 1, "mateo": 0}
    assert _raw("lidar_sweeps", "kofi", make_lidar.EMPTY_SWEEP, "objects") == []


def test_noise_models_show_in_the_answers(lidar: Study, speakers: Study, images: Study
                                          ) -> None:
    """The demos' point: careful, sloppy and missing annotators are told apart."""

    def count(study: Study, scheme: str, annotator: str) -> int:
        return sum(len(_objects(study, scheme, item, annotator)) for item in study.items)

    sweeps = make_lidar.make_plan()
    truth = sum(len(s.truth) for s in sweeps.sweeps)
    assert count(lidar, "objects", "kofi") >= 0.95 * truth
    assert 0.6 * truth <= count(lidar, "objects", "mateo") <= 0.8 * truth
    swapped = [d for s in sweeps.sweeps for d in sweeps.answers["lena"][s.id]
               if d.truth_index is not None and d.box.label != s.truth[d.truth_index].label]
    assert len(swapped) >= 5

    def events(annotator: str) -> int:
        return sum(1 for item in speakers.items
                   for s in _objects(speakers, "turns", item, annotator).objects
                   if isinstance(s, Segment) and s.tier == "events")
    assert events("wei") < 0.6 * events("ines")

    assert count(images, "objects", "tomas") < 0.8 * count(images, "objects", "ana")
    plan = make_images.make_plan()
    over = under = 0
    for scene in plan.scenes:
        road = scene.masks()["road"]
        ravi = plan.answers["ravi"][scene.id].masks["road"]
        tomas = plan.answers["tomas"][scene.id].masks["road"]
        over += int((ravi & ~road).sum()) > int((road & ~ravi).sum())
        under += int((road & ~tomas).sum()) > int((tomas & ~road).sum())
    assert over == under == len(plan.scenes)
