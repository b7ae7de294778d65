"""An item's audio as the tiers view draws it: a min/max envelope of ``bins`` stretches.

Why soundfile (libsndfile): real studies hold MP3, FLAC, OGG (Vorbis, Opus), 24-bit and
float WAV, AIFF; libsndfile decodes all of them, and the soundfile wheel bundles it
(with MP3), so no system package is needed and the frozen app carries it. What it
cannot decode (AAC in ``.m4a``, a damaged file) gets one sentence naming the file and
what was expected.

The envelope is ``bins`` equal stretches of the clip's samples (a clip shorter than
``bins`` samples keeps one bin per sample), each with its lowest and highest sample;
several channels are averaged first. Samples are libsndfile's floats: integer PCM
scaled by its full scale (16-bit by 32 768, 8-bit centred on 128), float files as
written, so a quiet clip looks quiet (not scaled by the loudest sample).

Bounded: the file is decoded in blocks of :data:`BLOCK_FRAMES` and only the envelope is
kept, so a long recording costs ``bins`` numbers, not its samples. The bins are laid on
the frame count libsndfile declares; when decoding yields fewer (a truncated file, an
MP3 whose header promises more), the clip is decoded once more on the true count, so
the bins always span the audio that is there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.core.errors import InputError
from app.core.formats.reading.media_file import media_file

ENVELOPE_BINS = 4000
BLOCK_FRAMES = 1 << 18
AUDIO_SUFFIXES = (".wav", ".wave", ".mp3", ".flac", ".ogg", ".oga", ".opus", ".aif",
                  ".aiff", ".m4a", ".aac")
"""What the tiers view looks for among an item's media files (``.m4a``/``.aac`` to say
that they cannot be read, rather than "no audio")."""
_EXPECTED = "expected audio that libsndfile decodes (WAV, FLAC, OGG/Vorbis/Opus, MP3, AIFF)"


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


def read_waveform(path: Path, bins: int = ENVELOPE_BINS) -> Waveform:
    """The min/max envelope of the audio file at ``path``, samples in their full scale."""
    import soundfile  # libsndfile is loaded when audio is first drawn

    media_file(path)  # a FIFO or a device is refused; decoded in blocks
    try:
        with soundfile.SoundFile(str(path)) as f:
            rate, declared = int(f.samplerate), int(f.frames)
            if rate <= 0:
                raise InputError(f"the sample rate is {rate}; expected a positive rate",
                                 file=path)
            low, high, starts, n = _pass(f, declared, bins)
        if n != declared:
            with soundfile.SoundFile(str(path)) as f:
                low, high, starts, n = _pass(f, n, bins)
    except InputError:
        raise
    except (soundfile.LibsndfileError, RuntimeError, OSError, ValueError, EOFError) as exc:
        raise InputError(f"cannot read the audio ({_short(exc)}); {_EXPECTED}",
                         file=path) from exc
    if n == 0:
        empty = np.zeros(0)
        return Waveform(times=empty, low=empty, high=empty, rate=rate, duration=0.0)
    return Waveform(times=starts / rate, low=low, high=high, rate=rate, duration=n / rate)


def _pass(f: Any, n: int, bins: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """One decoding of ``f`` into the envelope of its first ``n`` frames; returns the
    frames the file really held (all of them, even past ``n``)."""
    k = max(1, min(bins, n))
    starts = np.linspace(0, n, k + 1).astype(np.int64)[:-1]
    low = np.full(k, np.inf)
    high = np.full(k, -np.inf)
    seen = 0
    while len(block := f.read(BLOCK_FRAMES, dtype="float64", always_2d=True)):
        mono = block.mean(axis=1) if block.shape[1] > 1 else block[:, 0]
        end = min(seen + len(mono), n)
        if end > seen:
            _fold(mono[: end - seen], seen, starts, low, high)
        seen += len(mono)
    return low, high, starts, seen  # seen != n: the caller decodes again on the true count


def _fold(part: np.ndarray, offset: int, starts: np.ndarray, low: np.ndarray,
          high: np.ndarray) -> None:
    """Merge the min/max of samples ``offset .. offset + len(part)`` into their bins."""
    first = int(np.searchsorted(starts, offset, side="right")) - 1
    last = int(np.searchsorted(starts, offset + len(part), side="left"))
    cuts = np.concatenate(([offset], starts[first + 1:last])) - offset
    ids = np.arange(first, first + len(cuts))
    np.minimum.at(low, ids, np.minimum.reduceat(part, cuts))
    np.maximum.at(high, ids, np.maximum.reduceat(part, cuts))


def envelope(mono: np.ndarray, rate: int, bins: int = ENVELOPE_BINS) -> Waveform:
    """The min/max envelope of ``mono`` samples (already in [-1, 1]) at ``rate`` Hz."""
    n = len(mono)
    if n == 0:
        empty = np.zeros(0)
        return Waveform(times=empty, low=empty, high=empty, rate=rate, duration=0.0)
    k = max(1, min(bins, n))
    starts = np.linspace(0, n, k + 1).astype(np.int64)[:-1]
    low = np.minimum.reduceat(mono, starts)
    high = np.maximum.reduceat(mono, starts)
    return Waveform(times=starts / rate, low=low, high=high, rate=rate, duration=n / rate)


def _short(exc: BaseException) -> str:
    """The library's reason without the path it repeats (the sentence names the file)."""
    reason = getattr(exc, "error_string", None)  # LibsndfileError: "Format not recognised."
    text = " ".join(str(reason or exc).split()).rstrip(".") or type(exc).__name__
    if "not a regular file" in text:  # libsndfile's words when no decoder takes the bytes
        return "Format not recognised"  # (the boundary has checked it is a regular file)
    return text if len(text) <= 160 else text[:157] + "..."
