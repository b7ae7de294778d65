"""Rating, ranking, matrix and packed-set projects written by the real Potato 2.12.1 server.

    .venv/bin/python -m tests.potato_real.rating_projects [NAME ...]

Like ``annotation_projects.py``: ``potato start config.yaml -p PORT`` on 127.0.0.1, each
annotator logged in with Potato's simulator client (:class:`potato.simulator.SimulatedUser`),
every answer posted through ``/updateinstance`` in the shape the widget's own HTML/JS sends
(read from ``potato/server_utils/schemas/<type>.py`` in the installed package: the
``label_name`` of each input and what its script writes into the hidden input), then
``/admin/iaa`` saved as ``expected/iaa.json`` and the server stopped. Projects go to
``tests/data/potato_server/ratings/<NAME>/``:

- ``numbers``: slider (with stored 0s), number, vas (a rotating panel: each item is
  answered by two of the three people, so ICC(2,k) has no complete item), confidence
  with ``scale_type: slider``, pairwise ``mode: scale``, likert, ranking, multirate,
  constant_sum, soft_label, semantic_differential, range_slider,
  hierarchical_multiselect and card_sort; alice, bob, carol; 12 items.
- ``bws``: a ``bws`` scheme over Potato's own tuples (``bws_config``: Potato generates
  the items from the pool).
- ``machines``: slider, likert, ranking and multirate with three people and two declared
  ``machine_annotators`` (Potato stamps their ``origin``; the headline is human-only).
- ``modes``: the widgets whose mode decides Potato's measure: ``confidence`` in likert
  mode (ordinal), ``pairwise`` binary with a tie (nominal) and ``pairwise``
  ``multi_dimension`` (a matrix, nominal rows); alice, bob, carol; 14 items.

The normal test suite never starts a server; it reads the committed files.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.potato_real.annotation_projects import base_config
from tests.potato_real.server import OUT, prepare, save, serve, shown, split_out

TARGET = OUT / "ratings"
PEOPLE = ("alice", "bob", "carol")
MACHINES: tuple[dict[str, Any], ...] = (
    {"id": "llm_judge", "kind": "llm", "model": "gpt-4o-mini", "endpoint_type": "openai"},
    {"id": "rule_bot", "kind": "rules", "description": "keyword rules"},
)
SKILL = {"alice": 0.9, "bob": 0.75, "carol": 0.6, "llm_judge": 0.95, "rule_bot": 0.95}
OPTIONS = ["Cost", "Speed", "Quality", "Support", "Design"]
URGENCY = ["Low", "Medium", "High"]
ROWS = ["Urgency", "Impact", "Effort"]
GROUPS = ["Keep", "Drop", "Later"]
CARDS = ["login", "search", "export", "themes", "alerts"]
TAXONOMY = {"Animals": {"Mammals": ["Dog", "Cat"], "Birds": ["Owl"]},
            "Plants": ["Tree", "Flower"]}
TAX_LEAVES = ["Animals", "Mammals", "Dog", "Cat", "Birds", "Owl", "Plants", "Tree", "Flower"]

Payload = dict[str, str]


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))  # JSON.stringify: no spaces


def _rng(seed: int, user: str, item: str) -> random.Random:
    return random.Random(f"{seed}/{user}/{item}")


def _truth(seed: int, item: str) -> random.Random:
    return random.Random(f"{seed}/truth/{item}")


def _clip(v: float, lo: float, hi: float) -> int:
    return int(min(hi, max(lo, round(v))))


NUMBER_SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "slider", "name": "relevance", "description": "Relevance",
     "min_value": 0, "max_value": 10, "starting_value": 5},
    {"annotation_type": "number", "name": "count", "description": "How many people?",
     "min_value": 0, "max_value": 50},
    {"annotation_type": "vas", "name": "pain", "description": "Pain (rotating panel)",
     "left_label": "none", "right_label": "worst"},
    {"annotation_type": "confidence", "name": "sure", "description": "How sure?",
     "scale_type": "slider", "min_value": 0, "max_value": 100},
    {"annotation_type": "pairwise", "name": "prefer", "description": "Which is better?",
     "mode": "scale", "labels": ["A", "B"], "scale": {"min": -3, "max": 3}},
    {"annotation_type": "likert", "name": "quality", "description": "Quality", "size": 7,
     "min_label": "bad", "max_label": "good"},
    {"annotation_type": "ranking", "name": "priorities", "description": "Rank these",
     "labels": OPTIONS},
    {"annotation_type": "multirate", "name": "triage", "description": "Rate each",
     "options": ROWS, "labels": URGENCY},
    {"annotation_type": "constant_sum", "name": "budget", "description": "Split 100",
     "labels": ["ads", "staff", "tools"], "total_points": 100},
    {"annotation_type": "soft_label", "name": "stance", "description": "Stance mix",
     "labels": ["pro", "con", "neutral"], "total": 100},
    {"annotation_type": "semantic_differential", "name": "tone", "description": "Tone",
     "pairs": [["Formal", "Informal"], ["Warm", "Cold"]], "scale_points": 7},
    {"annotation_type": "range_slider", "name": "age", "description": "Age range",
     "min_value": 0, "max_value": 100},
    {"annotation_type": "hierarchical_multiselect", "name": "taxon", "description": "Taxa",
     "taxonomy": TAXONOMY},
    {"annotation_type": "card_sort", "name": "features", "description": "Sort the features",
     "mode": "closed", "groups": GROUPS, "items_field": "cards"},
]


def _noisy_order(truth: list[str], rng: random.Random, skill: float) -> list[str]:
    order = list(truth)
    for _ in range(3):
        if rng.random() > skill:
            i = rng.randrange(len(order) - 1)
            order[i], order[i + 1] = order[i + 1], order[i]
    return order


def answer_numbers(user: str, iid: str) -> Payload:
    k = int(iid[1:])
    t = _truth(61, iid)
    rng = _rng(61, user, iid)
    skill = SKILL[user]
    spread = 3.0 * (1.0 - skill)
    p: Payload = {}
    # slider: label "slider", value the position as a string; item 0 and 1 answered 0
    relevance = 0 if k < 2 else _clip(t.randint(0, 10) + rng.gauss(0, spread), 0, 10)
    p["relevance:::slider"] = str(relevance)
    if not (user == "carol" and k in (3, 7)):  # carol left two number boxes empty
        p["count:::number"] = str(_clip(t.randint(0, 40) + rng.gauss(0, 4 * spread), 0, 50))
    if user not in PEOPLE or k % 3 != PEOPLE.index(user):  # rotating panel: 2 of 3
        p["pain:::pain"] = str(_clip(t.randint(0, 100) + rng.gauss(0, 25 * spread), 0, 100))
    p["sure:::confidence_level"] = str(_clip(t.randint(20, 100) + rng.gauss(0, 20 * spread),
                                             0, 100))
    p["prefer:::scale_value"] = str(_clip(t.randint(-3, 3) + rng.gauss(0, spread), -3, 3))
    quality = _clip(t.randint(1, 7) + rng.choice([-1, 0, 0, 1]) * (rng.random() > skill), 1, 7)
    p[f"quality:::{quality}"] = str(quality)  # likert: the point as key and value
    truth_order = list(OPTIONS)
    t.shuffle(truth_order)
    p["priorities:::rank_order"] = ",".join(_noisy_order(truth_order, rng, skill))
    for row in ROWS:  # multirate: label_name is the row, the value the rating
        base = t.randrange(3)
        p[f"triage:::{row}"] = URGENCY[_clip(base + (rng.random() > skill) * rng.choice(
            [-1, 1]), 0, 2)]
    ads = _clip(t.randint(10, 60) + rng.gauss(0, 15 * spread), 0, 100)
    staff = _clip(t.randint(0, 100 - ads) + rng.gauss(0, 10 * spread), 0, 100 - ads)
    for name, v in (("ads", ads), ("staff", staff), ("tools", 100 - ads - staff)):
        p[f"budget:::{name}"] = str(v)
    pro = _clip(t.randint(0, 100) + rng.gauss(0, 20 * spread), 0, 100)
    con = _clip((100 - pro) * t.random(), 0, 100 - pro)
    for name, v in (("pro", pro), ("con", con), ("neutral", 100 - pro - con)):
        p[f"stance:::{name}"] = str(v)
    for pair in ("Formal__Informal", "Warm__Cold"):  # the radio's label_name is the pair
        p[f"tone:::{pair}"] = str(_clip(t.randint(1, 7) + rng.gauss(0, 2 * spread), 1, 7))
    low = _clip(t.randint(10, 50) + rng.gauss(0, 10 * spread), 0, 100)
    p["age:::range_low"] = str(low)
    p["age:::range_high"] = str(_clip(low + t.randint(5, 30) + rng.gauss(0, 10 * spread),
                                      low, 100))
    chosen = [x for x in TAX_LEAVES if t.random() < 0.3]
    chosen = [x for x in TAX_LEAVES if (x in chosen) != (rng.random() > skill + 0.1)]
    if chosen:  # an empty selection posts nothing
        p["taxon:::selected_labels"] = ",".join(chosen)  # selected.join(',')
    sort: dict[str, list[str]] = {g: [] for g in GROUPS}
    for card in CARDS:
        group = GROUPS[t.randrange(3)] if rng.random() < skill + 0.1 else rng.choice(GROUPS)
        sort[group].append(card)
    p["features:::features"] = _dump(sort)  # cardSortSaveData: every group, JSON.stringify
    return p


def items_numbers() -> list[dict[str, Any]]:
    return [{"id": f"n{k:02d}", "text": f"Request number {k}: A or B?", "cards": CARDS}
            for k in range(12)]


BWS_SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "bws", "name": "funniest", "description": "Best and worst joke",
     "best_description": "Funniest?", "worst_description": "Least funny?", "tuple_size": 4},
]


def answer_bws(user: str, iid: str) -> Payload:
    rng = _rng(62, user, iid)
    t = _truth(62, iid)
    best = t.choice("ABCD") if rng.random() < SKILL[user] else rng.choice("ABCD")
    worst = t.choice([x for x in "ABCD" if x != best])
    if rng.random() > SKILL[user]:
        worst = rng.choice([x for x in "ABCD" if x != best])
    return {"funniest:::best": best, "funniest:::worst": worst}


MODE_SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "confidence", "name": "certainty", "description": "How sure?",
     "scale_points": 5},  # scale_type likert (the default): radios "1".."5", as likert
    {"annotation_type": "pairwise", "name": "better", "description": "Which is better?",
     "allow_tie": True},  # mode binary (the default): one hidden input "selection"
    {"annotation_type": "pairwise", "name": "aspects", "description": "Which is better at?",
     "mode": "multi_dimension",
     "dimensions": [{"name": "fluency"}, {"name": "accuracy", "allow_tie": True}]},
]


def answer_modes(user: str, iid: str) -> Payload:
    """confidence (likert mode), pairwise binary and pairwise multi_dimension, each in
    the shape its widget posts (``confidence.py``: the radio's label_name is the level;
    ``pairwise.py``: ``selection`` holds A, B or tie; one input per dimension)."""
    t = _truth(63, iid)
    rng = _rng(63, user, iid)
    skill = SKILL[user]
    p: Payload = {}
    level = _clip(t.randint(1, 5) + (rng.random() > skill) * rng.choice([-1, 1]), 1, 5)
    p[f"certainty:::{level}"] = str(level)
    picks = ["A", "B", "tie"]
    p["better:::selection"] = t.choice(picks) if rng.random() < skill else rng.choice(picks)
    p["aspects:::fluency"] = t.choice("AB") if rng.random() < skill else rng.choice("AB")
    if not (user == "carol" and iid.endswith("3")):  # one dimension left unanswered
        p["aspects:::accuracy"] = (t.choice(picks) if rng.random() < skill
                                   else rng.choice(picks))
    return p


MACHINE_SCHEMES = [NUMBER_SCHEMES[0], NUMBER_SCHEMES[5], NUMBER_SCHEMES[6], NUMBER_SCHEMES[7]]


def answer_machines(user: str, iid: str) -> Payload:
    full = answer_numbers(user, iid)
    keep = ("relevance:", "quality:", "priorities:", "triage:")
    return {k: v for k, v in full.items() if k.startswith(keep)}


@dataclass(frozen=True)
class Project:
    name: str
    port: int
    seed: int
    schemes: list[dict[str, Any]]
    items: list[dict[str, Any]]
    answer: Callable[[str, str], Payload]
    users: tuple[str, ...] = PEOPLE
    config: dict[str, Any] = field(default_factory=dict)


PROJECTS = {p.name: p for p in [
    Project("numbers", 8776, 61, NUMBER_SCHEMES, items_numbers(), answer_numbers),
    Project("bws", 8777, 62, BWS_SCHEMES,
            [{"id": f"j{k:02d}", "text": f"Joke number {k}."} for k in range(8)], answer_bws,
            config={"bws_config": {"tuple_size": 4, "num_tuples": 10, "seed": 62}}),
    Project("machines", 8778, 61, MACHINE_SCHEMES, items_numbers(), answer_machines,
            users=(*PEOPLE, *(m["id"] for m in MACHINES)),
            config={"max_annotations_per_item": 5, "num_annotators_per_item": 5,
                    "machine_annotators": {"enabled": True,
                                           "annotators": [dict(m) for m in MACHINES]}}),
    Project("modes", 8779, 63, MODE_SCHEMES,
            [{"id": f"m{k:02d}", "text": f"Answer pair number {k}."} for k in range(14)],
            answer_modes),
]}


def build(project: Project, out: Path = OUT / "ratings") -> Path:
    work = prepare(project.name, "rating_projects.py", project.seed,
                   base_config(project.schemes) | project.config, project.items)
    report = serve(work, project.port, project.users, None,
                   lambda sim, url, user, iid: project.answer(user, iid))
    return save(work, out / project.name, project.users, report)


def main(argv: list[str]) -> int:
    out, argv = split_out(argv, TARGET)
    for name in argv or list(PROJECTS):
        target = build(PROJECTS[name], out)
        print(f"{name}: {shown(target)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
