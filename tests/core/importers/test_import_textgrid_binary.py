"""``accord import textgrid`` on Praat's binary TextGrids ("Save as binary file").

Fixtures: ``tests/data/importers/praat_binary`` holds grids Praat 6.3.07 itself wrote,
each as a binary TextGrid and as a text TextGrid of the same object (``make.praat`` and
the README there say how). Oracles:

- praatio reading Praat's text twin gives the same tiers, to the bit, as our reader on
  the binary file;
- importing the binary folders and the text folders writes the same project, with the
  same agreement;
- a writer of the layout in this file reproduces Praat's bytes exactly from what the
  reader read, and then round-trips random grids (astral characters, Latin-1, empty
  tiers) through the reader.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest

from app.core.errors import InputError
from app.core.formats.importers.textgrid import _open
from app.core.formats.importers.textgrid_binary import BinaryGrid, BinaryTier, read_binary
from tests.core.importers.support import (
    import_fails,
    import_ok,
    rounded_agreement,
    stored,
)

DATA = Path(__file__).parents[2] / "data" / "importers" / "praat_binary"
FILES = [(who, item) for who in ("ana", "ben") for item in ("clip1", "clip2")]


# ------------------------------------------------------- an independent writer of the layout


def _s8(text: str) -> bytes:
    raw = text.encode("ascii")
    return bytes([len(raw)]) + raw


def _w16(text: str) -> bytes:
    if all(ord(c) < 128 for c in text):
        return struct.pack(">H", len(text)) + text.encode("ascii")
    return struct.pack(">HH", 0xFFFF, len(text)) + text.encode("utf-16-be")


def praat_binary(grid: BinaryGrid) -> bytes:
    """``grid`` in Praat's binary layout (every tier spanning the grid's domain)."""
    out = [b"ooBinaryFile", _s8("TextGrid"), struct.pack(">dd", grid.xmin, grid.xmax)]
    out.append(struct.pack(">Bi", 1, len(grid.tiers)))
    for tier in grid.tiers:
        out += [_s8("IntervalTier" if tier.intervals else "TextTier"), _w16(tier.name),
                struct.pack(">ddi", grid.xmin, grid.xmax, len(tier.entries))]
        for entry in tier.entries:
            *times, text = entry
            out += [struct.pack(f">{len(times)}d", *times), _w16(str(text))]
    return b"".join(out)


# ------------------------------------------------------------------------ the reader


@pytest.mark.parametrize(("who", "item"), FILES)
def test_the_binary_reads_as_praatio_reads_praats_text_twin(who: str, item: str) -> None:
    binary = _open(DATA / who / f"{item}.TextGrid")
    text = _open(DATA / "text" / who / f"{item}.TextGrid")
    # praatio trims each text ("  " comes back ""); the binary keeps it as Praat wrote it.
    assert [(n, i, [(*e[:-1], e[-1].strip()) for e in es]) for n, i, es in binary] == \
        [(n, i, [tuple(e) for e in es]) for n, i, es in text]
    names = [name for name, _, _ in binary]
    assert names == ["words", "wörter", "events"]
    words = dict((name, entries) for name, _, entries in binary)["words"]
    assert any(text == "ça va ☃" for *_, text in words)  # UTF-16 in Praat's file


@pytest.mark.parametrize(("who", "item"), FILES)
def test_an_independent_writer_gives_back_praats_bytes(who: str, item: str) -> None:
    raw = (DATA / who / f"{item}.TextGrid").read_bytes()
    assert praat_binary(read_binary(raw, Path("x"))) == raw


def _random_text(rng: random.Random) -> str:
    alphabet = "abc xyz" + "éøß" + "☃中" + "\U0001F600\U00010348"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 6)))


def test_random_grids_round_trip() -> None:
    rng = random.Random(20261205)
    for _ in range(200):
        tiers = []
        for k in range(rng.randrange(0, 4)):
            if rng.random() < 0.5:
                cuts = sorted(rng.uniform(0, 10) for _ in range(rng.randrange(0, 5)))
                edges = [0.0, *cuts, 10.0]
                entries: tuple[Any, ...] = tuple(
                    (a, b, _random_text(rng)) for a, b in itertools.pairwise(edges))
                tiers.append(BinaryTier(f"t{k}{_random_text(rng)}", True, entries))
            else:
                entries = tuple((rng.uniform(0, 10), _random_text(rng))
                                for _ in range(rng.randrange(0, 4)))
                tiers.append(BinaryTier(f"p{k}", False, entries))
        grid = BinaryGrid(0.0, 10.0, tuple(tiers))
        assert read_binary(praat_binary(grid), Path("x")) == grid


# ------------------------------------------------------------------------ imports


def _copy(tmp_path: Path, *parts: str) -> Path:
    target = tmp_path.joinpath(*parts)
    shutil.copytree(DATA.joinpath(*parts), target)
    return target


def test_binary_and_text_folders_import_to_the_same_project(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ana, ben = _copy(tmp_path, "ana"), _copy(tmp_path, "ben")
    ana_t, ben_t = _copy(tmp_path, "text", "ana"), _copy(tmp_path, "text", "ben")
    out_b = import_ok(capsys, "textgrid", str(ana), str(ben), "-o", str(tmp_path / "b"))
    out_t = import_ok(capsys, "textgrid", str(ana_t), str(ben_t), "-o", str(tmp_path / "t"))
    assert out_b.replace(str(tmp_path / "b"), "P") == out_t.replace(str(tmp_path / "t"), "P")
    for who, item in FILES:
        assert stored(tmp_path / "b", who, item, "tiers") == \
            stored(tmp_path / "t", who, item, "tiers")
    annotations = stored(tmp_path / "b", "ana", "clip1", "tiers")["annotations"]
    assert [a["label"] for a in annotations["words"]] == ["hello", "ça va ☃"]  # gaps dropped
    assert annotations["words"][0]["start_time"] == 250 and \
        annotations["words"][0]["end_time"] == 1100  # milliseconds
    assert [(a["start_time"], a["label"]) for a in annotations["events"]] == \
        [(300, "click"), (2900, "")]
    config_b = (tmp_path / "b" / "config.yaml").read_text()
    assert config_b == (tmp_path / "t" / "config.yaml").read_text().replace(
        "annotation_task_name: t\n", "annotation_task_name: b\n")
    assert rounded_agreement(capsys, tmp_path / "b") == rounded_agreement(capsys, tmp_path / "t")


def test_a_folder_may_mix_binary_and_text_grids(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    mixed = tmp_path / "ana"
    mixed.mkdir()
    shutil.copy(DATA / "ana" / "clip1.TextGrid", mixed)
    shutil.copy(DATA / "text" / "ana" / "clip2.TextGrid", mixed)
    import_ok(capsys, "textgrid", str(mixed), "-o", str(tmp_path / "p"))
    state = json.loads((tmp_path / "p" / "annotation_output" / "ana" / "user_state.json")
                       .read_text())
    assert sorted(state["instance_id_to_label_to_value"]) == ["clip1", "clip2"]


# ----------------------------------------------------------------------- bad input


def _bad(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "ana" / "clip1.TextGrid"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    return path


GOOD = (DATA / "ana" / "clip1.TextGrid").read_bytes()


@pytest.mark.parametrize("cut", [14, 30, 45, 60, 100, len(GOOD) - 1])
def test_a_truncated_file_is_one_line_naming_it(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                cut: int) -> None:
    path = _bad(tmp_path, GOOD[:cut])
    line = import_fails(capsys, "textgrid", [str(tmp_path / "ana")], tmp_path / "p", str(path),
                        "at byte", "Save as text file")
    # Where the bytes ran out, or a count the bytes left cannot hold.
    assert "the file ends inside" in line or "bytes left can hold" in line


@pytest.mark.parametrize(("data", "needle"), [
    (GOOD + b"\x00", "1 bytes follow the last tier"),
    (GOOD.replace(b"\x0cIntervalTier", b"\x0cIntervalTieX", 1),
     "tier 1 is a 'IntervalTieX'; expected an IntervalTier or a TextTier"),
    (GOOD.replace(b"\x08TextGrid", b"\x08PitchTie", 1), "holds a Praat 'PitchTie'"),
    (GOOD[:38] + struct.pack(">i", 2**31 - 1) + GOOD[42:], "more than the"),
    (GOOD[:38] + struct.pack(">i", -1) + GOOD[42:], "is negative"),
    (GOOD[:21] + struct.pack(">d", math.nan) + GOOD[29:], "not a finite number"),
])
def test_a_damaged_file_is_one_line_naming_it(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              data: bytes, needle: str) -> None:
    path = _bad(tmp_path, data)
    import_fails(capsys, "textgrid", [str(tmp_path / "ana")], tmp_path / "p", str(path),
                 needle, "at byte")


def test_two_tiers_of_one_name(tmp_path: Path) -> None:
    grid = BinaryGrid(0.0, 1.0, (BinaryTier("w", True, ((0.0, 1.0, "a"),)),
                                 BinaryTier("w", False, ())))
    with pytest.raises(InputError, match="two tiers are named 'w'"):
        read_binary(praat_binary(grid), tmp_path / "x.TextGrid")


def test_overlapping_intervals_in_a_binary_grid_are_refused_like_text_ones(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grid = BinaryGrid(0.0, 2.0, (BinaryTier("w", True, ((0.0, 1.2, "a"), (1.0, 2.0, "b"))),))
    path = _bad(tmp_path, praat_binary(grid))
    import_fails(capsys, "textgrid", [str(tmp_path / "ana")], tmp_path / "p", str(path),
                 "intervals of tier 'w' overlap")
