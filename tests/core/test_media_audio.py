"""Waveforms of the audio real studies hold (MP3, FLAC, OGG/Vorbis, 24-bit and float WAV),
written by libsndfile's own encoders through soundfile, against an independent reference:
the envelope computed by brute force (a Python loop over the bins) on the samples of an
independent decode (the standard ``wave`` module for PCM WAV, numpy on the raw bytes
for float WAV; soundfile's one-shot ``read`` for the lossy formats, whose decoder is the
only one here), and the clip's length against what was written."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest
import soundfile

from app.core.errors import InputError
from app.core.formats.media import AUDIO_SUFFIXES, item_media, read_waveform
from app.core.formats.media import audio as audio_module
from app.core.model import Item

RATE = 16_000


def _signal(seconds: float = 1.5, channels: int = 2) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    left = 0.6 * np.sin(2 * np.pi * 220 * t) * np.minimum(1, t * 2)
    right = 0.3 * np.sin(2 * np.pi * 330 * t)
    both = np.column_stack([left, right])
    return both[:, :channels]


def _brute(mono: np.ndarray, bins: int) -> tuple[list[float], list[float]]:
    n = len(mono)
    k = min(bins, n)
    lows, highs = [], []
    for b in range(k):
        lo, hi = (b * n) // k, ((b + 1) * n) // k
        lows.append(float(min(mono[lo:hi])))
        highs.append(float(max(mono[lo:hi])))
    return lows, highs


def _pcm_wav_reference(path: Path) -> np.ndarray:
    with wave.open(str(path), "rb") as w:
        channels, width = w.getnchannels(), w.getsampwidth()
        raw = np.frombuffer(w.readframes(w.getnframes()), dtype=np.uint8)
    assert width == 3
    values = raw.reshape(-1, 3).astype(np.int32)
    ints = values[:, 0] | (values[:, 1] << 8) | (values[:, 2] << 16)
    ints = np.where(ints >= 1 << 23, ints - (1 << 24), ints)
    return (ints / float(1 << 23)).reshape(-1, channels).mean(axis=1)


def _float_wav_reference(path: Path) -> np.ndarray:
    data = path.read_bytes()
    at = data.index(b"data") + 8
    return np.frombuffer(data[at:], dtype="<f4").astype(np.float64).reshape(-1, 2).mean(axis=1)


@pytest.mark.parametrize(("name", "fmt", "subtype", "reference"), [
    ("pcm24.wav", "WAV", "PCM_24", _pcm_wav_reference),
    ("float.wav", "WAV", "FLOAT", _float_wav_reference),
])
def test_wav_envelope_matches_an_independent_decode(tmp_path: Path, name: str, fmt: str,
                                                    subtype: str, reference: object) -> None:
    path = tmp_path / name
    soundfile.write(path, _signal(), RATE, format=fmt, subtype=subtype)
    mono = reference(path)  # type: ignore[operator]
    wf = read_waveform(path, bins=300)
    lows, highs = _brute(mono, 300)
    assert wf.duration == pytest.approx(1.5)
    np.testing.assert_allclose(wf.low, lows, atol=1e-7)
    np.testing.assert_allclose(wf.high, highs, atol=1e-7)


@pytest.mark.parametrize(("name", "fmt", "subtype"), [
    ("clip.flac", "FLAC", "PCM_16"),
    ("clip.ogg", "OGG", "VORBIS"),
    ("clip.mp3", "MP3", "MPEG_LAYER_III"),
])
def test_compressed_audio_envelope(tmp_path: Path, name: str, fmt: str, subtype: str) -> None:
    path = tmp_path / name
    signal = _signal()
    soundfile.write(path, signal, RATE, format=fmt, subtype=subtype)
    decoded, rate = soundfile.read(path, always_2d=True)
    mono = decoded.mean(axis=1)
    wf = read_waveform(path, bins=200)
    lows, highs = _brute(mono, 200)
    # libsndfile's MP3 decoder gives float32 samples whose last bit depends on where a
    # read starts: 1e-6 is far below a pixel of the drawn envelope
    np.testing.assert_allclose(wf.low, lows, atol=1e-6)
    np.testing.assert_allclose(wf.high, highs, atol=1e-6)
    assert wf.rate == rate == RATE
    # the sound that was written: its length (MP3 pads a frame at most) and loudness
    assert wf.duration == pytest.approx(1.5, abs=0.08)
    assert max(highs) == pytest.approx(signal.mean(axis=1).max(), abs=0.1)
    if fmt == "FLAC":  # lossless: the written samples at 16 bits
        np.testing.assert_allclose(mono, signal.mean(axis=1), atol=2 / 32768)


def test_blocks_fold_into_the_same_envelope(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoded in blocks of 1 000 frames (bins straddle blocks), the envelope is the one
    of the whole clip."""
    path = tmp_path / "f.flac"
    soundfile.write(path, _signal(), RATE, format="FLAC")
    monkeypatch.setattr(audio_module, "BLOCK_FRAMES", 1000)
    wf = read_waveform(path, bins=77)
    decoded, _ = soundfile.read(path, always_2d=True)
    lows, highs = _brute(decoded.mean(axis=1), 77)
    np.testing.assert_allclose(wf.low, lows, atol=1e-12)
    np.testing.assert_allclose(wf.high, highs, atol=1e-12)


def test_a_length_that_promises_more_is_decoded_again_on_the_true_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "f.flac"
    soundfile.write(path, _signal(seconds=0.5), RATE, format="FLAC")
    real = soundfile.SoundFile.frames
    monkeypatch.setattr(soundfile.SoundFile, "frames",
                        property(lambda self: real.fget(self) + 999))  # type: ignore[attr-defined]
    wf = read_waveform(path, bins=50)
    assert wf.duration == pytest.approx(0.5)
    assert np.isfinite(wf.low).all() and len(wf.low) == 50


def test_what_libsndfile_cannot_decode_is_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "talk.m4a").write_bytes(b"\0\0\0\x20ftypM4A " + b"\0" * 64)
    with pytest.raises(InputError, match=r"talk\.m4a: cannot read the audio \(.+\); expected "
                                         r"audio that libsndfile decodes \(WAV, FLAC"):
        read_waveform(tmp_path / "talk.m4a")
    assert item_media(Item("i", {}, media={"audio": tmp_path / "talk.m4a"}), None,
                      AUDIO_SUFFIXES) == tmp_path / "talk.m4a"


def test_an_empty_clip_has_no_bins(tmp_path: Path) -> None:
    soundfile.write(tmp_path / "e.wav", np.zeros((0, 1)), RATE)
    wf = read_waveform(tmp_path / "e.wav")
    assert (len(wf.times), wf.duration) == (0, 0.0)


def test_bytes_no_decoder_takes_are_not_called_a_missing_file(tmp_path: Path) -> None:
    """libsndfile answers "File does not exist or is not a regular file" for an .mp3 of
    garbage; the file exists and is regular (the boundary checked), so the sentence says
    what is true."""
    (tmp_path / "clip.mp3").write_bytes(b"not audio at all " * 64)
    with pytest.raises(InputError, match=r"clip\.mp3: cannot read the audio \(Format not "
                                         r"recognised\); expected audio"):
        read_waveform(tmp_path / "clip.mp3")
