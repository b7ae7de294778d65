"""Track projects written by the real Potato 2.12.1 server (identity over sequences).

    .venv/bin/python -m tests.potato_real.track_projects

Like ``rating_projects.py``: ``potato start config.yaml -p PORT`` on 127.0.0.1, each
annotator logged in with Potato's simulator client (:class:`potato.simulator.SimulatedUser`),
every answer posted through ``/updateinstance`` in the shape the widget's hidden input
holds, then ``/admin/iaa`` saved as ``expected/iaa.json`` and the server stopped. The one
project goes to ``tests/data/potato_server/tracks/``:

- ``cars``: ``video_annotation`` in ``mode: tracking``: ``_saveData`` of
  ``video-annotation.js`` with ``segments: []`` and ``tracks`` as ``tracking-ui.js`` keeps
  them (``{track_N: {id, label, color, interpolation, keyframes: {frame: {frame, time,
  bbox, bboxNorm}}, startFrame, endFrame, attributes}}``);
- ``lidar``: ``spatial_annotation`` on a point-cloud sequence: the flat list of
  ``cuboid_3d`` objects, each with ``frame`` and ``track_id`` (keyframes only, as the
  point-cloud viewer saves them).

alice, bob and carol follow shared true objects with jitter; bob swaps two video tracks'
halves and carol two cuboid tracks' ids half way (identity errors); on one item carol
drew no tracks (she is paired too: all misses). Items ``q00``-``q05``.

The normal test suite never starts a server; it reads the committed files.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from tests.core.identity_data import spatial_truth, spatial_value, video_truth, video_value
from tests.potato_real.annotation_projects import base_config
from tests.potato_real.server import OUT, prepare, save, serve, shown, split_out

PEOPLE = ("alice", "bob", "carol")
PORT = 8795
SEED = 38
ITEMS = [f"q{k:02d}" for k in range(6)]
SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "video_annotation", "name": "cars", "description": "Track the cars",
     "source_field": "video", "mode": "tracking",
     "labels": [{"name": "car", "color": "#FF6B6B"}]},
    {"annotation_type": "spatial_annotation", "name": "lidar", "description": "3D tracks",
     "source_field": "point_cloud", "tools": ["cuboid_3d"],
     "labels": [{"name": "car", "color": "#45B7D1"}]},
]


def _video(user: str, item: str) -> dict[str, Any]:
    truth = video_truth(random.Random(f"{SEED}/truth/v/{item}"), 3 + int(item[1:]) % 3, 40)
    rng = random.Random(f"{SEED}/{user}/v/{item}")
    if user == "carol" and item == "q02":
        truth = []  # carol tracked nothing here
    value = video_value(rng, truth, 0.01, swap=(user == "bob"))
    for track in value["tracks"].values():  # tracking-ui.js's other keys
        frames = sorted(int(f) for f in track["keyframes"])
        track.update(color="#FF6B6B", interpolation="linear",
                     startFrame=frames[0] if frames else None,
                     endFrame=frames[-1] if frames else None, attributes={})
    return value


def _lidar(user: str, item: str) -> list[dict[str, Any]]:
    truth = spatial_truth(random.Random(f"{SEED}/truth/s/{item}"), 2 + int(item[1:]) % 4, 20)
    rng = random.Random(f"{SEED}/{user}/s/{item}")
    objects = spatial_value(rng, truth, 0.25, swap=(user == "carol"), tilt=0.02)
    for obj in objects:
        obj["color"] = "#45B7D1"
    return objects


def answer(user: str, item: str) -> dict[str, str]:
    return {"cars:::_data": json.dumps(_video(user, item)),
            "lidar:::_data": json.dumps(_lidar(user, item))}


def build(out: Path = OUT) -> Path:
    items = [{"id": item, "text": f"drive {item}", "video": f"video/{item}.mp4",
              "point_cloud": {"frames": [f"clouds/{item}/{f:03d}.pcd" for f in range(20)]}}
             for item in ITEMS]
    work = prepare("tracks", "track_projects.py", SEED, base_config(SCHEMES), items)
    report = serve(work, PORT, PEOPLE, len(ITEMS),
                   lambda sim, url, user, iid: answer(user, iid), iaa_timeout=300)
    return save(work, out / "tracks", PEOPLE, report)


def main(argv: list[str]) -> int:
    out, _ = split_out(argv, OUT)
    print(f"tracks: {shown(build(out))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
