"""A grounding, caption, episode and rollout project written by the real Potato 2.12.1
server (``kinds.md`` B §2.9-2.12).

    .venv/bin/python -m tests.potato_real.vlm_projects

Like ``track_projects.py``: ``potato start config.yaml -p PORT`` on 127.0.0.1, each
annotator logged in with Potato's simulator client (:class:`potato.simulator.SimulatedUser`),
every answer posted through ``/updateinstance`` as ``NAME:::_data`` holding the JSON the
widget's hidden ``.annotation-data-input`` holds (``annotation.js`` collects them so):

- ``refer`` (``grounding_eval``): ``{regions: {expression: [shape]}, absent: [...],
  verdicts: {}, region_type: "box"}`` as ``grounding-eval.js`` ``serialize()``;
- ``describe`` (``region_caption``): ``{captions: [{region, caption}]}``;
- ``episode`` (``episode_annotation``): ``{phases, reward, outcome, instructions}``;
- ``rollout`` (``rollout_evaluation``): ``{violations, clean, preference, counterfactual}``.

An ``image_annotation`` scheme (``regions``) is beside the two canvas schemes, as
Potato's config check demands; nobody draws in it. Each item's ``episode`` field names an
episode **folder** holding ``episode.json`` (Potato's ``episodes/simple.py`` reads a
folder so); Accord reads it, not refuses it (issue 38 part 4).

Then ``/admin/iaa`` is saved as ``expected/iaa.json`` and the server stopped. Items
``v00``-``v05``, alice, bob and carol (answers from ``tests/core/vlm_data.py``; an
annotator the generator left out of an item posts nothing for that scheme there). The
normal test suite never starts a server; it reads the committed files.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from tests.core.vlm_data import caption_rows, episode_blob, grounding_rows, rollout_rows
from tests.potato_real.annotation_projects import base_config
from tests.potato_real.server import OUT, prepare, save, serve, shown, split_out

NAME = "vlm"
PEOPLE = ("alice", "bob", "carol")
ALIAS = {"ann1": "alice", "ann2": "bob", "ann3": "carol"}
PORT = 8797
SEED = 3838
ITEMS = [f"v{k:02d}" for k in range(6)]
STREAMS = ("real", "gen_a", "gen_b")
SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "image_annotation", "name": "regions", "description": "Regions",
     "source_field": "image", "tools": ["bbox"], "labels": ["referent"]},
    {"annotation_type": "grounding_eval", "name": "refer",
     "description": "Where does each phrase point?", "expressions_field": "expressions",
     "region_type": "box"},
    {"annotation_type": "region_caption", "name": "describe",
     "description": "Describe each region"},
    {"annotation_type": "episode_annotation", "name": "episode",
     "description": "Phases, outcome and reward", "source_field": "episode",
     "layers": ["phases", "outcome", "reward"]},
    {"annotation_type": "rollout_evaluation", "name": "rollout",
     "description": "Where does each rollout break?",
     "streams": [{"stream_id": s, "name": s} for s in STREAMS],
     "layers": ["violations", "preference", "counterfactual"]},
]


def answers() -> dict[str, dict[str, dict[str, str]]]:
    """user → item → the posted ``NAME:::_data`` values."""
    out: dict[str, dict[str, dict[str, str]]] = {u: {i: {} for i in ITEMS} for u in PEOPLE}
    grounding = grounding_rows(SEED)
    captions = caption_rows(SEED)
    rollouts = rollout_rows(SEED, len(ITEMS))
    for k, item in enumerate(ITEMS):
        for who, blob in grounding.get(f"item{k}", {}).items():
            out[ALIAS[who]][item]["refer:::_data"] = json.dumps(
                {**blob, "verdicts": {}, "region_type": "box"})
        for who, entries in captions.get(f"item{k}", {}).items():
            out[ALIAS[who]][item]["describe:::_data"] = json.dumps({"captions": entries})
        for who, text in rollouts.get(f"r{k}", {}).items():
            out[ALIAS[who]][item]["rollout:::_data"] = text
        rng = random.Random(f"{SEED}/episode/{item}")
        for user in PEOPLE[: 2 + k % 2]:
            blob = episode_blob(rng)
            blob.setdefault("outcome", {"result": "", "cause": ""})
            blob["instructions"] = []
            out[user][item]["episode:::_data"] = json.dumps(blob)
    return out


def build(out: Path = OUT) -> Path:
    items = [{"id": item, "text": f"scene {item}", "image": f"images/{item}.png",
              "expressions": [{"id": f"e{k}", "text": f"object {k}"} for k in range(3)],
              "episode": f"episodes/{item}"} for item in ITEMS]
    work = prepare("vlm", "vlm_projects.py", SEED, base_config(SCHEMES), items)
    for item in ITEMS:
        folder = work / "episodes" / item
        folder.mkdir(parents=True)
        (folder / "episode.json").write_text(json.dumps(
            {"episode_id": item, "fps": 10, "instruction": "put the block in the bowl",
             "series": [{"name": "gripper", "values": [0.0, 0.5, 1.0, 0.5, 0.0]}]}) + "\n")
    posted = answers()
    report = serve(work, PORT, PEOPLE, len(ITEMS),
                   lambda sim, url, user, iid: posted[user][iid] or None, iaa_timeout=300)
    return save(work, out / NAME, PEOPLE, report, folders=("episodes",))


def main(argv: list[str]) -> int:
    out, _ = split_out(argv, OUT)
    print(f"{NAME}: {shown(build(out))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
