"""Media readers: point clouds and WAV envelopes, checked against values written by hand."""

from __future__ import annotations

import struct
import wave
from pathlib import Path

import numpy as np
import pytest

from app.core.errors import InputError
from app.core.formats.media import (
    AUDIO_SUFFIXES,
    POINT_CLOUD_SUFFIXES,
    item_media,
    read_point_cloud,
    read_waveform,
)
from app.core.model import Item, Scheme

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"


def _write_wav(path: Path, frames: bytes, width: int, rate: int = 8000, channels: int = 1
               ) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(frames)


def test_point_cloud_drops_non_finite_rows_and_extra_columns(tmp_path: Path) -> None:
    cloud = np.array([[1, 2, 3, 9], [np.nan, 0, 0, 9], [4, 5, 6, 9]], dtype=np.float64)
    np.save(tmp_path / "c.npy", cloud)
    points = read_point_cloud(tmp_path / "c.npy")
    assert points.dtype == np.float32
    assert points.tolist() == [[1, 2, 3], [4, 5, 6]]


def test_point_cloud_is_thinned_to_the_cap_with_every_kth_point(tmp_path: Path) -> None:
    cloud = np.arange(30 * 3, dtype=np.float32).reshape(30, 3)
    np.save(tmp_path / "c.npy", cloud)
    points = read_point_cloud(tmp_path / "c.npy", max_points=10)
    assert len(points) == 10
    assert points[:, 0].tolist() == [float(3 * i * 3) for i in range(10)]  # rows 0, 3, 6…


@pytest.mark.parametrize("array", [np.zeros((4, 2)), np.zeros(5), np.array([["a", "b", "c"]])])
def test_point_cloud_of_the_wrong_shape_is_an_input_error(tmp_path: Path,
                                                         array: np.ndarray) -> None:
    np.save(tmp_path / "c.npy", array)
    with pytest.raises(InputError, match=r"N × 3"):
        read_point_cloud(tmp_path / "c.npy")


def test_point_cloud_that_is_not_npy_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "c.npy").write_text("not numpy")
    with pytest.raises(InputError, match=r"c\.npy"):
        read_point_cloud(tmp_path / "c.npy")


def test_lidar_demo_cloud_reads_whole() -> None:
    path = DEMO / "lidar_sweeps" / "clouds" / "sweep_001.npy"
    raw = np.load(path)
    assert read_point_cloud(path).tolist() == raw.tolist()


def test_envelope_of_16_bit_samples_is_the_min_and_max_of_each_bin(tmp_path: Path) -> None:
    samples = [0, 16384, -32768, 100, 200, -300, 32767, 5, 6]
    _write_wav(tmp_path / "a.wav", struct.pack(f"<{len(samples)}h", *samples), 2, rate=9)
    wf = read_waveform(tmp_path / "a.wav", bins=3)
    assert wf.duration == pytest.approx(1.0)
    assert wf.times.tolist() == pytest.approx([0.0, 3 / 9, 6 / 9])
    assert wf.high.tolist() == pytest.approx([0.5, 200 / 32768, 32767 / 32768])
    assert wf.low.tolist() == pytest.approx([-1.0, -300 / 32768, 5 / 32768])


def test_envelope_of_8_bit_stereo_averages_channels(tmp_path: Path) -> None:
    # Two frames: (255, 1) -> mean 0.0 after centring; (192, 192) -> 0.5.
    _write_wav(tmp_path / "s.wav", bytes([255, 1, 192, 192]), 1, channels=2)
    wf = read_waveform(tmp_path / "s.wav", bins=10)
    assert len(wf.times) == 2  # never more bins than samples
    assert wf.high.tolist() == pytest.approx([(127 - 127) / 2 / 128, 0.5])


def test_envelope_of_24_bit_samples_keeps_the_sign(tmp_path: Path) -> None:
    values = [-(1 << 23), (1 << 22), -1]
    frames = b"".join(v.to_bytes(3, "little", signed=True) for v in values)
    _write_wav(tmp_path / "t.wav", frames, 3)
    wf = read_waveform(tmp_path / "t.wav", bins=3)
    assert wf.low.tolist() == pytest.approx([-1.0, 0.5, -1 / (1 << 23)])


def test_speaker_demo_envelope_spans_the_clip() -> None:
    path = DEMO / "speaker_turns" / "audio" / "clip_01.wav"
    with wave.open(str(path), "rb") as w:
        n, rate = w.getnframes(), w.getframerate()
        raw = (np.frombuffer(w.readframes(n), dtype=np.uint8).astype(float) - 128) / 128
    wf = read_waveform(path, bins=500)
    assert wf.duration == pytest.approx(n / rate)
    assert len(wf.times) == 500
    assert wf.high.max() == pytest.approx(raw.max())
    assert wf.low.min() == pytest.approx(raw.min())
    assert (wf.low <= wf.high).all()


def test_a_file_that_is_not_wav_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "x.wav").write_bytes(b"RIFF0000nope")
    with pytest.raises(InputError, match=r"x\.wav: cannot read the audio \(Format not "
                       r"recognised\); expected audio that libsndfile decodes"):
        read_waveform(tmp_path / "x.wav")


def test_item_media_prefers_the_schemes_source_field(tmp_path: Path) -> None:
    item = Item("i", {}, media={"a_cloud": tmp_path / "a.npy", "b_cloud": tmp_path / "b.npy",
                                "sound": tmp_path / "s.wav"})
    scheme = Scheme("boxes", "spatial_annotation", None, config={"source_field": "b_cloud"})
    assert item_media(item, scheme, POINT_CLOUD_SUFFIXES) == tmp_path / "b.npy"
    assert item_media(item, None, POINT_CLOUD_SUFFIXES) == tmp_path / "a.npy"
    assert item_media(item, scheme, AUDIO_SUFFIXES) == tmp_path / "s.wav"
    assert item_media(Item("j", {}), scheme, AUDIO_SUFFIXES) is None


@pytest.mark.parametrize("name", ["c.pcd", "c.ply", "c.las", "000001.bin", "c.npy", "a.mp3",
                                  "a.flac"])
def test_a_fifo_in_place_of_a_media_file_is_refused_unopened(tmp_path: Path, name: str) -> None:
    """A media file swapped for a FIFO after the project was read would block the view
    (every reader opens it): the boundary refuses it first, by name."""
    import os

    os.mkfifo(tmp_path / name)
    reader = read_waveform if name.endswith((".mp3", ".flac")) else read_point_cloud
    with pytest.raises(InputError) as caught:
        reader(tmp_path / name)
    assert str(caught.value).startswith(str(tmp_path / name) + ": ")
    assert "fifo" in str(caught.value).lower()
