"""A project with declared machine annotators, written by the real Potato 2.12.1 server.

    .venv/bin/python -m tests.potato_real.machine_projects

Potato 2.12.1 records a machine rater when its config declares one
(``machine_annotators: {enabled: true, annotators: [{id, kind, ...}]}``,
``potato/annotator_origin.py``): the user-state manager stamps the participant whose
user id is declared with an ``origin`` when it creates the state, and writes it to that
participant's ``user_state.json``. Nothing here writes an origin: this script declares
the machines in the config, starts ``potato start config.yaml`` on 127.0.0.1:8785, logs
three people and three machines in with Potato's own simulator client
(:class:`potato.simulator.SimulatedUser`), posts every answer through ``/updateinstance``
in the shape Potato's browser widgets send (as ``annotation_projects.py`` does), asks
``/admin/iaa`` for Potato's report (headline, ``partitions``, ``annotators``) and copies
what the server wrote into ``tests/data/potato_server/machines/``.

The machines are ``llm_judge`` (kind ``llm``), ``ner_tool`` (kind ``tool``, with a
version and a database version) and ``rule_bot`` (kind ``rules``: a kind Potato does not
know, which it keeps and still reads as a machine). The machines copy one shared
"model" answer with little noise, so machine-machine agreement is high and differs
visibly from the people's; the run is seeded.
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

NAME = "machines"
PORT = 8785
SEED = 77
PEOPLE = ("alice", "bob", "carol")
MACHINES: tuple[dict[str, Any], ...] = (
    {"id": "llm_judge", "kind": "llm", "model": "gpt-4o-mini", "endpoint_type": "openai",
     "version": "2024-07-18"},
    {"id": "ner_tool", "kind": "tool", "tool": "spacy", "version": "3.7.2",
     "database_version": "en_core_web_sm-3.7.1"},
    {"id": "rule_bot", "kind": "rules", "description": "keyword rules"},
)
USERS = (*PEOPLE, *(m["id"] for m in MACHINES))
N_ITEMS = 16

SENTIMENT = ["positive", "negative", "neutral"]
TOPIC = ["sports", "politics", "tech", "food"]
ASPECTS = ["price", "service", "quality", "speed"]
SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "radio", "name": "sentiment", "description": "Sentiment",
     "labels": SENTIMENT},
    {"annotation_type": "select", "name": "topic", "description": "Topic", "labels": TOPIC},
    {"annotation_type": "multiselect", "name": "aspects", "description": "Aspects",
     "labels": ASPECTS},
    {"annotation_type": "likert", "name": "quality", "description": "Quality", "size": 5,
     "min_label": "bad", "max_label": "good"},
]


def _pick(truth: str, options: list[str], rng: random.Random, keep: float) -> str:
    return truth if rng.random() < keep else rng.choice(options)


def answer(user: str, item: str) -> dict[str, str]:
    """The user's answer on ``item`` in the browser's form (as annotation_projects.py)."""
    truth = random.Random(f"{SEED}/truth/{item}")
    model = random.Random(f"{SEED}/model/{item}")  # what every machine tends to say
    rng = random.Random(f"{SEED}/{user}/{item}")
    machine = user not in PEOPLE
    sentiment = truth.choice(SENTIMENT)
    topic = truth.choice(TOPIC)
    aspects = {a for a in ASPECTS if truth.random() < 0.5}
    quality = truth.randint(1, 5)
    if machine:  # the machines share one model's view, which differs from the truth
        sentiment = _pick(sentiment, SENTIMENT, model, 0.6)
        topic = _pick(topic, TOPIC, model, 0.6)
        aspects ^= {a for a in ASPECTS if model.random() < 0.25}
        quality = min(5, max(1, quality + model.choice([-2, -1, 0, 1])))
    keep = 0.9 if machine else 0.7
    sentiment = _pick(sentiment, SENTIMENT, rng, keep)
    topic = _pick(topic, TOPIC, rng, keep)
    aspects ^= {a for a in ASPECTS if rng.random() < (0.05 if machine else 0.2)}
    quality = min(5, max(1, quality + rng.choice([0, 0, 0, 1] if machine else [-1, 0, 0, 1])))
    payload = {
        f"sentiment:::{sentiment}": sentiment,  # radio: the option as key and value
        "topic:::select-one": topic,  # select: the dropdown's label, its value the option
        f"quality:::{quality}": str(quality),  # likert: the point as key and value
    }
    for a in sorted(aspects):
        payload[f"aspects:::{a}"] = a
    return payload


def config() -> dict[str, Any]:
    out = base_config(SCHEMES)
    out["max_annotations_per_item"] = len(USERS)
    out["num_annotators_per_item"] = len(USERS)
    out["machine_annotators"] = {"enabled": True, "annotators": [dict(m) for m in MACHINES]}
    return out


def build() -> Path:
    import requests
    from potato.simulator import SimulatedUser, UserConfig

    work = Path(tempfile.mkdtemp(prefix="accord-potato-machines-"))
    (work / "data").mkdir()
    (work / "config.yaml").write_text(
        "# Written by tests/potato_real/machine_projects.py for the real Potato 2.12.1 "
        f"server (seed {SEED}).\n" + yaml.safe_dump(config(), sort_keys=False))
    items = [{"id": f"q{k:02d}", "text": f"Review number {k}."} for k in range(N_ITEMS)]
    (work / "data" / "items.jsonl").write_text(
        "".join(json.dumps(item) + "\n" for item in items))
    url = f"http://{HOST}:{PORT}"
    log = work / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([str(POTATO), "start", "config.yaml", "-p", str(PORT)],
                                cwd=work, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        _wait_up(url, proc, log)
        for user in USERS:
            sim = SimulatedUser(UserConfig(user_id=user), url)
            if not sim.login():
                raise RuntimeError(f"{user} could not log in: {sim.result.errors}")
            for _ in items:
                instance = sim.get_current_instance()
                if not instance or not instance.get("instance_id"):
                    raise RuntimeError(f"{user}: no instance ({sim.result.errors})")
                iid = str(instance["instance_id"])
                if not sim.submit_annotation(iid, answer(user, iid), 1.0):
                    raise RuntimeError(f"{user} {iid}: {sim.result.errors}")
                sim.navigate_next()
        response = requests.get(url + "/admin/iaa", headers={"X-API-Key": ADMIN_KEY},
                                timeout=120)
        response.raise_for_status()
        report = response.json()
    finally:
        _stop(proc)
    target = OUT / NAME
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copy2(work / "config.yaml", target / "config.yaml")
    shutil.copytree(work / "data", target / "data")
    for user in USERS:
        source = work / "annotation_output" / user / "user_state.json"
        (target / "annotation_output" / user).mkdir(parents=True)
        shutil.copy2(source, target / "annotation_output" / user / "user_state.json")
    (target / "expected").mkdir()
    (target / "expected" / "iaa.json").write_text(
        json.dumps(report, indent=1, sort_keys=True) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return target


if __name__ == "__main__":
    print(f"{NAME}: {build().relative_to(ROOT)}")
    sys.exit(0)
