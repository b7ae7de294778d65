"""The media a view draws under the annotations: an item's point cloud and its audio.

Why here and not in the views: reading and reducing media is numpy work that must stay
quick on the GUI thread and be testable without Qt (architecture rules 1 and 3). Both
readers bound their output, so what a view draws never grows with the file:

- :func:`read_point_cloud` reads a ``.npy`` array of ``N × 3`` (or more columns; the
  first three are x, y, z in metres) and keeps at most ``max_points`` points, taking
  every k-th point (deterministic, spread over the whole sweep, no random state).
  Rows with a non-finite coordinate are dropped. The file is memory-mapped, so a huge
  sweep costs only the rows kept.
- :func:`read_waveform` reads a PCM WAV with the standard ``wave`` module (8-bit
  unsigned, 16- and 32-bit signed, 24-bit signed; several channels are averaged) and
  returns its **min/max envelope** over ``bins`` equal stretches of time, scaled to
  [-1, 1] by the sample format's full scale (not by the loudest sample, so a quiet clip
  looks quiet). A clip shorter than ``bins`` samples keeps one bin per sample.
- :func:`item_media` finds the file for a scheme: the scheme's ``source_field`` first
  (Potato's key for the media a scheme annotates), then any media file of the item with
  one of the wanted suffixes, in key order.

Errors are :class:`~app.core.errors.InputError` with the file and what was expected,
like every reader. Both readers go through the reader boundary first
(:func:`~app.core.formats.boundary.checked_file`): a media file swapped for a FIFO or a
device after the project was read is refused, not opened (a FIFO would block the view).
A WAV is read whole, so it is bounded like every file read whole; a point cloud is
memory-mapped, so its size is not.
"""

from __future__ import annotations

import wave
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.errors import InputError
from app.core.formats.boundary import UNBOUNDED, checked_file
from app.core.model import Item, Scheme

MAX_CLOUD_POINTS = 200_000
ENVELOPE_BINS = 4000
POINT_CLOUD_SUFFIXES = (".npy",)
AUDIO_SUFFIXES = (".wav", ".wave")


@dataclass(frozen=True, slots=True)
class Waveform:
    """A min/max envelope: bin ``k`` spans ``[times[k], times[k] + bin_seconds)``."""

    times: np.ndarray
    low: np.ndarray
    high: np.ndarray
    rate: int
    duration: float
    """Seconds of audio in the file."""

    @property
    def bin_seconds(self) -> float:
        return float(self.times[1] - self.times[0]) if len(self.times) > 1 else self.duration


def item_media(item: Item, scheme: Scheme | None, suffixes: Iterable[str]) -> Path | None:
    """The media file of ``item`` that ``scheme`` annotates, with one of ``suffixes``."""
    wanted = tuple(s.lower() for s in suffixes)
    source = scheme.config.get("source_field") if scheme is not None else None
    if isinstance(source, str):
        path = item.media.get(source)
        if path is not None and path.suffix.lower() in wanted:
            return path
    for key in sorted(item.media):
        path = item.media[key]
        if path.suffix.lower() in wanted:
            return path
    return None


def read_point_cloud(path: Path, max_points: int = MAX_CLOUD_POINTS) -> np.ndarray:
    """At most ``max_points`` finite points of the cloud, ``(n, 3)`` float32."""
    checked_file(path, limit=UNBOUNDED)
    try:
        raw = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the point cloud ({exc}); expected a .npy array of "
                         "N × 3 numbers (x, y, z in metres)", file=path) from exc
    if raw.ndim != 2 or raw.shape[1] < 3 or not np.issubdtype(raw.dtype, np.number):
        raise InputError(f"point cloud has shape {raw.shape} and type {raw.dtype}; expected "
                         "N × 3 numbers (x, y, z in metres)", file=path)
    step = max(1, -(-raw.shape[0] // max(1, max_points)))
    points = np.asarray(raw[::step, :3], dtype=np.float32)
    keep = np.isfinite(points).all(axis=1)
    out: np.ndarray = points[keep] if not keep.all() else points
    return out


def read_waveform(path: Path, bins: int = ENVELOPE_BINS) -> Waveform:
    """The min/max envelope of a PCM WAV file, scaled to [-1, 1]."""
    checked_file(path)
    try:
        with wave.open(str(path), "rb") as w:
            channels, width, rate = w.getnchannels(), w.getsampwidth(), w.getframerate()
            frames = w.readframes(w.getnframes())
    except (OSError, EOFError, wave.Error) as exc:
        raise InputError(f"cannot read the audio ({exc}); expected a PCM WAV file",
                         file=path) from exc
    if rate <= 0:
        raise InputError(f"WAV sample rate is {rate}; expected a positive rate", file=path)
    samples = _decode(frames, width, path)
    n = len(samples) // channels
    mono = samples[: n * channels].reshape(n, channels).mean(axis=1)
    return envelope(mono, rate, bins)


def envelope(mono: np.ndarray, rate: int, bins: int = ENVELOPE_BINS) -> Waveform:
    """The min/max envelope of ``mono`` samples (already in [-1, 1]) at ``rate`` Hz."""
    n = len(mono)
    duration = n / rate
    if n == 0:
        empty = np.zeros(0)
        return Waveform(times=empty, low=empty, high=empty, rate=rate, duration=0.0)
    k = max(1, min(bins, n))
    edges = np.linspace(0, n, k + 1).astype(np.int64)
    starts = edges[:-1]
    low = np.minimum.reduceat(mono, starts)
    high = np.maximum.reduceat(mono, starts)
    return Waveform(times=starts / rate, low=low, high=high, rate=rate, duration=duration)


def _decode(frames: bytes, width: int, path: Path) -> np.ndarray:
    """PCM bytes to float samples in [-1, 1] by the format's full scale."""
    if width == 1:
        return (np.frombuffer(frames, dtype=np.uint8).astype(np.float64) - 128.0) / 128.0
    if width == 2:
        return np.frombuffer(frames, dtype="<i2").astype(np.float64) / 32768.0
    if width == 3:
        raw = np.frombuffer(frames, dtype=np.uint8)
        raw = raw[: len(raw) // 3 * 3].reshape(-1, 3).astype(np.int32)
        value = raw[:, 0] | (raw[:, 1] << 8) | (raw[:, 2] << 16)
        value = np.where(value >= 1 << 23, value - (1 << 24), value)
        return value.astype(np.float64) / float(1 << 23)
    if width == 4:
        return np.frombuffer(frames, dtype="<i4").astype(np.float64) / float(1 << 31)
    raise InputError(f"WAV samples are {width} bytes wide; expected 1, 2, 3 or 4", file=path)
