"""Small annotation projects written by the real Potato 2.12.1 server (run on purpose).

    .venv/bin/python -m tests.potato_real.annotation_projects [NAME ...]

For each project below this starts ``potato start config.yaml -p PORT`` on 127.0.0.1
(ports 8771-8779), logs in three annotators with Potato's own simulator client
(:class:`potato.simulator.SimulatedUser`), posts every answer through ``/updateinstance``
in the shape Potato's browser widgets send (read from the installed package's
``static/*.js`` and ``server_utils/schemas/*.py``; the ``<n>: <n>`` slider is the
simulator's own ``RandomStrategy``), asks ``/admin/iaa`` for Potato's agreement report,
stops the server and copies what it wrote into ``tests/data/potato_server/<name>/``:

- ``config.yaml``, ``data/``, media;
- ``annotation_output/<annotator>/user_state.json`` exactly as the server wrote it;
- ``expected/iaa.json``: the JSON body of ``/admin/iaa``.

The normal test suite never starts a server; it reads the committed files. Answers are
seeded: the same run writes the same answers (the server adds its own timestamps).
"""

from __future__ import annotations

import json
import random
import struct
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.potato_real.server import ADMIN_KEY, OUT, prepare, save, serve, shown, split_out

ANNOTATORS = ("alice", "bob", "carol")

Payload = dict[str, str]
Answerer = Callable[[str, int, random.Random], Payload]


@dataclass(frozen=True)
class Project:
    name: str
    port: int
    seed: int
    schemes: list[dict[str, Any]]
    items: list[dict[str, Any]]
    answer: Answerer
    media: Callable[[Path], None] | None = None
    config: dict[str, Any] | None = None  # top-level keys added to base_config


def base_config(schemes: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "annotation_task_name": "Accord fixture (written by Potato 2.12.1)",
        "task_dir": ".",
        "data_files": ["data/items.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "text"},
        "output_annotation_dir": "annotation_output/",
        "user_config": {"allow_all_users": True, "users": []},
        "require_password": False,
        "assignment_strategy": "fixed_order",
        "max_annotations_per_item": len(ANNOTATORS),
        "num_annotators_per_item": len(ANNOTATORS),
        "admin_api_key": ADMIN_KEY,
        "annotation_schemes": schemes,
    }


def _rng(seed: int, user: str, item: str) -> random.Random:
    return random.Random(f"{seed}/{user}/{item}")


def _truth(seed: int, item: str) -> random.Random:
    return random.Random(f"{seed}/truth/{item}")


# --------------------------------------------------------------------------- categorical

CAT_SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "radio", "name": "sentiment", "description": "Sentiment",
     "labels": ["positive", "negative", "neutral"]},
    {"annotation_type": "select", "name": "topic", "description": "Topic",
     "labels": ["sports", "politics", "tech", "food"]},
    {"annotation_type": "multiselect", "name": "aspects", "description": "Aspects",
     "labels": ["price", "service", "quality", "speed"]},
    {"annotation_type": "likert", "name": "quality", "description": "Quality", "size": 5,
     "min_label": "bad", "max_label": "good"},
    {"annotation_type": "slider", "name": "confidence", "description": "Confidence",
     "min_value": 0, "max_value": 10, "starting_value": 5},
    {"annotation_type": "slider", "name": "intensity", "description": "Intensity",
     "min_value": 1, "max_value": 7, "starting_value": 4},
]


def _pick(truth: str, options: list[str], rng: random.Random, keep: float) -> str:
    return truth if rng.random() < keep else rng.choice(options)


def answer_categorical(user: str, k: int, rng: random.Random) -> Payload:
    item = f"c{k:02d}"
    t = _truth(11, item)
    sentiment = _pick(t.choice(["positive", "negative", "neutral"]),
                      ["positive", "negative", "neutral"], rng, 0.7)
    topic = _pick(t.choice(["sports", "politics", "tech", "food"]),
                  ["sports", "politics", "tech", "food"], rng, 0.75)
    aspects = {a for a in ["price", "service", "quality", "speed"] if t.random() < 0.5}
    aspects ^= {a for a in ["price", "service", "quality", "speed"] if rng.random() < 0.2}
    quality = min(5, max(1, t.randint(1, 5) + rng.choice([-1, 0, 0, 1])))
    confidence = min(10, max(0, t.randint(0, 10) + rng.choice([-2, -1, 0, 0, 1, 2])))
    payload: Payload = {
        # radio and multiselect: the option name as key and value (annotation.js)
        f"sentiment:::{sentiment}": sentiment,
        # select: the dropdown's label is "select-one", its value the option
        "topic:::select-one": topic,
        # likert: the point as key and value
        f"quality:::{quality}": str(quality),
        # slider from the browser: label "slider", the value as a string
        "confidence:::slider": str(confidence),
    }
    for a in sorted(aspects):
        payload[f"aspects:::{a}"] = a
    # slider from Potato's simulator: RandomStrategy posts "<schema>:<n>": "<n>"
    from potato.simulator.annotation_strategies import RandomStrategy
    random.seed(f"11/{user}/{item}")
    payload.update(RandomStrategy().generate_annotation(
        {"instance_id": item, "text": ""}, CAT_SCHEMES[5], None, None))
    return payload


# --------------------------------------------------------------------------- spatial

SPATIAL_SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "spatial_annotation", "name": "objects", "description": "3D objects",
     "source_field": "point_cloud",
     "tools": ["cuboid_3d", "point_3d", "polyline_3d", "segment_3d"],
     "labels": [{"name": "car"}, {"name": "pole"}, {"name": "lane"}, {"name": "ground"}]},
]


def _quat_yaw(yaw: float) -> list[float]:
    import math
    return [0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)]


def answer_spatial(user: str, k: int, rng: random.Random) -> Payload:
    item = f"s{k:02d}"
    t = _truth(22, item)
    objects: list[dict[str, Any]] = []
    for n in range(t.randint(0, 3)):
        if rng.random() < 0.15:
            continue
        cx, cy = t.uniform(-20, 20), t.uniform(-20, 20)
        yaw = t.uniform(-3, 3)
        objects.append({"type": "cuboid_3d", "label": "car" if n else t.choice(["car", "pole"]),
                        "color": "#FF6B6B", "coordinates": {
                            "center": [round(cx + rng.gauss(0, 0.3), 3),
                                       round(cy + rng.gauss(0, 0.3), 3), 0.8],
                            "size": [round(4.2 + rng.gauss(0, 0.2), 3),
                                     round(1.8 + rng.gauss(0, 0.1), 3), 1.6],
                            "rotation": [round(v, 6) for v in
                                         _quat_yaw(yaw + rng.gauss(0, 0.1))]}})
    if t.random() < 0.8:
        px, py = t.uniform(-10, 10), t.uniform(-10, 10)
        objects.append({"type": "point_3d", "label": "pole", "color": "#4ECDC4",
                        "coordinates": [round(px + rng.gauss(0, 0.4), 3),
                                        round(py + rng.gauss(0, 0.4), 3), 2.0]})
    if t.random() < 0.7:
        y0 = t.uniform(-5, 5)
        objects.append({"type": "polyline_3d", "label": "lane", "color": "#FFEAA7",
                        "coordinates": [[float(x), round(y0 + rng.gauss(0, 0.25), 3), 0.0]
                                        for x in range(0, 10, 2)]})
    if t.random() < 0.7:
        start = t.randint(0, 200)
        lo = start + rng.randint(-10, 10)
        objects.append({"type": "segment_3d", "label": "ground", "color": "#96CEB4",
                        "indices": list(range(max(0, lo), lo + 50 + rng.randint(-10, 10)))})
    return {"objects:::_data": json.dumps(objects)}


# --------------------------------------------------------------------------- time

TIME_SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "audio_annotation", "name": "speech", "description": "Speech",
     "source_field": "audio", "mode": "label",
     "labels": [{"name": "speech", "color": "#45B7D1"}, {"name": "music", "color": "#DDA0DD"}]},
    {"annotation_type": "video_annotation", "name": "actions", "description": "Actions",
     "source_field": "video", "mode": "segment",
     "labels": [{"name": "walk", "color": "#45B7D1"}, {"name": "run", "color": "#DDA0DD"}]},
    {"annotation_type": "temporal_grounding", "name": "grounding", "description": "Ground",
     "video_key": "video", "events_key": "events"},
    {"annotation_type": "tiered_annotation", "name": "turns", "description": "Turns",
     "source_field": "audio", "media_type": "audio",
     "tiers": [{"name": "speaker", "tier_type": "independent",
                "labels": [{"name": "host", "color": "#4ECDC4"},
                           {"name": "guest", "color": "#FF6B6B"}]},
               {"name": "events", "tier_type": "independent",
                "labels": [{"name": "laughter", "color": "#FFEAA7"},
                           {"name": "host", "color": "#95A5A6"}]}]},
]


def _spans(t: random.Random, rng: random.Random, n: int, length: float, jitter: float
           ) -> list[tuple[float, float]]:
    out = []
    for _ in range(n):
        a = t.uniform(0, length - 3)
        b = a + t.uniform(0.5, 3)
        if rng.random() < 0.1:
            continue
        a2 = max(0.0, round(a + rng.gauss(0, jitter), 3))
        out.append((a2, max(a2, round(b + rng.gauss(0, jitter), 3))))
    return out


def answer_time(user: str, k: int, rng: random.Random) -> Payload:
    item = f"t{k:02d}"
    t = _truth(33, item)
    n = t.randint(0, 3)
    labels = [t.choice(["speech", "music"]) for _ in range(4)]
    audio = {"segments": [{"id": f"segment_{i}", "start_time": a, "end_time": b,
                           "label": labels[i] if rng.random() < 0.85 else "speech",
                           "annotations": {}}
                          for i, (a, b) in enumerate(_spans(t, rng, n, 20.0, 0.3))]}
    m = t.randint(1, 2)
    video = {"video_metadata": {"fps": 30, "duration": 20},
             "segments": [{"id": f"segment_{i}", "startTime": a, "endTime": b,
                           "startFrame": int(a * 30), "endFrame": int(b * 30),
                           "label": "walk" if i % 2 == 0 else "run", "color": "#45B7D1",
                           "annotations": {}}
                          for i, (a, b) in enumerate(_spans(t, rng, m, 20.0, 0.4))],
             "frame_annotations": {}, "keyframes": [], "tracking": {}, "tracks": {}}
    events: dict[str, dict[str, float]] = {}
    for i in range(2):
        a = t.uniform(0, 15)
        if rng.random() < 0.1:
            continue
        start = round(a + rng.gauss(0, 0.3), 2)
        event: dict[str, float] = {"start": start}
        if not (i == 1 and rng.random() < 0.3):  # an event marked without an end
            event["end"] = round(start + t.uniform(1, 4) + rng.gauss(0, 0.3), 2)
        events[str(i)] = event
    tiers: dict[str, list[dict[str, Any]]] = {"speaker": [], "events": []}
    cursor = 0.0
    for i in range(t.randint(2, 4)):
        length = t.uniform(1.0, 4.0)
        a, b = cursor, cursor + length
        cursor = b
        # milliseconds as tiered-annotation.js makes them: seconds * 1000
        tiers["speaker"].append({
            "id": f"ann_{i}", "tier": "speaker",
            "start_time": max(0.0, round(a + rng.gauss(0, 0.15), 3)) * 1000,
            "end_time": round(b + rng.gauss(0, 0.15), 3) * 1000,
            "label": "host" if i % 2 == 0 else "guest", "color": "#4ECDC4",
            "parent_id": None, "value": ""})
    if t.random() < 0.6:
        a = t.uniform(0, cursor)
        tiers["events"].append({"id": "ann_e", "tier": "events",
                                "start_time": round(a, 2) * 1000,
                                "end_time": round(a + 1.0 + rng.gauss(0, 0.1), 2) * 1000,
                                "label": "laughter" if rng.random() < 0.8 else "host",
                                "color": "#FFEAA7", "parent_id": None, "value": ""})
    times = sorted({round(s[key]) for segs in tiers.values() for s in segs
                    for key in ("start_time", "end_time")})
    tiered = {"annotations": tiers,
              "time_slots": {f"ts{i + 1}": v for i, v in enumerate(times)}}
    return {"speech:::_data": json.dumps(audio), "actions:::_data": json.dumps(video),
            "grounding:::grounding": json.dumps({"events": events}),
            "turns:::_data": json.dumps(tiered)}


# --------------------------------------------------------------------------- images

IMAGE_W, IMAGE_H = 320, 180
IMAGE_SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "image_annotation", "name": "shapes", "description": "Shapes",
     "source_field": "image",
     "tools": ["bbox", "polygon", "ellipse", "landmark", "keypoint_set", "polyline",
               "freeform"],
     "labels": [{"name": "car", "color": "#FF6B6B"}, {"name": "sign", "color": "#FFEAA7"},
                {"name": "person", "color": "#4ECDC4"}]},
    {"annotation_type": "image_annotation", "name": "paint", "description": "Road",
     "source_field": "image", "tools": ["brush", "eraser"],
     "labels": [{"name": "road", "color": "#45B7D1"}]},
]


def _j(rng: random.Random, s: float) -> float:
    return rng.gauss(0, s)


def answer_images(user: str, k: int, rng: random.Random) -> Payload:
    item = f"m{k:02d}"
    t = _truth(44, item)
    shapes: list[dict[str, Any]] = []
    x, y = t.uniform(0.05, 0.6), t.uniform(0.05, 0.6)
    if rng.random() < 0.9:
        shapes.append({"type": "bbox", "label": "car", "color": "#FF6B6B", "coordinates": {
            "x": x + _j(rng, 0.01), "y": y + _j(rng, 0.01),
            "width": 0.25 + _j(rng, 0.01), "height": 0.3 + _j(rng, 0.01)}})
    px, py = t.uniform(0.1, 0.6), t.uniform(0.1, 0.6)
    shapes.append({"type": "polygon", "label": "sign", "color": "#FFEAA7", "coordinates": [
        {"x": px + _j(rng, 0.01), "y": py + _j(rng, 0.01)},
        {"x": px + 0.2 + _j(rng, 0.01), "y": py + _j(rng, 0.01)},
        {"x": px + 0.1 + _j(rng, 0.01), "y": py + 0.25 + _j(rng, 0.01)}]})
    ex, ey, angle = t.uniform(0.3, 0.7), t.uniform(0.3, 0.7), t.uniform(0, 90)
    shapes.append({"type": "ellipse", "label": "sign", "color": "#FFEAA7", "coordinates": {
        "cx": ex + _j(rng, 0.005), "cy": ey + _j(rng, 0.005), "rx": 0.12 + _j(rng, 0.005),
        "ry": 0.05 + _j(rng, 0.005), "angle": angle + _j(rng, 8)}})
    lx, ly = t.uniform(0.1, 0.9), t.uniform(0.1, 0.9)
    shapes.append({"type": "landmark", "label": "person", "color": "#4ECDC4",
                   "coordinates": {"x": lx + _j(rng, 0.01), "y": ly + _j(rng, 0.01)}})
    kx, ky = t.uniform(0.2, 0.6), t.uniform(0.2, 0.5)
    shapes.append({"type": "keypoint_set", "label": "person", "color": "#4ECDC4",
                   "skeleton": "coco17", "coordinates": [
                       {"x": kx + 0.02 * i + _j(rng, 0.004), "y": ky + 0.03 * i + _j(rng, 0.004),
                        "v": 0 if (i == 4 and rng.random() < 0.3) else 2}
                       for i in range(5)]})
    sx, sy = t.uniform(0.1, 0.5), t.uniform(0.1, 0.5)
    shapes.append({"type": "polyline", "label": "car", "color": "#FF6B6B", "closed": False,
                   "coordinates": [{"x": sx + 0.1 * i, "y": sy + 0.02 * i * i + _j(rng, 0.004)}
                                   for i in range(4)]})
    fx, fy = t.uniform(20, 200), t.uniform(20, 100)
    path = [["M", fx, fy]] + [["Q", fx + 10 * i, fy + 3 * i, fx + 10 * i + 5,
                               fy + 3 * i + _j(rng, 1.0)] for i in range(1, 5)]
    shapes.append({"type": "freeform", "label": "car", "color": "#FF6B6B", "coordinates": {
        "path": path, "left": (fx - 2) / IMAGE_W, "top": (fy - 2) / IMAGE_H,
        "scaleX": 1.0, "scaleY": 1.0, "pathOffset": {"x": fx + 22.5, "y": fy + 6.0},
        "angle": 0}})
    # a mask as the brush writes it: row-major runs starting with background
    bottom = IMAGE_H - rng.randint(0, 8)
    rows = [r for r in range(IMAGE_H) if 120 <= r < bottom]
    mask = [[False] * IMAGE_W for _ in range(IMAGE_H)]
    left = rng.randint(0, 12)
    for r in rows:
        for c in range(left, IMAGE_W - rng.randint(0, 3)):
            mask[r][c] = True
    return {"shapes:::_data": json.dumps(shapes),
            "paint:::_data": json.dumps([{"type": "mask", "label": "road", "color": "#45B7D1",
                                          "rle": {"counts": _rle(mask),
                                                  "size": [IMAGE_H, IMAGE_W]}}])}


def _rle(mask: list[list[bool]]) -> list[int]:
    flat = [v for row in mask for v in row]
    counts, current, run = [], False, 0
    for v in flat:
        if v == current:
            run += 1
        else:
            counts.append(run)
            current, run = v, 1
    counts.append(run)
    return counts


def _png(path: Path, width: int, height: int) -> None:
    rows = []
    for y in range(height):
        rows.append(b"\x00" + b"".join(bytes((x * 255 // width, y * 255 // height, 96))
                                       for x in range(width)))
    raw = b"".join(rows)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    path.write_bytes(b"\x89PNG\r\n\x1a\n"
                     + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def image_media(folder: Path) -> None:
    (folder / "images").mkdir(exist_ok=True)
    for k in range(12):
        _png(folder / "images" / f"m{k:02d}.png", IMAGE_W, IMAGE_H)


# --------------------------------------------------------------------------- traces

# Agent traces: the steps are a list under each scheme's `steps_key`, one dict per
# step (an assistant message with its `tool_calls`, or a tool's result), as Potato's
# `agent_trace` display and the trace widgets read them. The answers below are built
# by small mirrors of the widgets' own state (the `<script>` blocks of
# server_utils/schemas/{trajectory_eval,process_reward,tool_call_review}.py): the
# clicks change that state exactly as the widget's handlers do, and the answer is the
# hidden input's value as the widget's save function serializes it (JSON.stringify:
# no spaces, keys in insertion order). annotation.js posts a hidden input's value under
# `<schema>:<label_name>` (syncAnnotationsFromDOM; label_name is the schema name) and
# leaves an empty input out.

TRACE_SEED = 55
TRACE_STEPS_KEY = "steps"
TRACE_SKILL = {"alice": 0.9, "bob": 0.8, "carol": 0.7}
CORRECTNESS = ["correct", "incorrect", "partially_correct"]
TRACE_ERRORS: list[dict[str, Any]] = [
    {"name": "tool_misuse", "subtypes": ["wrong_tool", "wrong_arguments"]},
    {"name": "hallucination"},
    {"name": "unnecessary_step"},
]
VERDICTS = ["correct", "wrong_tool", "wrong_args"]
OUTCOMES = ["success", "partial", "failure"]

TRACE_SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "radio", "name": "outcome", "description": "Did the agent do the task?",
     "labels": OUTCOMES},
    {"annotation_type": "trajectory_eval", "name": "step_check",
     "description": "Judge every step", "steps_key": TRACE_STEPS_KEY,
     "step_text_key": "content", "correctness_options": CORRECTNESS,
     "error_types": TRACE_ERRORS,
     "severities": [{"name": "minor", "weight": -1}, {"name": "major", "weight": -5},
                    {"name": "critical", "weight": -10}]},
    # first_error mode, no neutral option: an unmarked step is stored as reward 0
    {"annotation_type": "process_reward", "name": "first_error",
     "description": "Click the first wrong step", "steps_key": TRACE_STEPS_KEY,
     "step_text_key": "content", "mode": "first_error"},
    # per_step with the neutral option: unmarked is null, 0 is a deliberate neutral
    {"annotation_type": "process_reward", "name": "step_reward",
     "description": "Rate every step", "steps_key": TRACE_STEPS_KEY,
     "step_text_key": "content", "mode": "per_step", "allow_neutral": True},
    {"annotation_type": "tool_call_review", "name": "tool_review",
     "description": "Judge each tool call", "steps_key": TRACE_STEPS_KEY,
     "verdict_options": VERDICTS},
]

TRACE_CONFIG: dict[str, Any] = {
    "instance_display": {"fields": [
        {"key": "text", "type": "text", "label": "Task"},
        {"key": TRACE_STEPS_KEY, "type": "agent_trace", "label": "Trace",
         "display_options": {"speaker_key": "role", "text_key": "content"}}]},
}

Call = tuple[str, dict[str, Any], Any]  # tool, arguments, result


def _trace_plan(t: random.Random, k: int) -> tuple[str, list[tuple[str, list[Call]]], str]:
    """(task, rounds of (thought, calls), final reply) for item k, before any error."""
    kind = k % 6
    if kind == 0:
        order = f"A-{t.randint(1000, 9999)}"
        amount = round(t.uniform(10, 90), 2)
        return (f"Order {order} arrived broken. Please refund it.",
                [("Looking up the order first.",
                  [("lookup_order", {"order_id": order},
                    {"order_id": order, "status": "delivered", "total": amount})]),
                 ("Delivered and damaged: refunding the full amount.",
                  [("issue_refund", {"order_id": order, "amount": amount},
                    {"refund_id": f"R-{t.randint(100, 999)}", "ok": True})])],
                f"I've refunded {amount:.2f} for order {order}.")
    if kind == 1:
        city = t.choice(["Lyon", "Porto", "Gdansk", "Bergen"])
        usd = t.randint(50, 400)
        return (f"What's the weather in {city} tomorrow, and what is {usd} USD in euros?",
                [("Two lookups, both at once.",
                  [("get_weather", {"city": city, "date": "tomorrow"},
                    {"city": city, "forecast": t.choice(["rain", "sun", "clouds"])}),
                   ("convert_currency", {"amount": usd, "from": "USD", "to": "EUR"},
                    {"amount": round(usd * 0.92, 2), "currency": "EUR"})])],
                f"Tomorrow in {city}: see the forecast above; {usd} USD is about "
                f"{usd * 0.92:.0f} EUR.")
    if kind == 2:
        day = t.randint(2, 27)
        name = t.choice(["Ines Duarte", "Tomas Berg", "Mei Lin"])
        flight = f"FL{t.randint(100, 999)}"
        return (f"Book the cheapest flight from Oslo to Rome on {day} May for {name}.",
                [("Searching flights.",
                  [("search_flights", {"origin": "OSL", "destination": "FCO",
                                       "date": f"2026-05-{day:02d}"},
                    [{"flight": flight, "price": 129}, {"flight": "FL001", "price": 210}])]),
                 (f"{flight} is the cheapest; booking it.",
                  [("book_flight", {"flight_id": flight, "passenger": name},
                    {"booking": f"BK{t.randint(1000, 9999)}", "ok": True})])],
                f"Booked {flight} for {name}.")
    if kind == 3:
        team = t.choice(["support", "sales", "ops"])
        return (f"Email the {team} team our article on password resets.",
                [("Finding the article.",
                  [("search_kb", {"query": "password reset"},
                    {"article": "KB-17", "title": "Resetting a password"})]),
                 ("Sending it.",
                  [("send_email", {"to": f"{team}@example.com", "subject": "KB-17",
                                   "body": "Resetting a password: see KB-17."},
                    {"sent": True})])],
                f"Sent KB-17 to {team}@example.com.")
    if kind == 4:
        order = f"B-{t.randint(1000, 9999)}"
        street = f"{t.randint(1, 99)} Harbour Road"
        return (f"Has order {order} shipped? If not, send it to {street}.",
                [("Checking the order status.",
                  [("lookup_order", {"order_id": order},
                    {"order_id": order, "status": "processing"})]),
                 ("Not shipped yet: changing the shipping address, and telling the "
                  "warehouse.",
                  [("update_shipping_address", {"order_id": order, "address": street},
                    {"ok": True}),
                   ("notify_warehouse", {"order_id": order}, {"ok": True})])],
                f"Order {order} had not shipped; it will go to {street}.")
    return ("Hi, can you help me with something?", [],
            "Of course. What do you need help with?")


WRONG_TOOL = {"lookup_order": "search_kb", "issue_refund": "issue_store_credit",
              "get_weather": "search_kb", "convert_currency": "get_weather",
              "search_flights": "book_flight", "book_flight": "hold_flight",
              "search_kb": "search_web", "send_email": "send_sms",
              "update_shipping_address": "update_billing_address",
              "notify_warehouse": "send_email"}


def _wrong_args(args: dict[str, Any]) -> dict[str, Any]:
    key = sorted(args)[0]
    value = args[key]
    if isinstance(value, (int, float)):
        return {**args, key: value * 10}
    return {**args, key: str(value)[:-1] + ("7" if not str(value).endswith("7") else "3")}


@dataclass(frozen=True)
class Trace:
    text: str
    steps: list[dict[str, Any]]
    correctness: list[str]            # per step, for trajectory_eval
    reward: list[int]                 # per step: 1 / 0 (neutral) / -1
    calls: list[tuple[int, str, str]]  # (step, tool, verdict) per call, in order
    outcome: str


def make_trace(k: int) -> Trace:
    """Item k's trace and the truth its annotators perceive (with noise)."""
    t = _truth(TRACE_SEED, f"a{k:02d}")
    task, rounds, final = _trace_plan(t, k)
    n_calls = sum(len(calls) for _, calls in rounds)
    error = t.choice(["none", "none", "wrong_args", "wrong_tool"]) if n_calls else "none"
    bad_call = t.randrange(n_calls) if error != "none" else -1
    if not n_calls and t.random() < 0.5:
        error = "hallucination"
        final = "Your refund was issued yesterday."
    steps: list[dict[str, Any]] = []
    correctness: list[str] = []
    reward: list[int] = []
    calls: list[tuple[int, str, str]] = []
    n = 0
    for thought, planned in rounds:
        step_calls: list[dict[str, Any]] = []
        verdicts: list[str] = []
        results: list[tuple[str, Any]] = []
        for tool, args, result in planned:
            verdict = "correct"
            if n == bad_call:
                verdict = error
                if error == "wrong_tool":
                    tool, result = WRONG_TOOL[tool], {"error": "not what was asked"}
                else:
                    args, result = _wrong_args(args), {"error": "not found"}
            step_calls.append({"name": tool, "arguments": args})
            verdicts.append(verdict)
            results.append((tool, result))
            n += 1
        index = len(steps)
        steps.append({"role": "assistant", "content": thought, "tool_calls": step_calls})
        bad = [v for v in verdicts if v != "correct"]
        correctness.append("correct" if not bad else
                           "incorrect" if bad[0] == "wrong_tool" else "partially_correct")
        reward.append(-1 if bad else 1)
        calls += [(index, c["name"], v) for c, v in zip(step_calls, verdicts, strict=True)]
        for tool, result in results:
            steps.append({"role": "tool", "name": tool, "content": json.dumps(result),
                          "tool_calls": []})
            correctness.append("correct")
            reward.append(0)  # a tool's output neither helps nor hurts
    if not rounds:
        steps.append({"role": "assistant", "content": "Hello! Let me see.", "tool_calls": []})
        correctness.append("correct")
        reward.append(0)
    wrong_final = error != "none"
    steps.append({"role": "assistant", "content": final, "tool_calls": []})
    correctness.append("incorrect" if wrong_final else "correct")
    reward.append(-1 if wrong_final else 1)
    outcome = {"none": "success", "wrong_args": "partial"}.get(error, "failure")
    return Trace(task, steps, correctness, reward, calls, outcome)


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))  # as JSON.stringify


class TrajectoryEvalWidget:
    """trajectory_eval's step state: {step_index, correctness} per card, error fields
    added by the error-type select, severity radios and rationale box."""

    def __init__(self, n_steps: int, severities: list[dict[str, Any]]) -> None:
        self.steps: list[dict[str, Any]] = [{"step_index": i, "correctness": None}
                                            for i in range(n_steps)]
        self.weights = {s["name"]: abs(s["weight"]) for s in severities}

    def click(self, idx: int, value: str) -> None:
        step = self.steps[idx]
        if step.get("correctness") == value:  # clicking the chosen button clears it
            self.steps[idx] = step = {"step_index": idx, "correctness": None}
        else:
            step["correctness"] = value
        if value == "correct" or not step["correctness"]:
            for key in ("severity", "error_type", "error_subtype", "rationale"):
                step.pop(key, None)

    def error_type(self, idx: int, option: str) -> None:
        parts = option.split("::")
        self.steps[idx]["error_type"] = parts[0]
        self.steps[idx]["error_subtype"] = parts[1] if len(parts) > 1 else ""

    def severity(self, idx: int, name: str) -> None:
        self.steps[idx]["severity"] = name

    def rationale(self, idx: int, text: str) -> None:
        self.steps[idx]["rationale"] = text

    def value(self, max_score: int = 100) -> str:
        penalty = sum(self.weights.get(s.get("severity", ""), 0) for s in self.steps
                      if s.get("severity") and s["correctness"] != "correct")
        incomplete = any(not s["correctness"] or (s["correctness"] != "correct"
                                                  and not s.get("severity"))
                         for s in self.steps)
        return _dump({"steps": self.steps,
                      "score": None if incomplete else max(0, max_score - penalty),
                      "score_complete": not incomplete})


class ProcessRewardWidget:
    """process_reward's step model (makeStep) and its two click rules."""

    def __init__(self, n_steps: int, mode: str, allow_neutral: bool) -> None:
        self.mode = mode
        self.unmarked = None if (allow_neutral and mode == "per_step") else 0
        self.steps: list[dict[str, Any]] = [
            {"index": i, "reward": self.unmarked, "source": None, "verified": False,
             "ai_reward": None, "ai_reasoning": "", "confidence": None}
            for i in range(n_steps)]

    def _mark(self, step: dict[str, Any], value: int) -> None:
        step.update(reward=value, verified=True, source="human")

    def _clear(self, step: dict[str, Any]) -> None:
        step.update(reward=self.unmarked, verified=False, source=None)

    def click(self, idx: int, value: int) -> None:
        step = self.steps[idx]
        if self.mode != "first_error":  # applyHumanMark: a second click clears
            if step["reward"] == value and step["verified"]:
                self._clear(step)
            else:
                self._mark(step, value)
        elif value == 1:
            if step["reward"] == 1 and step["verified"]:
                self._clear(step)
            else:
                self._mark(step, 1)
        elif step["reward"] == -1 and step["verified"]:
            for s in self.steps:
                self._clear(s)
        else:  # the first error: every earlier step correct, it and every later wrong
            for s in self.steps:
                self._mark(s, 1 if s["index"] < idx else -1)

    def value(self) -> str:
        return _dump({"steps": self.steps, "mode": self.mode})


class ToolCallReviewWidget:
    """tool_call_review's cards: one per tool call (`index` counts calls, `step` is the
    trace step); only calls with a verdict or a note are saved, and nothing judged saves
    an empty value."""

    def __init__(self, calls: list[tuple[int, str, str]]) -> None:
        self.calls = [{"index": i, "step": step, "tool": tool, "verdict": "", "notes": ""}
                      for i, (step, tool, _) in enumerate(calls)]

    def click(self, idx: int, verdict: str) -> None:
        call = self.calls[idx]
        call["verdict"] = "" if call["verdict"] == verdict else verdict

    def note(self, idx: int, text: str) -> None:
        self.calls[idx]["notes"] = text

    def value(self) -> str:
        data = [c for c in self.calls if c["verdict"] or c["notes"]]
        return _dump(data) if data else ""


def _noisy(truth: Any, options: list[Any], rng: random.Random, keep: float) -> Any:
    return truth if rng.random() < keep else rng.choice(options)


def answer_traces(user: str, k: int, rng: random.Random) -> Payload:
    trace = make_trace(k)
    skill = TRACE_SKILL[user]
    n = len(trace.steps)
    outcome = _noisy(trace.outcome, OUTCOMES, rng, skill)
    payload: Payload = {f"outcome:{outcome}": outcome}  # radio: the option as key and value

    # trajectory_eval: a card per step; a few steps left unjudged, a slip corrected
    evaluation = TrajectoryEvalWidget(n, TRACE_SCHEMES[1]["severities"])
    for i, truth in enumerate(trace.correctness):
        if rng.random() < 0.05:
            continue
        value = _noisy(truth, CORRECTNESS, rng, skill)
        if rng.random() < 0.1:  # clicked another button first, with a severity
            other = rng.choice([c for c in CORRECTNESS if c != value])
            evaluation.click(i, other)
            if other != "correct":
                evaluation.severity(i, "minor")
        evaluation.click(i, value)
        if value != "correct":
            sub = "wrong_tool" if truth == "incorrect" else "wrong_arguments"
            option = (f"tool_misuse::{sub}" if truth != "correct" and rng.random() < skill
                      else rng.choice(["hallucination", "unnecessary_step",
                                       "tool_misuse::wrong_tool"]))
            evaluation.error_type(i, option)
            if rng.random() < 0.9:
                evaluation.severity(i, rng.choice(["minor", "major", "major", "critical"]))
            if rng.random() < 0.5:
                evaluation.rationale(i, f"step {i + 1}: {option.split('::')[-1]}")
    payload["step_check:step_check"] = evaluation.value()

    # process_reward, first_error: click the first wrong step, or tick the good ones
    first = ProcessRewardWidget(n, "first_error", allow_neutral=False)
    wrong = [i for i, r in enumerate(trace.reward) if r < 0]
    seen = wrong[0] if wrong else None
    if rng.random() > skill:
        seen = rng.choice([None, *range(n)])
    if seen is None:
        for i in range(n):
            if rng.random() < 0.85:
                first.click(i, 1)
    else:
        for i in range(seen):
            if rng.random() < 0.3:
                first.click(i, 1)
        first.click(seen, -1)
    payload["first_error:first_error"] = first.value()

    # process_reward, per_step with neutral: every step rated, a few left unmarked
    per_step = ProcessRewardWidget(n, "per_step", allow_neutral=True)
    for i, step_truth in enumerate(trace.reward):
        if rng.random() < 0.08:
            continue
        per_step.click(i, _noisy(step_truth, [1, 0, -1], rng, skill))
    payload["step_reward:step_reward"] = per_step.value()

    # tool_call_review: a verdict per call; some skipped, some with a note only
    review = ToolCallReviewWidget(trace.calls)
    for i, (_, _, truth) in enumerate(trace.calls):
        r = rng.random()
        if r < 0.06:
            continue
        if r < 0.12:
            review.note(i, "not sure about this one")
            continue
        review.click(i, _noisy(truth, VERDICTS, rng, skill))
        if rng.random() < 0.15:
            review.note(i, "checked the arguments")
    if review.value():  # an empty hidden input is not posted
        payload["tool_review:tool_review"] = review.value()
    return payload


def trace_items(n: int) -> list[dict[str, Any]]:
    items = []
    for k in range(n):
        trace = make_trace(k)
        items.append({"id": f"a{k:02d}", "text": trace.text, TRACE_STEPS_KEY: trace.steps})
    return items


# --------------------------------------------------------------------------- projects

PROJECTS = {p.name: p for p in [
    Project("categorical", 8771, 11, CAT_SCHEMES,
            [{"id": f"c{k:02d}", "text": f"Review number {k}."} for k in range(15)],
            answer_categorical),
    Project("spatial", 8772, 22, SPATIAL_SCHEMES,
            [{"id": f"s{k:02d}", "text": f"sweep {k}", "point_cloud": f"clouds/s{k:02d}.pcd"}
             for k in range(12)], answer_spatial),
    Project("timed", 8773, 33, TIME_SCHEMES,
            [{"id": f"t{k:02d}", "text": f"clip {k}", "audio": f"audio/t{k:02d}.wav",
              "video": f"video/t{k:02d}.mp4",
              "events": [{"prompt": "someone enters"}, {"prompt": "someone laughs"}]}
             for k in range(12)], answer_time),
    Project("images", 8774, 44, IMAGE_SCHEMES,
            [{"id": f"m{k:02d}", "text": f"picture {k}", "image": f"images/m{k:02d}.png"}
             for k in range(12)], answer_images, image_media),
    Project("traces", 8775, TRACE_SEED, TRACE_SCHEMES, trace_items(12), answer_traces,
            config=TRACE_CONFIG),
]}


# --------------------------------------------------------------------------- running


def build(project: Project, out: Path = OUT) -> Path:
    assert 8771 <= project.port <= 8779
    config = base_config(project.schemes) | (project.config or {})
    work = prepare(project.name, "annotation_projects.py", project.seed, config,
                   project.items)
    if project.media:
        project.media(work)
    report = serve(work, project.port, ANNOTATORS, len(project.items),
                   lambda sim, url, user, iid: project.answer(
                       user, int(iid[1:]), _rng(project.seed, user, iid)))
    return save(work, out / project.name, ANNOTATORS, report, folders=("images",))


def main(argv: list[str]) -> int:
    out, argv = split_out(argv, OUT)
    for name in argv or list(PROJECTS):
        path = build(PROJECTS[name], out)
        print(f"{name}: {shown(path)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
