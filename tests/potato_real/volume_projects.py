"""A volume project written by the real Potato 2.12.1 server (Dice over label masks).

    .venv/bin/python -m tests.potato_real.volume_projects

Like ``track_projects.py``: ``potato start config.yaml -p PORT`` on 127.0.0.1, each
annotator logged in with Potato's simulator client (:class:`potato.simulator.SimulatedUser`),
every answer posted through ``/updateinstance`` in the shape volume-annotation.js's hidden
input holds (``serialize()``: ``{volume, shape: [ni, nj, nk], labels, masks: {label:
{k: counts}}, shapes}``, the counts written by Potato's own ``volume_masks.rle_encode``),
then ``/admin/iaa`` saved as ``expected/iaa.json`` and the server stopped. The project goes
to ``tests/data/potato_server/volumes/``:

- ``organs``: ``volume_annotation`` with labels Liver, Lesion and Cyst on 32 × 24 × 12
  volumes, items ``v00``-``v04``. alice, bob and carol paint shared true ellipsoids with
  jitter; nobody paints Cyst on ``v00``-``v02`` (pairs where both painted nothing),
  carol paints no Lesion on ``v01``; on ``v04`` carol's answer is on another volume shape
  (16 slices: a re-exported file), so Potato and Accord skip that item.

The normal test suite never starts a server; it reads the committed files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tests.core.volume_data import draw, stored, truth
from tests.potato_real.annotation_projects import base_config
from tests.potato_real.server import OUT, prepare, save, serve, shown, split_out

NAME = "volumes"
PEOPLE = ("alice", "bob", "carol")
PORT = 8797
SEED = 382
SHAPE = (32, 24, 12)
ITEMS = [f"v{k:02d}" for k in range(5)]
LABELS = ["Liver", "Lesion", "Cyst"]
SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "volume_annotation", "name": "organs",
     "description": "Paint the liver, lesions and cysts", "source_field": "volume",
     "labels": [{"name": "Liver", "color": "#e6553a"}, {"name": "Lesion", "color": "#3a8ee6"},
                {"name": "Cyst", "color": "#2bb673"}]},
]


def volume_answer(user: str, item: str) -> dict[str, Any]:
    """One annotator's saved answer on one item."""
    k = int(item[1:])
    shape = (SHAPE[0], SHAPE[1], 16) if (user == "carol" and item == "v04") else SHAPE
    base = np.random.default_rng([SEED, k])
    objects = {"Liver": truth(base, SHAPE, 1), "Lesion": truth(base, SHAPE, 2),
               "Cyst": truth(base, SHAPE, 1)}
    rng = np.random.default_rng([SEED, k, PEOPLE.index(user)])
    volumes = {}
    for label, objs in objects.items():
        if label == "Cyst" and k < 3:
            continue
        if label == "Lesion" and user == "carol" and item == "v01":
            continue
        volumes[label] = draw(rng, shape, objs, 0.4 + 0.2 * PEOPLE.index(user))
    answer = stored(volumes, shape, LABELS)
    answer["volume"] = f"volumes/{item}.nii.gz"
    return answer


def answer(user: str, item: str) -> dict[str, str]:
    return {"organs:::_data": json.dumps(volume_answer(user, item))}


def build(out: Path = OUT) -> Path:
    config = base_config(SCHEMES)
    config["max_annotations_per_item"] = config["num_annotators_per_item"] = len(PEOPLE)
    items = [{"id": item, "text": f"scan {item}", "volume": f"volumes/{item}.nii.gz"}
             for item in ITEMS]
    work = prepare("volumes", "volume_projects.py", SEED, config, items)
    report = serve(work, PORT, PEOPLE, len(ITEMS),
                   lambda sim, url, user, iid: answer(user, iid), iaa_timeout=300)
    return save(work, out / NAME, PEOPLE, report)


def main(argv: list[str]) -> int:
    out, _ = split_out(argv, OUT)
    print(f"{NAME}: {shown(build(out))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
