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
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from tests.core.vlm_data import caption_rows, episode_blob, grounding_rows, rollout_rows
from tests.potato_real.annotation_projects import (
    ADMIN_KEY,
    HOST,
    OUT,
    POTATO,
    ROOT,
    _stop,
    _wait_up,
    base_config,
)

TARGET = OUT / "vlm"
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


def build() -> Path:
    import requests
    from potato.simulator import SimulatedUser, UserConfig

    work = Path(tempfile.mkdtemp(prefix="accord-potato-vlm-"))
    (work / "data").mkdir()
    config = base_config(SCHEMES)
    (work / "config.yaml").write_text(
        f"# Written by tests/potato_real/vlm_projects.py for the real Potato 2.12.1 "
        f"server (seed {SEED}).\n" + yaml.safe_dump(config, sort_keys=False))
    items = []
    for item in ITEMS:
        folder = work / "episodes" / item
        folder.mkdir(parents=True)
        (folder / "episode.json").write_text(json.dumps(
            {"episode_id": item, "fps": 10, "instruction": "put the block in the bowl",
             "series": [{"name": "gripper", "values": [0.0, 0.5, 1.0, 0.5, 0.0]}]}) + "\n")
        items.append({"id": item, "text": f"scene {item}", "image": f"images/{item}.png",
                      "expressions": [{"id": f"e{k}", "text": f"object {k}"}
                                      for k in range(3)],
                      "episode": f"episodes/{item}"})
    (work / "data" / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    posted = answers()
    url = f"http://{HOST}:{PORT}"
    log = work / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([str(POTATO), "start", "config.yaml", "-p", str(PORT)],
                                cwd=work, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        _wait_up(url, proc, log)
        for user in PEOPLE:
            sim = SimulatedUser(UserConfig(user_id=user), url)
            if not sim.login():
                raise RuntimeError(f"{user} could not log in: {sim.result.errors}")
            for _ in ITEMS:
                instance = sim.get_current_instance()
                if not instance or not instance.get("instance_id"):
                    raise RuntimeError(f"{user}: no instance ({sim.result.errors})")
                iid = str(instance["instance_id"])
                if posted[user][iid] and not sim.submit_annotation(
                        iid, posted[user][iid], 1.0):
                    raise RuntimeError(f"{user} {iid}: {sim.result.errors}")
                sim.navigate_next()
        response = requests.get(url + "/admin/iaa", headers={"X-API-Key": ADMIN_KEY},
                                timeout=300)
        response.raise_for_status()
        report = response.json()
    finally:
        _stop(proc)
    if TARGET.exists():
        shutil.rmtree(TARGET)
    TARGET.mkdir(parents=True)
    shutil.copy2(work / "config.yaml", TARGET / "config.yaml")
    shutil.copytree(work / "data", TARGET / "data")
    shutil.copytree(work / "episodes", TARGET / "episodes")
    for user in PEOPLE:
        (TARGET / "annotation_output" / user).mkdir(parents=True)
        shutil.copy2(work / "annotation_output" / user / "user_state.json",
                     TARGET / "annotation_output" / user / "user_state.json")
    (TARGET / "expected").mkdir()
    (TARGET / "expected" / "iaa.json").write_text(
        json.dumps(report, indent=1, sort_keys=True) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return TARGET


def main(argv: list[str]) -> int:
    print(f"vlm: {build().relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
