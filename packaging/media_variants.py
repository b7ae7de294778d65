"""Copies of two exported demos with their media in the other formats Accord reads, for
packaging/smoke (run by the checkout's venv, which has the formats' writers).

``python packaging/media_variants.py DEMOS`` writes, beside the exported demos:

- ``lidar_{pcd,ply,bin}``: lidar_sweeps with every ``.npy`` cloud rewritten as a
  binary_compressed PCD (pypcd4: LZF inside), a binary PLY (plyfile) and a KITTI float32
  × 4 ``.bin`` (numpy). The points are the same float32 numbers, so the frozen cuboids
  view must draw them exactly as it draws the ``.npy`` demo.
- ``speaker_flac``: speaker_turns with its 8-bit WAV clips as 8-bit FLAC (lossless: the
  same samples, so the same envelope and the same picture as the WAV demo).
- ``speaker_mp3``: the clips as MP3 (lossy: a waveform, not the WAV's), and
  ``speaker_badmp3``: the same names holding bytes no decoder takes, so the frozen tiers
  view must draw something else on the real MP3 than a sentence.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import soundfile
from plyfile import PlyData, PlyElement
from pypcd4.pypcd4 import Encoding, PointCloud


def _retarget(project: Path, key: str, convert: dict[str, str]) -> None:
    """Point every record's ``key`` at its converted file (suffix ``convert[old]``)."""
    for data in (project / "data").glob("*.jsonl"):
        rows = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
        for row in rows:
            old = Path(row[key])
            row[key] = str(old.with_suffix(convert[old.suffix]))
        data.write_text("".join(json.dumps(r) + "\n" for r in rows))


def clouds(demos: Path) -> None:
    for fmt in ("pcd", "ply", "bin"):
        out = demos / f"lidar_{fmt}"
        shutil.copytree(demos / "lidar_sweeps", out)
        for npy in sorted((out / "clouds").glob("*.npy")):
            points = np.load(npy).astype(np.float32)[:, :3]
            target = npy.with_suffix(f".{fmt}")
            if fmt == "pcd":
                PointCloud.from_xyz_points(points).save(target,
                                                         encoding=Encoding.BINARY_COMPRESSED)
            elif fmt == "ply":
                rows = np.rec.fromarrays(points.T, names="x,y,z")
                PlyData([PlyElement.describe(rows, "vertex")]).write(str(target))
            else:
                np.column_stack([points, np.zeros(len(points), np.float32)]).astype(
                    "<f4").tofile(target)
            npy.unlink()
        _retarget(out, "point_cloud", {".npy": f".{fmt}"})


def audio(demos: Path) -> None:
    for name, fmt in (("flac", "FLAC"), ("mp3", "MP3"), ("badmp3", None)):
        out = demos / f"speaker_{name}"
        shutil.copytree(demos / "speaker_turns", out)
        suffix = ".mp3" if name == "badmp3" else f".{name}"
        for wav in sorted((out / "audio").glob("*.wav")):
            target = wav.with_suffix(suffix)
            if fmt is None:
                target.write_bytes(b"not audio at all " * 64)
            else:
                samples, rate = soundfile.read(wav)
                subtype = "PCM_S8" if fmt == "FLAC" else None
                soundfile.write(target, samples, rate, format=fmt, subtype=subtype)
            wav.unlink()
        _retarget(out, "audio", {".wav": suffix})


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    clouds(folder)
    audio(folder)
