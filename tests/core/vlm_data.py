"""Random grounding, caption, episode and rollout answers in the shapes Potato 2.12.1's
widgets save (``grounding-eval.js``, ``region-caption.js``, ``episode-timeline.js``,
``rollout-eval.js``): several annotators around one hidden truth per item, with misses,
absent answers, stray regions, relabelled phases and jittered break times. Shared by
``test_vlm_measures.py`` and ``tests/potato_real/vlm_projects.py``."""

from __future__ import annotations

import json
import random
from typing import Any


def box(rng: random.Random) -> dict[str, Any]:
    x, y = rng.uniform(0, 0.5), rng.uniform(0, 0.5)
    return {"type": "bbox", "coordinates": {"x": x, "y": y, "width": rng.uniform(0.1, 0.4),
                                            "height": rng.uniform(0.1, 0.4)}}


def jitter(shape: dict[str, Any], rng: random.Random, by: float = 0.05) -> dict[str, Any]:
    c = dict(shape["coordinates"])
    c["x"] += rng.uniform(-by, by)
    c["y"] += rng.uniform(-by, by)
    return {"type": "bbox", "coordinates": c}


def grounding_rows(seed: int, points: bool = False) -> dict[str, dict[str, dict[str, Any]]]:
    rng = random.Random(seed)
    rows: dict[str, dict[str, dict[str, Any]]] = {}
    for i in range(6):
        truth = {f"e{k}": box(rng) for k in range(3)}
        per: dict[str, dict[str, Any]] = {}
        for a in ("ann1", "ann2", "ann3")[: rng.choice((2, 3))]:
            regions: dict[str, list[Any]] = {}
            absent: list[str] = []
            for e, shape in truth.items():
                r = rng.random()
                if r < 0.15:
                    continue
                if r < 0.35:
                    absent.append(e)
                elif points:
                    c = shape["coordinates"]
                    regions[e] = [{"type": "landmark", "coordinates": {
                        "x": c["x"] + rng.uniform(0, 0.1), "y": c["y"]}}]
                else:
                    regions[e] = [jitter(shape, rng)] + ([box(rng)] if r > 0.9 else [])
            per[a] = {"regions": regions, "absent": absent}
        rows[f"item{i}"] = per
    return rows


CAPTION_WORDS = ("red", "mug", "cup", "table", "left", "the", "a", "small", "blue",
                 "kettle", "behind", "of", "chair")


def caption_rows(seed: int) -> dict[str, dict[str, list[dict[str, Any]]]]:
    rng = random.Random(seed)
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for i in range(5):
        truth = [box(rng) for _ in range(3)]
        said = [[rng.choice(CAPTION_WORDS) for _ in range(4)] for _ in truth]
        per = {}
        for a in ("ann1", "ann2", "ann3")[: rng.choice((2, 3))]:
            entries = []
            for shape, words in zip(truth, said, strict=True):
                if rng.random() < 0.2:
                    continue
                mine = [w if rng.random() < 0.7 else rng.choice(CAPTION_WORDS)
                        for w in words[: rng.randint(0, 4)]]
                entries.append({"region": jitter(shape, rng, 0.02), "caption": " ".join(mine)})
            if rng.random() < 0.3:
                entries.append({"region": box(rng), "caption": "stray region"})
            per[a] = entries
        rows[f"item{i}"] = per
    return rows


def episode_blob(rng: random.Random) -> dict[str, Any]:
    phases, t = [], 0.0
    for label in ("reach", "grasp", "transport"):
        if rng.random() < 0.2:
            continue
        end = t + rng.uniform(0.5, 2.0)
        phases.append({"start": round(t + rng.uniform(-0.2, 0.2), 3), "end": round(end, 3),
                       "label": label if rng.random() > 0.15 else "place"})
        t = end
    reward = [{"t": round(k * 0.4 + rng.uniform(0, 0.1), 3), "value": rng.uniform(0, 1)}
              for k in range(rng.randint(0, 12))]
    out: dict[str, Any] = {"phases": phases, "reward": reward}
    if rng.random() < 0.85:
        out["outcome"] = {"result": rng.choice(("success", "partial", "failure")),
                          "cause": ""}
    return out


def rollout_blob(rng: random.Random, breaks: dict[str, list[float]]) -> dict[str, Any]:
    violations, clean = [], []
    for stream, times in breaks.items():
        mine = [t + rng.gauss(0, 0.3) for t in times if rng.random() > 0.2]
        if rng.random() < 0.2:
            mine.append(rng.uniform(0, 8))
        if not mine and rng.random() < 0.8:
            clean.append(stream)
        violations += [{"stream": stream, "t": round(t, 3),
                        "type": rng.choice(("interpenetration", "teleport")),
                        "severity": rng.choice((1, 2, 3))} for t in mine]
    return {"violations": violations, "clean": clean,
            "preference": {"winner": rng.choice(("gen_a", "gen_b"))},
            "counterfactual": {"verdict": rng.choice(("plausible", "implausible", ""))}}


def rollout_rows(seed: int, n_items: int = 5) -> dict[str, dict[str, str]]:
    rng = random.Random(seed)
    rows = {}
    for i in range(n_items):
        breaks = {s: [rng.uniform(0, 8) for _ in range(rng.randint(0, 2))]
                  for s in ("real", "gen_a", "gen_b")}
        rows[f"r{i}"] = {a: json.dumps(rollout_blob(rng, breaks))
                         for a in ("ann1", "ann2", "ann3")[: rng.choice((2, 3))]}
    return rows
