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

import random
import sys
from pathlib import Path
from typing import Any

from tests.potato_real.annotation_projects import base_config
from tests.potato_real.server import OUT, prepare, save, serve, shown, split_out

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


def build(out: Path = OUT) -> Path:
    items = [{"id": f"q{k:02d}", "text": f"Review number {k}."} for k in range(N_ITEMS)]
    work = prepare("machines", "machine_projects.py", SEED, config(), items)
    report = serve(work, PORT, USERS, len(items),
                   lambda sim, url, user, iid: answer(user, iid))
    return save(work, out / NAME, USERS, report)


def main(argv: list[str]) -> int:
    out, _ = split_out(argv, OUT)
    print(f"{NAME}: {shown(build(out))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
