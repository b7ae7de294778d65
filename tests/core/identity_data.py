"""Random tracks in the shapes Potato 2.12.1's widgets save, for the identity tests and
the benchmark: video tracks (tracking-ui.js) and point-cloud sequences (pc-viewer's
objects with ``frame`` and ``track_id``). Annotators follow shared true objects with
jitter, miss keyframes, drop tracks and swap ids where the generator says so."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

from app.core.formats.potato.objects import parse_timed
from app.core.formats.potato.place import Place
from app.core.formats.potato.spatial import parse_spatial
from app.core.model import Scheme
from app.core.objects import ObjectSet

VIDEO = Scheme("tracks", "video_annotation", None)
SPATIAL = Scheme("objects", "spatial_annotation", None)


def _place(item: str, user: str) -> Place:
    return Place(Path("user_state.json"), item, "s", user)


def video_value(rng: random.Random, truth: list[dict[str, Any]], jitter: float,
                swap: bool) -> dict[str, Any]:
    """One annotator's video answer following ``truth`` (each: start, end, x0, y0, vx,
    vy, w, h), every few frames a keyframe."""
    tracks: dict[str, Any] = {}
    order = list(range(len(truth)))
    for n, k in enumerate(order):
        obj = truth[k]
        if rng.random() < 0.1:
            continue
        keyframes: dict[str, Any] = {}
        frame = obj["start"] + rng.randint(0, 2)
        while frame <= obj["end"]:
            x = obj["x0"] + obj["vx"] * frame + rng.gauss(0, jitter)
            y = obj["y0"] + obj["vy"] * frame + rng.gauss(0, jitter)
            box = {"x": x, "y": y, "width": obj["w"] * (1 + rng.gauss(0, jitter)),
                   "height": obj["h"] * (1 + rng.gauss(0, jitter))}
            keyframes[str(frame)] = {"frame": frame, "time": frame / 30,
                                     "bbox": {k2: v * 640 for k2, v in box.items()},
                                     "bboxNorm": box}
            frame += rng.randint(2, 6)
        tid = f"track_{n}"
        if swap and n == 1 and rng.random() < 0.7:
            tid = "track_0"  # an id used twice: still two tracks
        tracks[f"t{n}"] = {"id": tid, "label": "car", "keyframes": keyframes}
    if swap and len(tracks) >= 2:  # swap two tracks' halves (an identity error)
        a, b = list(tracks)[:2]
        ka, kb = tracks[a]["keyframes"], tracks[b]["keyframes"]
        half_a = {f: v for f, v in ka.items() if int(f) > 15}
        half_b = {f: v for f, v in kb.items() if int(f) > 15}
        tracks[a]["keyframes"] = {**{f: v for f, v in ka.items() if int(f) <= 15}, **half_b}
        tracks[b]["keyframes"] = {**{f: v for f, v in kb.items() if int(f) <= 15}, **half_a}
    return {"video_metadata": {"fps": 30}, "segments": [], "frame_annotations": {},
            "keyframes": [], "tracking": {}, "tracks": tracks}


def video_truth(rng: random.Random, n: int, frames: int) -> list[dict[str, Any]]:
    out = []
    for _ in range(n):
        start = rng.randint(0, frames // 2)
        out.append({"start": start, "end": rng.randint(start + 3, frames),
                    "x0": rng.uniform(0, 0.7), "y0": rng.uniform(0, 0.7),
                    "vx": rng.uniform(-0.01, 0.01), "vy": rng.uniform(-0.01, 0.01),
                    "w": rng.uniform(0.08, 0.25), "h": rng.uniform(0.08, 0.25)})
    return out


def quat(yaw: float, pitch: float = 0.0, roll: float = 0.0) -> list[float]:
    """(x, y, z, w) of yaw about z, then pitch about y, then roll about x."""
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    return [sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy]


def spatial_truth(rng: random.Random, n: int, frames: int) -> list[dict[str, Any]]:
    out = []
    for _ in range(n):
        start = rng.randint(0, frames // 2)
        out.append({"start": start, "end": rng.randint(start + 2, frames - 1),
                    "x0": rng.uniform(-30, 30), "y0": rng.uniform(-30, 30),
                    "vx": rng.uniform(-0.4, 0.4), "vy": rng.uniform(-0.4, 0.4),
                    "yaw0": rng.uniform(-3, 3), "dyaw": rng.uniform(-0.05, 0.05),
                    "size": [rng.uniform(3.5, 5), rng.uniform(1.6, 2.1), rng.uniform(1.4, 1.9)]})
    return out


def spatial_value(rng: random.Random, truth: list[dict[str, Any]], jitter: float,
                  swap: bool, tilt: float = 0.0, step: tuple[int, int] = (2, 6)
                  ) -> list[dict[str, Any]]:
    """One annotator's sequence: keyframes of each true object, ids maybe swapped."""
    objects: list[dict[str, Any]] = []
    for n, obj in enumerate(truth):
        if rng.random() < 0.1:
            continue
        frame = obj["start"] + rng.randint(0, 1)
        tid = f"{n + 1}"
        while frame <= obj["end"]:
            if swap and frame > (obj["start"] + obj["end"]) // 2 and n < 2:
                tid = f"{2 - n}"  # the first two objects swap ids half way
            yaw = obj["yaw0"] + obj["dyaw"] * frame + rng.gauss(0, jitter / 5)
            objects.append({
                "type": "cuboid_3d", "label": "car", "frame": frame, "track_id": tid,
                "coordinates": {
                    "center": [obj["x0"] + obj["vx"] * frame + rng.gauss(0, jitter),
                               obj["y0"] + obj["vy"] * frame + rng.gauss(0, jitter),
                               0.9 + rng.gauss(0, jitter / 4)],
                    "size": [s * (1 + rng.gauss(0, jitter / 10)) for s in obj["size"]],
                    "rotation": quat(yaw, rng.gauss(0, tilt), rng.gauss(0, tilt))}})
            frame += rng.randint(*step)
    rng.shuffle(objects)  # stored order is not frame order
    return objects


def read_video(value: Any, item: str, user: str) -> ObjectSet:
    return parse_timed(value, VIDEO, _place(item, user))


def read_spatial(value: Any, item: str, user: str) -> ObjectSet:
    return parse_spatial(value, SPATIAL, _place(item, user))
